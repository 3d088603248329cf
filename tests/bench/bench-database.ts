/**
 * A fresh database for the benchmark (a SQLite file in a temporary folder, or a PostgreSQL schema on DATABASE_URL),
 * migrated, optionally seeded with the demo data, filled with a generated catalogue and settled as after a real
 * import. Used by the page and list targets (tests/bench/run.ts) and by each size of the growth measurement
 * (tests/bench/growth.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import pino from 'pino';
import type { Database } from '../../server/db/schema.js';
import { loadConfig, type AppConfig } from '../../server/config.js';
import { openDatabase, type DatabaseHandle, type Engine } from '../../server/db/database.js';
import { migrateToLatest } from '../../server/db/migrate.js';
import { seedDemo } from '../../server/seed/seed.js';
import { createPgSchema } from '../helpers/server-process.js';
import { generateLargeCatalogue, type Generated } from './generate.js';

export interface BenchDatabase {
  engine: Engine;
  /** DATA_DIR of the database (and its media). */
  dir: string;
  /** PG_SCHEMA, on PostgreSQL. */
  pgSchema: string | undefined;
  databaseUrl: string | undefined;
  config: AppConfig;
  database: DatabaseHandle;
  generated: Generated;
  /** Drops the schema or the folder; close `database` first. */
  drop(): Promise<void>;
}

export async function prepareBenchDatabase(engine: Engine, opts: { videos: number; performers: number; seedDemo: boolean; /** Where the site's mails go (default: a closed port). */ smtpUrl?: string }): Promise<BenchDatabase> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-bench-'));
  const databaseUrl = engine === 'postgres' ? process.env.DATABASE_URL : undefined;
  const pg = databaseUrl ? await createPgSchema(databaseUrl, 'bench') : undefined;
  const config = loadConfig(
    { ...process.env, NODE_ENV: 'production', SMTP_URL: opts.smtpUrl ?? 'smtp://127.0.0.1:9', APP_SECRET: 'bench-secret', DATA_DIR: dir, LOG_LEVEL: 'warn', DATABASE_URL: databaseUrl ?? '', REDIS_URL: '' },
    { port: 0, host: '127.0.0.1', databaseUrl },
  );
  const database = await openDatabase({ databaseUrl, sqliteFile: config.sqliteFile, pgSchema: pg?.schema, namedStatements: config.pgNamedStatements });
  await migrateToLatest(database.db, { schema: pg?.schema });
  if (opts.seedDemo) await seedDemo({ db: database.db, config, logger: pino({ level: 'warn' }) });
  const generated = await generateLargeCatalogue(database.db, { performers: opts.performers, videos: opts.videos, bigPerformerVideos: 1000 });
  // What the running site does at start and hourly: refresh the planner's statistics after the bulk load.
  await database.optimize();
  if (engine === 'postgres') await settlePostgres(database.db);
  return {
    engine, dir, pgSchema: pg?.schema, databaseUrl, config, database, generated,
    async drop() {
      await pg?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * What a bulk import of this size is followed by before it serves: VACUUM sets the visibility map (index-only scans)
 * and keeps autovacuum from starting on the new rows mid-measurement; CHECKPOINT writes the import's dirty pages
 * now, not during the measurements (a 1M-row load passes max_wal_size, and the checkpoint it requests spreads its
 * writes over minutes).
 */
async function settlePostgres(db: Kysely<Database>): Promise<void> {
  await sql`VACUUM ANALYZE`.execute(db);
  // Needs superuser or pg_checkpoint; without it the figures are only noisier.
  await sql`CHECKPOINT`.execute(db).catch((err: Error) => console.warn(`CHECKPOINT refused (${err.message}); measuring anyway`));
}

/**
 * Waits until the job queue has nothing due or running (the demo's media, its mails), at most `timeoutMs`: the demo
 * data queues about half a minute of picture and video work, which otherwise ran beside the first measurements (the
 * home page's, measured first, missed its targets in some runs). Returns how long it waited, ms.
 */
export async function settleJobs(db: Kysely<Database>, timeoutMs = 180_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const busy = await db
      .selectFrom('jobs')
      .select('id')
      .where('status', 'in', ['queued', 'running'])
      .where('runAt', '<=', new Date().toISOString())
      .executeTakeFirst();
    if (!busy) return Date.now() - started;
    if (Date.now() - started > timeoutMs) {
      console.warn(`jobs still due after ${timeoutMs} ms; measuring anyway`);
      return Date.now() - started;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}
