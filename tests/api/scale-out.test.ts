import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../server/db/database.js';
import { LocalDiskStorage } from '../../server/media/storage.js';
import { hashPassword } from '../../server/auth/password.js';
import { makeVideo } from '../../server/seed/factories.js';
import { createUser } from '../helpers/sessions.js';
import { ask, connectSocket, nextEvent } from '../helpers/realtime-client.js';
import { createPgSchema, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { services, warnMissing } from '../helpers/services.js';
import { startHttpBalancer, type HttpBalancer } from '../helpers/proxies.js';

/**
 * Issue #8 part 5, scale-out: two server processes on one PostgreSQL schema and one Redis, behind a small
 * round-robin load balancer (tests/helpers/proxies.ts; nginx would do the same, see docs/deploy.md). Sessions live
 * in the database, rate limits in Redis, socket.io rooms span instances through the Redis adapter, settings are
 * re-read after SETTINGS_CACHE_MS. socket.io clients use the websocket transport (one TCP connection, so no
 * stickiness is needed); long-polling would need sticky sessions at the balancer.
 */
const ready = services.postgres && services.redis;
warnMissing('postgres', 'the scale-out tests');
warnMissing('redis', 'the scale-out tests');

const CACHE_MS = 1000;

describe.runIf(ready)('scale-out: two instances, one PostgreSQL, one Redis, one balancer', () => {
  let dir: string;
  let drop: () => Promise<void>;
  let a: ServerProcess;
  let b: ServerProcess;
  let lb: HttpBalancer;
  let database: DatabaseHandle;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scale-'));
    const s = await createPgSchema(process.env.DATABASE_URL!, 's');
    drop = s.drop;
    const env = {
      DATA_DIR: dir,
      APP_SECRET: 'scale-secret',
      DATABASE_URL: process.env.DATABASE_URL!,
      PG_SCHEMA: s.schema,
      REDIS_URL: process.env.REDIS_URL!,
      REDIS_KEY_PREFIX: `scale:${s.schema}:`,
      // Two proxies: the test itself plays an outer one (a CDN) by sending X-Forwarded-For, the balancer is the
      // inner one; so each test names its client address and the rate-limit test has a budget of its own.
      TRUST_PROXY: '2',
      SETTINGS_CACHE_MS: String(CACHE_MS),
      RATE_LIMIT_LOGIN_IP: '4/60',
      SERVE_WEB: '0',
    };
    a = await startServerProcess(env);
    b = await startServerProcess(env);
    lb = await startHttpBalancer([{ host: '127.0.0.1', port: a.port }, { host: '127.0.0.1', port: b.port }]);
    database = await openDatabase({ databaseUrl: env.DATABASE_URL, pgSchema: s.schema, poolSize: 2 });
  });
  afterAll(async () => {
    await lb?.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.close();
    await drop?.();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const call = async (base: string, p: string, init: RequestInit & { json?: unknown } = {}) => {
    const res = await fetch(`${base}/api${p}`, {
      ...init,
      headers: { ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}), ...(init.headers as Record<string, string>) },
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
    });
    const text = await res.text();
    return { status: res.status, backend: res.headers.get('x-backend'), body: text ? JSON.parse(text) : null };
  };

  it('a login through the balancer is a session on both instances', async () => {
    const u = await createUser(database.db, 'user', { username: 'scaleuser' });
    await database.db.updateTable('users').set({ passwordHash: await hashPassword('correct horse 1') }).where('id', '=', u.id).execute();
    const login = await call(lb.url, '/auth/login', { method: 'POST', json: { email: u.email, password: 'correct horse 1' }, headers: { 'x-forwarded-for': '198.51.100.1' } });
    expect(login.status).toBe(200);
    const seen = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const me = await call(lb.url, '/users/me', { headers: { authorization: `Bearer ${login.body.token}` } });
      expect(me.status).toBe(200);
      expect(me.body.username).toBe('scaleuser');
      seen.add(me.backend!);
    }
    expect([...seen].sort()).toEqual(['0', '1']);
  });

  it('rate limits are shared through Redis: 4 logins per IP in total, not per instance', async () => {
    const statuses: number[] = [];
    const backends = new Set<string>();
    for (let i = 0; i < 7; i++) {
      const r = await call(lb.url, '/auth/login', { method: 'POST', json: { email: `nobody${i}@example.test`, password: 'wrong password' }, headers: { 'x-forwarded-for': '203.0.113.77' } });
      statuses.push(r.status);
      backends.add(r.backend!);
    }
    expect(backends.size).toBe(2);
    expect(statuses).toEqual([400, 400, 400, 400, 429, 429, 429]);
  });

  it('a socket on one instance receives a comment posted through the other', async () => {
    const performer = await createUser(database.db, 'performer');
    const fan = await createUser(database.db, 'user');
    const video = await makeVideo({ db: database.db, storage: new LocalDiskStorage(path.join(dir, 'media')) }, performer.id, { title: 'Across', access: 'free' });
    const before = [...lb.served];
    const socket = await connectSocket(lb.url);
    try {
      const on = lb.served.findIndex((n, i) => n > before[i]!);
      expect(on).toBeGreaterThanOrEqual(0);
      expect((await ask(socket, 'object/watch', { objectType: 'video', objectId: video.id })).ok).toBe(true);
      const other = on === 0 ? b : a;
      const got = nextEvent(socket, 'comment/created');
      const res = await call(other.url, '/comments', { method: 'POST', headers: fan.headers, json: { objectType: 'video', objectId: video.id, content: 'hello from the other instance' } });
      expect(res.status).toBe(201);
      expect((await got).comment.content).toBe('hello from the other instance');
    } finally {
      socket.close();
    }
  });

  it('a settings change on A is visible on B within SETTINGS_CACHE_MS', async () => {
    const admin = await createUser(database.db, 'admin');
    // Warm B's cache with the old value first, so the test measures the cache expiry and not a cold read.
    expect((await call(b.url, '/settings/public')).status).toBe(200);
    const changed = await call(a.url, '/admin/settings', { method: 'PUT', headers: admin.headers, json: { siteName: 'Scaled Site' } });
    expect(changed.status).toBe(200);
    // B learns it from A's announcement on Redis (or, if that were lost, from its cache expiring); the poll's timeout
    // is a limit on waiting, not a measured duration.
    await expect.poll(async () => (await call(b.url, '/settings/public')).body.siteName, { timeout: CACHE_MS * 10, interval: 50 }).toBe('Scaled Site');
  });
});
