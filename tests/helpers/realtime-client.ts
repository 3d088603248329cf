import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { io, type Socket } from 'socket.io-client';
import { afterEach } from 'vitest';
import type { ClientToServerEvents, RealtimeAck, ServerToClientEvents } from '../../common/realtime.js';
import { loadConfig } from '../../server/config.js';
import { openDatabase } from '../../server/db/database.js';
import { buildApp, type BuiltApp } from '../../server/app.js';
import type { TestApp } from './test-app.js';

export type TestSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** A socket.io client in Node, websocket only, no automatic reconnection (tests that need it say so). */
export function connectSocket(
  url: string,
  opts: { token?: string; cookie?: string; origin?: string; reconnection?: boolean; transports?: string[]; headers?: Record<string, string> } = {},
): Promise<TestSocket> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.origin) headers.origin = opts.origin;
  const socket: TestSocket = io(url, {
    path: '/socket.io',
    transports: opts.transports ?? ['websocket'],
    forceNew: true,
    reconnection: opts.reconnection ?? false,
    extraHeaders: headers,
    ...(opts.token ? { query: { token: opts.token } } : {}),
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`socket did not connect to ${url}`)), 5000);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('connect_error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** Emits with an acknowledgement and resolves to it. */
/**
 * `connectSocket` for a test file whose sockets are all closed after each test (call at the file's top level):
 * a test that fails half-way leaves no socket listening into the next one.
 */
export function socketsClosedAfterEach(): (url: string, opts?: Parameters<typeof connectSocket>[1]) => Promise<TestSocket> {
  const sockets: TestSocket[] = [];
  afterEach(() => {
    for (const s of sockets.splice(0)) s.close();
  });
  return async (url, opts = {}) => {
    const s = await connectSocket(url, opts);
    sockets.push(s);
    return s;
  };
}

export function ask<E extends keyof ClientToServerEvents>(socket: TestSocket, event: E, payload: Parameters<ClientToServerEvents[E]>[0]): Promise<RealtimeAck> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ack for ${event}`)), 5000);
    (socket.emit as (ev: string, ...args: unknown[]) => void)(event, payload, (ack: RealtimeAck) => {
      clearTimeout(timer);
      resolve(ack);
    });
  });
}

/** Resolves with the next `event` whose payload passes `filter`; rejects after `ms`. */
export function nextEvent<E extends keyof ServerToClientEvents>(
  socket: TestSocket,
  event: E,
  filter: (payload: Parameters<ServerToClientEvents[E]>[0]) => boolean = () => true,
  ms = 5000,
): Promise<Parameters<ServerToClientEvents[E]>[0]> {
  return new Promise((resolve, reject) => {
    const handler = (payload: Parameters<ServerToClientEvents[E]>[0]) => {
      if (!filter(payload)) return;
      clearTimeout(timer);
      socket.off(event, handler as never);
      resolve(payload);
    };
    const timer = setTimeout(() => {
      socket.off(event, handler as never);
      reject(new Error(`no ${String(event)} within ${ms} ms`));
    }, ms);
    socket.on(event, handler as never);
  });
}

/** Collects every `event` a socket receives. */
export function collect<E extends keyof ServerToClientEvents>(socket: TestSocket, event: E): Array<Parameters<ServerToClientEvents[E]>[0]> {
  const seen: Array<Parameters<ServerToClientEvents[E]>[0]> = [];
  socket.on(event, ((payload: Parameters<ServerToClientEvents[E]>[0]) => seen.push(payload)) as never);
  return seen;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Another instance of the site over the SAME database (same SQLite file or PostgreSQL schema) and, with
 * REDIS_URL, the same Redis key prefix as `t` (so the socket.io adapters talk), listening on `port` (0: any).
 * Close it before `t` (t.close() drops the PostgreSQL schema).
 */
export async function startInstance(t: TestApp, opts: { port?: number; pgSchema?: string; env?: Record<string, string>; web?: boolean } = {}): Promise<{ built: BuiltApp; url: string }> {
  let pgSchema = opts.pgSchema;
  if (t.engine === 'postgres' && !pgSchema) pgSchema = await currentSchema(t);
  const config = loadConfig(
    {
      NODE_ENV: 'test', DATA_DIR: t.config.dataDir, APP_SECRET: 'test-secret', SETTINGS_CACHE_MS: '0', REDIS_KEY_PREFIX: t.config.redisKeyPrefix,
      ...(t.config.redisUrl ? { REDIS_URL: t.config.redisUrl } : {}), JOBS_WORKER: '0', ...opts.env,
    },
    { databaseUrl: t.config.databaseUrl, sqliteFile: t.config.sqliteFile, mediaDir: t.config.mediaDir, port: opts.port ?? 0, host: '127.0.0.1' },
  );
  const database = await openDatabase({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile, pgSchema, poolSize: 5 });
  const built = await buildApp({ config, database, web: opts.web ?? false });
  await built.app.listen({ host: '127.0.0.1', port: opts.port ?? 0 });
  const url = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
  built.ctx.config.publicUrl = url;
  return { built, url };
}

export async function currentSchema(t: TestApp): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(t.ctx.db);
  return rows[0]!.schema;
}
