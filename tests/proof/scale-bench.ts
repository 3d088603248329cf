/**
 * `npm run proof:scale` (needs DATABASE_URL and REDIS_URL): requests/s through the round-robin balancer of
 * tests/helpers/proxies.ts with one instance, then two, on one PostgreSQL schema and one Redis (autocannon, 50
 * connections, 5 s per URL). Prints a markdown table for docs/deploy.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { openDatabase } from '../../server/db/database.js';
import { LocalDiskStorage } from '../../server/media/storage.js';
import { makeVideo } from '../../server/seed/factories.js';
import { createUser } from '../helpers/sessions.js';
import { createPgSchema, startServerProcess } from '../helpers/server-process.js';
import { startHttpBalancer } from '../helpers/proxies.js';

if (!process.env.DATABASE_URL || !process.env.REDIS_URL) throw new Error('DATABASE_URL and REDIS_URL are required');
const seconds = Number(process.env.SECONDS ?? 5);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scale-bench-'));
const s = await createPgSchema(process.env.DATABASE_URL, 'sb');
const env = { DATA_DIR: dir, APP_SECRET: 'bench', DATABASE_URL: process.env.DATABASE_URL, PG_SCHEMA: s.schema, REDIS_URL: process.env.REDIS_URL, REDIS_KEY_PREFIX: `sb:${s.schema}:`, TRUST_PROXY: '1', LOG_LEVEL: 'warn', NODE_ENV: 'production', SMTP_URL: 'smtp://127.0.0.1:9' };
const a = await startServerProcess(env);
const b = await startServerProcess(env);
const database = await openDatabase({ databaseUrl: env.DATABASE_URL, pgSchema: s.schema, poolSize: 2 });
const perf = await createUser(database.db, 'performer', { username: 'benchstar' });
for (let i = 0; i < 30; i++) await makeVideo({ db: database.db, storage: new LocalDiskStorage(path.join(dir, 'media')) }, perf.id, { title: `Bench ${i}`, access: 'free' });

const paths = ['/api/performers/search?limit=12', '/api/user/assets/videos/search?limit=12', '/'];
const rows: string[] = ['| URL | instances | req/s | p50 ms | p99 ms | non-2xx |', '|---|---|---|---|---|---|'];
for (const n of [1, 2]) {
  const lb = await startHttpBalancer((n === 1 ? [a] : [a, b]).map((x) => ({ host: '127.0.0.1', port: x.port })));
  for (const p of paths) {
    await autocannon({ url: lb.url + p, connections: 10, duration: 1 }); // warm-up
    const r = await autocannon({ url: lb.url + p, connections: 50, duration: seconds });
    rows.push(`| \`${p}\` | ${n} | ${Math.round(r.requests.average)} | ${r.latency.p50} | ${r.latency.p99} | ${r.non2xx + r.errors} |`);
    console.error(rows.at(-1));
  }
  await lb.close();
}
console.log(`\nMachine: ${os.cpus().length} cores (${os.cpus()[0]?.model}), Node ${process.version}; autocannon 50 connections, ${seconds} s per row; balancer = tests/helpers/proxies.ts (node:http, keep-alive upstream).\n`);
console.log(rows.join('\n'));
await database.close();
await Promise.all([a.stop(), b.stop()]);
await s.drop();
fs.rmSync(dir, { recursive: true, force: true });
