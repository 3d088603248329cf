import { sql } from 'kysely';
import { loadConfig } from '../../server/config.js';
import { openDatabase } from '../../server/db/database.js';
import { buildApp, type BuiltApp } from '../../server/app.js';
import type { TestApp } from './test-app.js';

/**
 * A second app instance over the SAME database and media directory as `t` (another process of the
 * same site, or the same site after a restart). API only, not listening: it runs its job worker.
 * Close it before `t` (t.close() drops the PostgreSQL schema).
 */
export async function startSiblingApp(t: TestApp, env: Record<string, string> = {}): Promise<BuiltApp> {
  let pgSchema: string | undefined;
  if (t.engine === 'postgres') {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(t.ctx.db);
    pgSchema = rows[0]!.schema;
  }
  const config = loadConfig(
    { NODE_ENV: 'test', DATA_DIR: t.config.dataDir, APP_SECRET: 'test-secret', SETTINGS_CACHE_MS: '0', ...env },
    { databaseUrl: t.config.databaseUrl, sqliteFile: t.config.sqliteFile, mediaDir: t.config.mediaDir, port: 0, host: '127.0.0.1' },
  );
  const database = await openDatabase({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile, pgSchema, poolSize: 5 });
  return buildApp({ config, database, web: false });
}
