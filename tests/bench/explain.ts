/**
 * `tsx tests/bench/explain.ts`: generates a catalogue (tests/bench/generate.ts) in a fresh SQLite file or PostgreSQL
 * schema (EXPLAIN_ENGINE=sqlite|postgres, EXPLAIN_VIDEOS, EXPLAIN_PERFORMERS) and prints, for each video-list query
 * the bench measures (page and count), its plan (SQLite EXPLAIN QUERY PLAN, PostgreSQL EXPLAIN ANALYZE) and its
 * median time over EXPLAIN_RUNS runs. EXPLAIN_KEEP=1 keeps the database (path printed) for poking at by hand.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CompiledQuery, sql, type Compilable } from 'kysely';
import { openDatabase, type Engine } from '../../server/db/database.js';
import { migrateToLatest } from '../../server/db/migrate.js';
import { everyone } from '../../server/catalogue/catalogue.repository.js';
import { publicVideoQueries, type VideoFilters } from '../../server/videos/videos.repository.js';
import { generateLargeCatalogue } from './generate.js';
import { createPgSchema } from '../helpers/server-process.js';

const engine = (process.env.EXPLAIN_ENGINE ?? 'sqlite') as Engine;
const videos = Number(process.env.EXPLAIN_VIDEOS ?? 100_000);
const performers = Number(process.env.EXPLAIN_PERFORMERS ?? 10_000);
const runs = Number(process.env.EXPLAIN_RUNS ?? 20);

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-explain-'));
  const url = engine === 'postgres' ? process.env.DATABASE_URL : undefined;
  if (engine === 'postgres' && !url) throw new Error('DATABASE_URL is required for postgres');
  const pgSchema = url ? await createPgSchema(url, 'explain') : undefined;
  const schema = pgSchema?.schema;
  const database = await openDatabase({ databaseUrl: url, sqliteFile: path.join(dir, 'site.db'), pgSchema: schema });
  try {
    await migrateToLatest(database.db, { schema });
    const g = await generateLargeCatalogue(database.db, { performers, videos, bigPerformerVideos: 1000 });
    console.log(`${engine}: ${g.videos} videos, ${g.performers} performers generated in ${g.ms} ms`);
    await database.optimize();
    if (url) await sql`ANALYZE`.execute(database.db);
    const db = database.db;
    // No sort: newest, or best match first with a keyword (the API's default).
    const base: VideoFilters = { limit: 12, offset: 0 };
    const cases: Array<[string, Partial<VideoFilters>]> = [
      ['newest', {}],
      ['by tag', { tag: g.tag }],
      ['keyword (common), best match', { q: g.tag }],
      ['keyword (common), newest', { q: g.tag, sort: 'newest' }],
      ['keyword (rare), best match', { q: `clip ${Math.floor(g.videos / 2)}x` }],
      ['by performer (1,000 videos)', { performerId: g.bigPerformer.id }],
      ['by performer (typical)', { performerId: g.samplePerformer.id }],
      ['popular', { sort: 'popular' }],
    ];
    const time = async (q: Compilable) => {
      const c = q.compile();
      const ms: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        await db.executeQuery(c);
        ms.push(performance.now() - t0);
      }
      ms.sort((a, b) => a - b);
      return ms[Math.floor(ms.length / 2)]!.toFixed(2);
    };
    const plan = async (q: Compilable) => {
      const c = q.compile();
      const prefix = engine === 'sqlite' ? 'EXPLAIN QUERY PLAN ' : 'EXPLAIN (ANALYZE, BUFFERS) ';
      const res = await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(prefix + c.sql, [...c.parameters]));
      return res.rows.map((r) => `    ${String(engine === 'sqlite' ? r.detail : Object.values(r)[0])}`).join('\n');
    };
    for (const [name, f] of cases) {
      const q = publicVideoQueries(db, { ...base, ...f }, everyone());
      // Keyword lists also have the bounded walk the API tries first (server/catalogue/search.repository.ts).
      const walk = 'walk' in q && q.walk ? [['walk', q.walk as unknown as Compilable] as const] : [];
      for (const [kind, query] of [['page', q.page], ['count', q.count], ...walk] as const) {
        console.log(`\n## ${name} — ${kind}: median ${await time(query)} ms\n${await plan(query)}`);
        if (process.env.EXPLAIN_SQL) console.log(query.compile().sql);
      }
    }
  } finally {
    await database.close();
    if (process.env.EXPLAIN_KEEP) console.log(`kept ${url ? `schema ${schema}` : path.join(dir, 'site.db')}`);
    else {
      await pgSchema?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
