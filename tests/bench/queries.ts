/**
 * `tsx tests/bench/queries.ts`: the catalogue queries the bench found slow, measured at several catalogue sizes so
 * that growth shows: for each engine (SQLite; PostgreSQL too when DATABASE_URL is set) and each size a fresh
 * database gets a generated catalogue (tests/bench/generate.ts: QUERIES_PERFORMERS performers, one of them with
 * 1,000 videos), the real app serves it (production settings: list totals cached LIST_COUNT_CACHE_MS), and
 * autocannon measures each target for QUERIES_SECONDS with QUERIES_CONNECTIONS connections.
 *
 *   QUERIES_SIZES=10000,100000      video counts (1000000 works; PostgreSQL's bulk load of 1M takes minutes)
 *   QUERIES_PG_SIZES=…              sizes for PostgreSQL (default: QUERIES_SIZES)
 *   QUERIES_SECONDS=5  QUERIES_CONNECTIONS=50  QUERIES_PERFORMERS=10000
 *   QUERIES_ONLY=tag,keyword        only targets whose name contains one of these
 *
 * Performer pages are measured when the Astro build exists (dist/server/entry.mjs). Each engine and size runs in
 * its own child process (the Astro handler keeps the first app it served). Writes bench/queries.md and
 * bench/queries.json. Never fails on figures.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import pino from 'pino';
import { sql } from 'kysely';
import { loadConfig } from '../../server/config.js';
import { openDatabase, type Engine } from '../../server/db/database.js';
import { migrateToLatest } from '../../server/db/migrate.js';
import { buildApp } from '../../server/app.js';
import { generateLargeCatalogue, type Generated } from './generate.js';
import { createPgSchema } from '../helpers/server-process.js';

const seconds = Number(process.env.QUERIES_SECONDS ?? 5);
const connections = Number(process.env.QUERIES_CONNECTIONS ?? 50);
const performers = Number(process.env.QUERIES_PERFORMERS ?? 10_000);
const sizes = (process.env.QUERIES_SIZES ?? '10000,100000').split(',').map(Number);
const pgSizes = process.env.QUERIES_PG_SIZES ? process.env.QUERIES_PG_SIZES.split(',').map(Number) : sizes;
const only = process.env.QUERIES_ONLY?.split(',').filter(Boolean);
const web = fs.existsSync('dist/server/entry.mjs');

interface Result {
  engine: Engine;
  size: number;
  target: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

function targets(api: string, g: Generated): Array<[string, string]> {
  const list: Array<[string, string]> = [
    ['newest', `${api}/user/assets/videos/search?limit=12`],
    ['by tag', `${api}/user/assets/videos/search?tag=${g.tag}&limit=12`],
    ['keyword (common)', `${api}/user/assets/videos/search?q=${g.tag}&limit=12`],
    ['keyword (rare)', `${api}/user/assets/videos/search?q=clip%20${Math.floor(g.videos / 2)}x&limit=12`],
    ['by performer (1,000 videos)', `${api}/user/assets/videos/search?performerId=${g.bigPerformer.id}&limit=12`],
    ...(web
      ? ([
          ['performer page (1,000 videos)', `/performers/${g.bigPerformer.username}`],
          ['performer page (typical)', `/performers/${g.samplePerformer.username}`],
        ] as Array<[string, string]>)
      : []),
  ];
  return only ? list.filter(([name]) => only.some((o) => name.includes(o))) : list;
}

async function run(engine: Engine, size: number): Promise<Result[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-queries-'));
  const databaseUrl = engine === 'postgres' ? process.env.DATABASE_URL : undefined;
  const pgSchema = databaseUrl ? await createPgSchema(databaseUrl, `queries_${size}`) : undefined;
  const schema = pgSchema?.schema;
  const config = loadConfig(
    { ...process.env, NODE_ENV: 'production', SMTP_URL: 'smtp://127.0.0.1:9', APP_SECRET: 'bench-secret', DATA_DIR: dir, LOG_LEVEL: 'warn', DATABASE_URL: databaseUrl ?? '', REDIS_URL: '' },
    { port: 0, host: '127.0.0.1', databaseUrl },
  );
  const database = await openDatabase({ databaseUrl, sqliteFile: config.sqliteFile, pgSchema: schema });
  const results: Result[] = [];
  try {
    await migrateToLatest(database.db, { schema });
    const g = await generateLargeCatalogue(database.db, { performers, videos: size, bigPerformerVideos: 1000 });
    console.log(`${engine} ${size}: generated in ${g.ms} ms`);
    await database.optimize();
    if (databaseUrl) await sql`ANALYZE`.execute(database.db);
    const built = await buildApp({ config, database, logger: pino({ level: 'warn' }), web });
    await built.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
    try {
      for (const [name, p] of targets(config.apiBase, g)) {
        const probe = await fetch(base + p);
        if (!probe.ok) throw new Error(`${name}: ${probe.status} ${await probe.text()}`);
        await probe.arrayBuffer();
        const r = await autocannon({ url: base + p, connections, duration: seconds, pipelining: 1 });
        results.push({ engine, size, target: name, rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors });
        console.log(`${engine} ${size} ${name}: ${results.at(-1)!.rps} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms${r.non2xx || r.errors ? ` (${r.non2xx} non-2xx, ${r.errors} errors)` : ''}`);
      }
    } finally {
      await new Promise((r) => setTimeout(r, 500));
      await built.close();
    }
  } finally {
    await pgSchema?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

async function main() {
  const one = process.argv.indexOf('--one');
  if (one >= 0) {
    const results = await run(process.argv[one + 1] as Engine, Number(process.argv[one + 2]));
    fs.writeFileSync(process.argv[one + 3]!, JSON.stringify(results));
    return;
  }
  const engines: Engine[] = process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const all: Result[] = [];
  const out = path.join(os.tmpdir(), `queries-${process.pid}.json`);
  for (const engine of engines) {
    for (const size of engine === 'postgres' ? pgSizes : sizes) {
      execFileSync(process.execPath, [...process.execArgv, process.argv[1]!, '--one', engine, String(size), out], { stdio: 'inherit' });
      all.push(...(JSON.parse(fs.readFileSync(out, 'utf8')) as Result[]));
    }
  }
  fs.rmSync(out, { force: true });

  const lines = [
    '# Catalogue queries',
    '',
    `${new Date().toISOString()}, ${os.cpus().length} cores, Node ${process.version}; autocannon ${connections} connections, ${seconds} s per target; ${performers} performers.`,
    `Load average at the end: ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}.`,
    '',
    '| engine | target | videos | req/s | p50 ms | p99 ms | non-2xx/errors |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...all.map((r) => `| ${r.engine} | ${r.target} | ${r.size} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.non2xx + r.errors} |`),
    '',
    '| engine | target | p99 growth (smallest → largest size) |',
    '|---|---|---:|',
  ];
  for (const engine of engines) {
    for (const target of [...new Set(all.filter((r) => r.engine === engine).map((r) => r.target))]) {
      const rows = all.filter((r) => r.engine === engine && r.target === target).sort((a, b) => a.size - b.size);
      if (rows.length < 2) continue;
      const growth = Math.max(rows.at(-1)!.p99, 1) / Math.max(rows[0]!.p99, 1);
      lines.push(`| ${engine} | ${target} | ${growth.toFixed(2)}× (${rows[0]!.size} → ${rows.at(-1)!.size}) |`);
    }
  }
  fs.mkdirSync('bench', { recursive: true });
  fs.writeFileSync('bench/queries.json', JSON.stringify(all, null, 2));
  fs.writeFileSync('bench/queries.md', lines.join('\n') + '\n');
  console.log('\n' + lines.join('\n'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
