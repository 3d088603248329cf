/**
 * Watermark run benchmark (part of `npm run bench`, `BENCH_PARTS=watermark npm run bench`, or alone: `npx tsx tests/bench/watermark.ts`; BENCH_WATERMARK_SCALE, default 1, the demo
 * seed's scale; BENCH_WATERMARK_ENGINE sqlite | postgres, default sqlite).
 *
 * The demo catalogue is seeded with its generated media (videos, photos, posts' pictures) into a fresh database, the
 * app is started with its own job worker, and an admin turns watermarks on through the real API
 * (`PUT /api/admin/settings/watermark`). Measured: the time from the request until the run is done, its items and
 * items per second, its failures; meanwhile a signed-in fan asks for list and detail pages of the API one after the
 * other (signed in, so the micro-cache does not answer them), and their p50 / p99 / max are reported: the site keeps
 * answering while the worker stamps.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { loadConfig } from '../../server/config.js';
import { openDatabase, type Engine } from '../../server/db/database.js';
import { migrateToLatest } from '../../server/db/migrate.js';
import { buildApp } from '../../server/app.js';
import { seedDemo } from '../../server/seed/seed.js';
import { createSession } from '../helpers/sessions.js';
import { createPgSchema } from '../helpers/server-process.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? 0;

export async function runWatermarkBench(engine: Engine = 'sqlite', scale = 1) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-watermark-'));
  const pg = engine === 'postgres' ? await createPgSchema(process.env.DATABASE_URL!, 'wm') : undefined;
  const pgSchema = pg?.schema;
  const databaseUrl = engine === 'postgres' ? process.env.DATABASE_URL : undefined;
  const config = loadConfig(
    { NODE_ENV: 'development', DATA_DIR: dir, APP_SECRET: 'bench-secret', PUBLIC_URL: 'https://fanstage.example', JOBS_POLL_MS: '200', LOG_LEVEL: 'warn' },
    { databaseUrl, port: 0, host: '127.0.0.1' },
  );
  const database = await openDatabase({ databaseUrl, sqliteFile: config.sqliteFile, pgSchema, poolSize: 10 });
  await migrateToLatest(database.db, { schema: pgSchema });
  const logger = pino({ level: 'warn' });
  const seeded = Date.now();
  await seedDemo({ db: database.db, config, logger, scale });
  const seedSeconds = (Date.now() - seeded) / 1000;
  const built = await buildApp({ config, database, logger, web: false });
  await built.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}${config.apiBase}`;
  try {
    const admin = await database.db.selectFrom('users').select('id').where('role', '=', 'admin').executeTakeFirstOrThrow();
    const fan = await database.db.selectFrom('users').select('id').where('role', '=', 'user').executeTakeFirstOrThrow();
    const adminAuth = { authorization: `Bearer ${await createSession(database.db, admin.id)}` };
    const fanAuth = { authorization: `Bearer ${await createSession(database.db, fan.id)}` };
    const started = Date.now();
    const res = await fetch(`${base}/admin/settings/watermark`, { method: 'PUT', headers: { ...adminAuth, 'content-type': 'application/json' }, body: JSON.stringify({ watermarkEnabled: true, watermarkPosition: 'bottom-right', watermarkOpacity: 60 }) });
    const body = (await res.json()) as { runId: string };
    if (res.status !== 200) throw new Error(`PUT answered ${res.status}: ${JSON.stringify(body)}`);

    const pages = ['/user/assets/videos/search?limit=12', '/performers/search?limit=12', '/posts/search?limit=12', '/user/assets/galleries/search?limit=12'];
    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    let run: { status: string; total: number; done: number; failed: number } = { status: 'running', total: 0, done: 0, failed: 0 };
    let i = 0;
    while (run.status === 'running') {
      const t0 = performance.now();
      const page = await fetch(`${base}${pages[i++ % pages.length]}`, { headers: fanAuth });
      await page.arrayBuffer();
      latencies.push(performance.now() - t0);
      statuses[page.status] = (statuses[page.status] ?? 0) + 1;
      if (i % 4 === 0) run = (await (await fetch(`${base}/admin/watermarks/runs/${body.runId}`, { headers: adminAuth })).json()) as typeof run;
      await sleep(100);
      if (Date.now() - started > 30 * 60_000) throw new Error('run did not finish in 30 minutes');
    }
    const seconds = (Date.now() - started) / 1000;
    const sorted = [...latencies].sort((a, b) => a - b);
    const r2 = (n: number) => Math.round(n * 100) / 100;
    return {
      engine, scale, seedSeconds: r2(seedSeconds), items: run.total, done: run.done, failed: run.failed, seconds: r2(seconds), itemsPerSecond: r2(run.total / seconds),
      pages: { requests: latencies.length, statuses, p50Ms: r2(pct(sorted, 0.5)), p99Ms: r2(pct(sorted, 0.99)), maxMs: r2(sorted.at(-1) ?? 0) },
      concurrency: config.pipeline.jobs.concurrency,
    };
  } finally {
    await built.close();
    await pg?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export type WatermarkBenchResult = Awaited<ReturnType<typeof runWatermarkBench>>;

/** The report's section. */
export function watermarkReportMarkdown(r: WatermarkBenchResult): string {
  return [
    '## Watermark run over the demo catalogue (tests/bench/watermark.ts)',
    '',
    `The demo seed (scale ${r.scale}) on ${r.engine} with its generated media, the app's own worker (${r.concurrency} jobs at a time); an admin turns watermarks on`,
    'through the API and a signed-in fan asks for list pages one after another until the run is done (the site answering meanwhile).',
    '',
    '| engine | items | done | failed | time s | items/s | page requests | statuses | p50 ms | p99 ms | max ms |',
    '|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|',
    `| ${r.engine} | ${r.items} | ${r.done} | ${r.failed} | ${r.seconds} | ${r.itemsPerSecond} | ${r.pages.requests} | ${JSON.stringify(r.pages.statuses)} | ${r.pages.p50Ms} | ${r.pages.p99Ms} | ${r.pages.maxMs} |`,
    '',
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const engine = (process.env.BENCH_WATERMARK_ENGINE ?? 'sqlite') as Engine;
  runWatermarkBench(engine, Number(process.env.BENCH_WATERMARK_SCALE ?? 1)).then(
    (r) => console.log(JSON.stringify(r, null, 2)),
    (err) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
