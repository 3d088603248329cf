import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { loadConfig, type AppConfig } from '../../server/config.js';
import { openDatabase, type Engine } from '../../server/db/database.js';
import { migrateToLatest } from '../../server/db/migrate.js';
import { buildApp, type BuiltApp } from '../../server/app.js';
import { services, warnMissing } from './services.js';

/** SQLite always; PostgreSQL when DATABASE_URL is set (CI must set it: tests/setup/require-services.ts). */
export const engines: Engine[] = services.postgres ? ['sqlite', 'postgres'] : ['sqlite'];
warnMissing('postgres', 'PostgreSQL tests');

export interface TestApp {
  engine: Engine;
  url: string;
  built: BuiltApp;
  ctx: BuiltApp['ctx'];
  config: AppConfig;
  /** The PostgreSQL schema of this app's database (postgres only). */
  schema: string | undefined;
  /** fetch against the API base, JSON in and out. */
  api(pathname: string, init?: RequestInit & { json?: unknown }): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  web?: boolean;
  env?: Record<string, string>;
  config?: Partial<AppConfig>;
  /** Register extra routes (e.g. a slow one for drain tests) before the server listens. */
  beforeListen?: (built: BuiltApp) => void | Promise<void>;
}

/** A real HTTP server on a random port over a freshly migrated database of the given engine. */
export async function startTestApp(engine: Engine, opts: TestAppOptions = {}): Promise<TestApp> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-test-'));
  const schema = `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const databaseUrl = engine === 'postgres' ? process.env.DATABASE_URL : undefined;
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.end();
  }
  const config = loadConfig(
    // A fresh Redis key prefix per app, so rate-limit counters never leak between apps, test files or runs.
    { NODE_ENV: 'test', DATA_DIR: dir, APP_SECRET: 'test-secret', SETTINGS_CACHE_MS: '0', REDIS_KEY_PREFIX: `test:${schema}:`, ...opts.env },
    { databaseUrl, port: 0, host: '127.0.0.1', ...opts.config },
  );
  const database = await openDatabase({ databaseUrl, sqliteFile: config.sqliteFile, pgSchema: databaseUrl ? schema : undefined, poolSize: 5 });
  await migrateToLatest(database.db, { schema: databaseUrl ? schema : undefined });
  const built = await buildApp({ config, database, web: opts.web ?? false });
  await opts.beforeListen?.(built);
  await built.app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
  // The site's address is where this server listens, unless the test sets PUBLIC_URL itself (a configured address).
  if (!opts.env?.PUBLIC_URL) built.ctx.config.publicUrl = url;

  return {
    engine,
    url,
    built,
    ctx: built.ctx,
    config,
    schema: databaseUrl ? schema : undefined,
    async api(pathname, init = {}) {
      const { json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (json !== undefined) headers.set('content-type', 'application/json');
      const res = await fetch(`${url}${config.apiBase}${pathname}`, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        // keep raw text
      }
      return { status: res.status, body, headers: res.headers };
    },
    async close() {
      await built.close();
      if (databaseUrl) {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.end();
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
