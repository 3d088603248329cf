/**
 * `npm run bench`: starts the real site on a seeded embedded database and measures pages and API calls
 * with autocannon, next to a plain Node HTTP server answering the same bytes (the ceiling), in one run.
 * Writes bench/report.md and bench/report.json. No pass/fail: figures for a reader to compare.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import pino from 'pino';
import { loadConfig } from '../../server/config.js';
import { openDatabase } from '../../server/db/database.js';
import { migrateToLatest } from '../../server/db/migrate.js';
import { buildApp } from '../../server/app.js';
import { seedDemo } from '../../server/seed/seed.js';
import { generateLargeCatalogue } from './generate.js';
import { runSocketBench, socketReportMarkdown } from './sockets.js';

const duration = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** Size of the generated catalogue (issue #4 part 7: at least 10k performers and 100k videos). */
const performerCount = Number(process.env.BENCH_PERFORMERS ?? 10_000);
const videoCount = Number(process.env.BENCH_VIDEOS ?? 100_000);

interface Row {
  name: string;
  path: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  bytes: number;
  ceilingRps: number;
  ratio: number;
}

async function measure(url: string): Promise<autocannon.Result> {
  return autocannon({ url, connections, duration, pipelining: 1 });
}

/** A bare node:http server replaying the exact bytes and content type: the best this machine can do. */
async function ceilingServer(body: Buffer, contentType: string) {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': contentType, 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-bench-'));
  const config = loadConfig({ ...process.env, NODE_ENV: 'production', APP_SECRET: 'bench-secret', DATA_DIR: dir, LOG_LEVEL: 'warn', DATABASE_URL: '' }, { port: 0, host: '127.0.0.1' });
  const logger = pino({ level: 'warn' });
  const database = await openDatabase({ sqliteFile: config.sqliteFile });
  await migrateToLatest(database.db);
  await seedDemo({ db: database.db, config, logger });
  const generated = await generateLargeCatalogue(database.db, { performers: performerCount, videos: videoCount, bigPerformerVideos: 1000 });
  console.log(`generated ${generated.performers} performers and ${generated.videos} videos in ${generated.ms} ms`);
  // What the running site does at start and hourly: refresh the planner's statistics after the bulk load.
  await database.optimize();
  const built = await buildApp({ config, database, logger });
  await built.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;

  const targets: Array<[string, string]> = [
    ['home page', '/'],
    ['performers page', '/performers'],
    ['API settings/public', `${config.apiBase}/settings/public`],
    ['API performers/search', `${config.apiBase}/performers/search?limit=12`],
    ['API site-promo/search', `${config.apiBase}/site-promo/search`],
    ['performer page (1,000 videos)', `/performers/${generated.bigPerformer.username}`],
    ['performer page (typical)', `/performers/${generated.samplePerformer.username}`],
    ['API videos/search newest', `${config.apiBase}/user/assets/videos/search?limit=12`],
    ['API videos/search popular', `${config.apiBase}/user/assets/videos/search?sort=popular&limit=12`],
    ['API videos/search by performer', `${config.apiBase}/user/assets/videos/search?performerId=${generated.bigPerformer.id}&limit=12`],
    ['API videos/search by tag', `${config.apiBase}/user/assets/videos/search?tag=${generated.tag}&limit=12`],
    ['API videos/search keyword', `${config.apiBase}/user/assets/videos/search?q=${generated.tag}&limit=12`],
  ];
  const rows: Row[] = [];
  for (const [name, p] of targets) {
    const probe = await fetch(base + p);
    const body = Buffer.from(await probe.arrayBuffer());
    const app = await measure(base + p);
    const ceiling = await ceilingServer(body, probe.headers.get('content-type') ?? 'text/plain');
    const top = await measure(ceiling.url);
    await ceiling.close();
    rows.push({
      name,
      path: p,
      rps: Math.round(app.requests.average),
      p50: app.latency.p50,
      p99: app.latency.p99,
      errors: app.errors,
      non2xx: app.non2xx,
      bytes: body.length,
      ceilingRps: Math.round(top.requests.average),
      ratio: Math.round((app.requests.average / top.requests.average) * 1000) / 1000,
    });
    console.log(`${name}: ${rows.at(-1)!.rps} req/s (ceiling ${rows.at(-1)!.ceilingRps}), p99 ${app.latency.p99} ms`);
  }
  await built.close();
  fs.rmSync(dir, { recursive: true, force: true });

  // Held connections, memory per connection and fan-out latency (tests/bench/sockets.ts).
  const sockets = await runSocketBench();
  console.log(`sockets: ${sockets.connections} held, ${sockets.heapPerConnectionKiB} KiB heap each, fan-out p50 ${sockets.latencyMs.p50} ms, p99 ${sockets.latencyMs.p99} ms`);

  const report = {
    at: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
    settings: { connections, durationSeconds: duration, engine: 'sqlite', performers: generated.performers + 12, videos: generated.videos, generateMs: generated.ms },
    rows,
    sockets,
  };
  fs.mkdirSync('bench', { recursive: true });
  fs.writeFileSync('bench/report.json', JSON.stringify(report, null, 2));
  const md = [
    '# Benchmark report',
    '',
    `Run ${report.at} on ${report.machine.cpus} cores (${report.machine.model}), Node ${report.machine.node}; autocannon, ${connections} connections, ${duration} s per target, embedded SQLite with demo data`,
    `plus a generated catalogue of ${generated.performers} performers and ${generated.videos} videos (tests/bench/generate.ts, ${generated.ms} ms; one performer holds 1,000 videos).`,
    'The ceiling is a plain node:http server answering the same bytes, measured in the same run.',
    '',
    '| target | path | req/s | p50 ms | p99 ms | non-2xx | errors | body bytes | ceiling req/s | ratio |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.name} | \`${r.path}\` | ${r.rps} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} | ${r.bytes} | ${r.ceilingRps} | ${r.ratio} |`),
    '',
  ].join('\n') + '\n' + socketReportMarkdown(sockets);
  fs.writeFileSync('bench/report.md', md);
  console.log('\n' + md);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
