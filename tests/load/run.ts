/**
 * `npm run load`: 500 simulated users (one pre-created user with a live session each) browse pages and API lists,
 * like/unlike videos and comment for 60 s (LOAD_SECONDS, LOAD_USERS) against a real server on a freshly seeded
 * SQLite database, and on PostgreSQL too when DATABASE_URL is set (a fresh schema, dropped afterwards).
 * Asserts zero 5xx and zero lost writes (tests/load/core.ts); writes bench/load-report.md and .json and exits
 * non-zero on any violation. 429s (per-user rate limits) are counted separately and are not violations.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../../server/config.js';
import { openDatabase, type Engine } from '../../server/db/database.js';
import { migrateToLatest } from '../../server/db/migrate.js';
import { buildApp } from '../../server/app.js';
import { prepareLoad, snapshot, verifyLoad, type LoadResult } from './core.js';
import { runLoadInProcess } from './users-process.js';

const seconds = Number(process.env.LOAD_SECONDS ?? 60);
const users = Number(process.env.LOAD_USERS ?? 500);
const thinkMs = Number(process.env.LOAD_THINK_MS ?? 100);
const pages = fs.existsSync('dist/server/entry.mjs');

async function runOn(engine: Engine): Promise<LoadResult & { engine: Engine }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-load-'));
  const databaseUrl = engine === 'postgres' ? process.env.DATABASE_URL : undefined;
  const schema = `load_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  if (databaseUrl) {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    await c.query(`CREATE SCHEMA ${schema}`);
    await c.end();
  }
  const config = loadConfig(
    { ...process.env, NODE_ENV: 'production', SMTP_URL: 'smtp://127.0.0.1:9', APP_SECRET: 'load-secret', DATA_DIR: dir, LOG_LEVEL: 'warn', DATABASE_URL: databaseUrl ?? '', REDIS_URL: '' },
    { port: 0, host: '127.0.0.1', databaseUrl },
  );
  const logger = pino({ level: 'warn' });
  const database = await openDatabase({ databaseUrl, sqliteFile: config.sqliteFile, pgSchema: databaseUrl ? schema : undefined });
  await migrateToLatest(database.db, { schema: databaseUrl ? schema : undefined });
  const fx = await prepareLoad(database.db, { users, performers: 200, videos: 5000 });
  await database.optimize();
  const built = await buildApp({ config, database, logger, web: pages });
  await built.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
  try {
    const before = await snapshot(database.db, fx.videoIds);
    console.log(`${engine}: ${users} users for ${seconds} s (pages: ${pages})`);
    const result = await runLoadInProcess(fx, { base, apiBase: config.apiBase, seconds, pages, thinkMs });
    result.check = await verifyLoad(database.db, fx, before, result);
    const { effects: _e, ...rest } = result;
    console.log(`${engine}: ${rest.requests} requests, ${rest.rps}/s, status ${JSON.stringify(rest.byStatus)}, violations ${JSON.stringify(rest.check!.violations)}`);
    return { engine, ...rest };
  } finally {
    await built.close();
    if (databaseUrl) {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const engines: Engine[] = process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const runs = [];
  for (const e of engines) runs.push(await runOn(e));
  const report = { at: new Date().toISOString(), machine: { cpus: os.cpus().length, node: process.version }, settings: { users, seconds, thinkMs, pages }, runs };
  fs.mkdirSync('bench', { recursive: true });
  fs.writeFileSync('bench/load-report.json', JSON.stringify(report, null, 2));
  const md = [
    '# Load test report',
    '',
    `Run ${report.at} on ${report.machine.cpus} cores, Node ${report.machine.node}: ${users} simulated users (one user and session each), ${seconds} s,`,
    `think time 0..${thinkMs} ms; mix: 30% pages (${pages ? 'home, performers, video, performer profile' : 'skipped: no dist/ build'}), 30% API lists, 30% like/unlike, 10% comment.`,
    'The users run in a process of their own (tests/load/users-process.ts), the server in this one; both share the 2 cores. Latency is',
    `measured by the users' process. Load average at the end: ${os.loadavg().map((n) => n.toFixed(2)).join(' ')} (the run itself keeps both cores busy).`,
    '',
    '| engine | requests | req/s | 2xx | 429 | 4xx other | 5xx | network errors | comments 2xx / rows | likes net ops / rows | counter mismatches | result |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...runs.map((r) => {
      const s = Object.entries(r.byStatus);
      const sum = (f: (n: number) => boolean) => s.filter(([k]) => f(Number(k))).reduce((a, [, n]) => a + n, 0);
      const c = r.check!;
      return `| ${r.engine} | ${r.requests} | ${r.rps} | ${sum((n) => n < 300)} | ${r.rateLimited} | ${sum((n) => n >= 400 && n < 500 && n !== 429)} | ${r.fiveXX} | ${r.networkErrors} | ${c.commentsExpected} / ${c.commentsCreatedInDb} | ${c.likeRowsExpected} / ${c.likeRowsDelta} | ${c.likeCounterMismatches.length + c.commentCounterMismatches.length} | ${c.violations.length ? 'FAIL: ' + c.violations.join('; ') : 'pass'} |`;
    }),
    '',
    '## Latency by kind (ms, client side)',
    '',
    '| engine | kind | count | p50 | p99 |',
    '|---|---|---:|---:|---:|',
    ...runs.flatMap((r) => Object.entries(r.byKind).map(([k, v]) => `| ${r.engine} | ${k} | ${v.count} | ${v.p50} | ${v.p99} |`)),
    '',
    `Writes answered 2xx: ${runs.map((r) => `${r.engine}: ${r.writes.comments2xx} comments, ${r.writes.likeAdded} likes added, ${r.writes.likeRemoved} removed, ${r.writes.reactionNoop} no-op`).join('; ')}.`,
    '',
  ].join('\n');
  fs.writeFileSync('bench/load-report.md', md);
  console.log('\n' + md);
  const failed = runs.some((r) => r.check!.violations.length > 0);
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
