import fs from 'node:fs';
import path from 'node:path';
import { Kysely, sql, type CompiledQuery, type Transaction } from 'kysely';
import { CamelCaseRows, SnakeCasePostgresDialect } from './snake-case.js';
import { SqliteReader } from './sqlite-reader.js';
import { withStatementCache } from './sqlite-statements.js';
import { YieldingSqliteDialect } from './sqlite-dialect.js';
import type { Database } from './schema.js';

export type Engine = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;
/** Services take `DbOrTrx` so the caller (route or use case) owns the transaction. */
export type DbOrTrx = Kysely<Database> | Transaction<Database>;

/** Throws when the database does not answer (the load balancers' health check, server/app.ts). */
export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

export interface DatabaseHandle {
  db: Db;
  engine: Engine;
  /**
   * Refreshes the query planner's statistics where they are stale (SQLite `PRAGMA optimize`; PostgreSQL's
   * autovacuum does this by itself). Without statistics SQLite may sort a whole table instead of walking the
   * index of the requested order.
   */
  optimize(): Promise<void>;
  /**
   * Runs a read-only query away from the event loop (SQLite file databases: a worker thread with its own
   * connection); absent where queries are asynchronous anyway (PostgreSQL) or there is no file (`:memory:`).
   */
  readOffThread?(query: CompiledQuery): Promise<unknown[]>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl?: string;
  sqliteFile?: string;
  /** PostgreSQL schema to use (tests isolate each run in its own schema). */
  pgSchema?: string;
  poolSize?: number;
}

export async function openDatabase(opts: DatabaseOptions): Promise<DatabaseHandle> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.pgSchema, opts.poolSize ?? 10);
  if (!opts.sqliteFile) throw new Error('sqliteFile or databaseUrl is required');
  return openSqlite(opts.sqliteFile);
}

async function openSqlite(file: string): Promise<DatabaseHandle> {
  const { default: SQLite } = await import('better-sqlite3');
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SQLite(file);
  // WAL lets readers run while a writer commits; busy_timeout makes concurrent writers wait instead of failing.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // SQLite's advice for long-lived connections: optimize at open (0x10002 looks at every table), then periodically.
  sqlite.pragma('optimize = 0x10002');
  const timer = setInterval(() => sqlite.pragma('optimize'), 60 * 60 * 1000);
  timer.unref();
  const db = new Kysely<Database>({ dialect: new YieldingSqliteDialect({ database: withStatementCache(sqlite) }), plugins: [new CamelCaseRows()] });
  // Started on first use: most processes (tests, CLIs) never read off-thread.
  let reader: SqliteReader | undefined;
  return {
    db,
    engine: 'sqlite',
    async optimize() {
      sqlite.pragma('optimize = 0x10002');
    },
    ...(file === ':memory:' ? {} : { readOffThread: (query: CompiledQuery) => (reader ??= new SqliteReader(file)).all(query) }),
    async close() {
      clearInterval(timer);
      await reader?.close();
      await db.destroy();
    },
  };
}

async function openPostgres(url: string, schema: string | undefined, max: number): Promise<DatabaseHandle> {
  const pg = await import('pg');
  const { Pool, types } = pg.default;
  // COUNT/SUM come back as int8; our values stay far below 2^53, so numbers are safe and simpler.
  types.setTypeParser(20, (v: string) => Number(v));
  types.setTypeParser(1700, (v: string) => Number(v));
  const pool = new Pool({
    connectionString: url,
    max,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle client losing its server (PostgreSQL restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // A client checked out when the connection drops emits 'error' too (its query also rejects, which the request
  // answers as 503): without a listener Node treats it as unhandled and the process dies. The pool discards it on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: new SnakeCasePostgresDialect({ pool }), plugins: [new CamelCaseRows()] });
  return {
    db,
    engine: 'postgres',
    async optimize() {
      // autovacuum keeps statistics current
    },
    async close() {
      await db.destroy();
    },
  };
}
