import fs from 'node:fs';
import path from 'node:path';
import { Kysely, sql, type CompiledQuery, type Transaction } from 'kysely';
import { CamelCaseRows, SnakeCasePostgresDialect } from './snake-case.js';
import { NAMED_STATEMENTS_DEFAULT, StatementNames, nameStatementsOf } from './pg-statement-names.js';
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
   * Refreshes the query planner's statistics where they are stale (SQLite `PRAGMA optimize`; PostgreSQL `ANALYZE` of
   * the tables autovacuum would analyze next). Without statistics either engine may read a whole table, or every
   * performer's rows, instead of walking the index of the requested order.
   */
  optimize(): Promise<void>;
  /**
   * Runs a read-only query away from the event loop (SQLite file databases: a worker thread with its own
   * connection); absent where queries are asynchronous anyway (PostgreSQL) or there is no file (`:memory:`).
   */
  readOffThread?(query: CompiledQuery): Promise<unknown[]>;
  /**
   * Hears migration 0032's notices of changed accounts and sessions (server/auth/session-cache.ts) until the stop it
   * answers is called.
   */
  watchSessions(watcher: SessionWatcher): () => Promise<void>;
  close(): Promise<void>;
}

/** What a session watcher hears. */
export interface SessionWatcher {
  /** A statement of this process is writing a change to the account or its sessions (not committed yet). */
  changing(userId: string): void;
  /** A change to the account or its sessions was committed, by any process (PostgreSQL). */
  changed(userId: string): void;
  /** Whether every change is heard from now on (false while PostgreSQL's listening connection is down). */
  live(live: boolean): void;
}

/** The notices' channel and the RAISE NOTICE's prefix (migration 0032). */
const SESSION_CHANNEL = 'session_changed';

export interface DatabaseOptions {
  databaseUrl?: string;
  sqliteFile?: string;
  /** PostgreSQL schema to use (tests isolate each run in its own schema). */
  pgSchema?: string;
  poolSize?: number;
  /** PostgreSQL: how many statement texts run as named statements (server/db/pg-statement-names.ts); 0: none. */
  namedStatements?: number;
}

export async function openDatabase(opts: DatabaseOptions): Promise<DatabaseHandle> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.pgSchema, opts.poolSize ?? 10, opts.namedStatements ?? NAMED_STATEMENTS_DEFAULT);
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
  // Migration 0032's triggers call it on every change to an account or its sessions, while the statement runs: the
  // process's one connection runs one transaction at a time, so a session read queued behind it sees the change.
  const watchers = new Set<SessionWatcher>();
  sqlite.function(SESSION_CHANNEL, (userId: unknown) => {
    for (const w of watchers) w.changing(String(userId));
    return null;
  });
  const db = new Kysely<Database>({ dialect: new YieldingSqliteDialect({ database: withStatementCache(sqlite) }), plugins: [new CamelCaseRows()] });
  // Started on first use: most processes (tests, CLIs) never read off-thread.
  let reader: SqliteReader | undefined;
  return {
    db,
    engine: 'sqlite',
    watchSessions(watcher) {
      watchers.add(watcher);
      watcher.live(true);
      return async () => {
        watchers.delete(watcher);
      };
    },
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

async function openPostgres(url: string, schema: string | undefined, max: number, named: number): Promise<DatabaseHandle> {
  const pg = await import('pg');
  const { Pool, types } = pg.default;
  // COUNT/SUM come back as int8; our values stay far below 2^53, so numbers are safe and simpler.
  types.setTypeParser(20, (v: string) => Number(v));
  types.setTypeParser(1700, (v: string) => Number(v));
  // client_min_messages: the RAISE NOTICE of migration 0032's triggers must reach the connection that wrote.
  const config = { connectionString: url, options: `-c client_min_messages=notice${schema ? ` -c search_path=${schema}` : ''}` };
  const pool = new Pool({ ...config, max });
  const watchers = new Set<SessionWatcher>();
  const prefix = `${SESSION_CHANNEL} `;
  const names = named > 0 ? new StatementNames(named) : null;
  // An idle client losing its server (PostgreSQL restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    // A client checked out when the connection drops emits 'error' too (its query also rejects, which the request
    // answers as 503): without a listener Node treats it as unhandled and the process dies. The pool discards it on release.
    client.on('error', () => {});
    if (names) nameStatementsOf(client, names);
    client.on('notice', (notice) => {
      if (notice.message?.startsWith(prefix)) for (const w of watchers) w.changing(notice.message.slice(prefix.length));
    });
  });
  const db = new Kysely<Database>({ dialect: new SnakeCasePostgresDialect({ pool }), plugins: [new CamelCaseRows()] });
  return {
    db,
    engine: 'postgres',
    watchSessions(watcher) {
      watchers.add(watcher);
      // Named with its schema, so one site's listening connection can be found among others' (tests end it on purpose).
      const stop = listen(pg.default.Client, { ...config, application_name: `session-notices ${schema ?? 'public'}` }, SESSION_CHANNEL, {
        notice: (userId) => watcher.changed(userId),
        live: (live) => watcher.live(live),
      });
      return async () => {
        watchers.delete(watcher);
        await stop();
      };
    },
    async optimize() {
      // What autovacuum's next round would do (its default thresholds), now: after a bulk load (a restore, the bench's
      // and the load test's catalogues) the planner otherwise has no statistics until that round, up to a minute or
      // more, and meanwhile read the newest videos by walking every performer's (5,000 rows for a page of 12).
      const stale = await sql<{ name: string }>`select relname as name from pg_stat_user_tables
        where schemaname = current_schema() and (coalesce(last_analyze, last_autoanalyze) is null or n_mod_since_analyze > 50 + 0.1 * n_live_tup)`.execute(db);
      for (const { name } of stale.rows) await sql`analyze ${sql.id(name)}`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}

/**
 * A connection of its own that LISTENs on `channel`, reconnecting (after 0.5 s, then doubling up to 10 s) when it is
 * lost; `live` says when it listens and when it stopped hearing. Answers its stop.
 */
function listen(
  Client: typeof import('pg').Client,
  config: { connectionString: string; options: string; application_name: string },
  channel: string,
  on: { notice(payload: string): void; live(live: boolean): void },
): () => Promise<void> {
  let stopped = false;
  let client: import('pg').Client | null = null;
  let retry: NodeJS.Timeout | undefined;
  let wait = 500;
  const lost = () => {
    on.live(false);
    client?.removeAllListeners();
    client?.on('error', () => {});
    client?.end().catch(() => {});
    client = null;
    if (!stopped) retry = setTimeout(() => void open(), wait);
    wait = Math.min(wait * 2, 10_000);
  };
  const open = async () => {
    const c = new Client(config);
    client = c;
    c.on('error', () => c === client && lost());
    c.on('end', () => c === client && lost());
    c.on('notification', (n) => n.channel === channel && n.payload !== undefined && on.notice(n.payload));
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
      if (stopped || c !== client) return;
      wait = 500;
      on.live(true);
    } catch {
      if (c === client) lost();
    }
  };
  void open();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const c = client;
    client = null;
    on.live(false);
    await c?.end().catch(() => {});
  };
}
