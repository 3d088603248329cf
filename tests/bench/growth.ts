/**
 * The p99 growth of the video search from the smallest to the largest catalogue, measured so that the figure is
 * about the catalogue, not about the moment: one server process per size (as deployed: one app per process, its
 * own caches), all of them up at once, measured in interleaved rounds (each round in another order of sizes), and
 * the median p99 of the rounds kept per size. Measured one size after another, the same query's p99 at one size
 * moved 2× between runs on this 2-core machine, more than any effect of the catalogue's size.
 */
import type { Engine } from '../../server/db/database.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { prepareBenchDatabase } from './bench-database.js';
import type { Generated } from './generate.js';
import type { LoopResult } from './load-generators.js';

export interface GrowthCell {
  /** Median over the rounds. */
  p99: number;
  rps: number;
  /** Every round's p99, in round order. */
  rounds: number[];
}

export interface GrowthMeasurement {
  /** query name → catalogue size → cell */
  cells: Map<string, Map<number, GrowthCell>>;
  generateMs: Record<number, number>;
}

interface SizedServer {
  size: number;
  generated: Generated;
  server: ServerProcess;
  drop(): Promise<void>;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : Math.round((s[m - 1]! + s[m]!) / 2);
};

/** A database of `size` generated videos (no demo data), served by a process of its own. */
async function startSized(engine: Engine, size: number, performers: number): Promise<SizedServer> {
  const prepared = await prepareBenchDatabase(engine, { videos: size, performers, seedDemo: false });
  await prepared.database.close();
  const server = await startServerProcess(
    {
      NODE_ENV: 'production',
      // Production refuses to start without a mail server; these runs send no mail.
      SMTP_URL: 'smtp://127.0.0.1:9',
      APP_SECRET: 'bench-secret',
      DATA_DIR: prepared.dir,
      DATABASE_URL: prepared.databaseUrl,
      PG_SCHEMA: prepared.pgSchema,
      LOG_LEVEL: 'warn',
      // Nothing to process; an idle worker would only poll.
      JOBS_WORKER: '0',
    },
    { timeoutMs: 120_000 },
  ).catch(async (err) => {
    await prepared.drop();
    throw err;
  });
  return {
    size, generated: prepared.generated, server,
    async drop() {
      await server.stop();
      await prepared.drop();
    },
  };
}

export async function measureGrowth(opts: {
  engine: Engine;
  sizes: number[];
  performers: number;
  rounds: number;
  apiBase: string;
  measureMisses(url: string): Promise<LoopResult>;
  log(line: string): void;
}): Promise<GrowthMeasurement> {
  const { engine, sizes, apiBase } = opts;
  const servers: SizedServer[] = [];
  const generateMs: Record<number, number> = {};
  const runs = new Map<string, Map<number, LoopResult[]>>();
  try {
    for (const size of sizes) {
      const s = await startSized(engine, size, opts.performers);
      servers.push(s);
      generateMs[size] = s.generated.ms;
      opts.log(`${engine}: ${size} videos generated in ${s.generated.ms} ms, served by pid ${s.server.child.pid}`);
    }
    const queriesOf = (g: Generated): Array<[string, string]> => [
      ['newest', `${apiBase}/user/assets/videos/search?limit=12`],
      ['by performer', `${apiBase}/user/assets/videos/search?performerId=${g.bigPerformer.id}&limit=12`],
      ['by tag', `${apiBase}/user/assets/videos/search?tag=${g.tag}&limit=12`],
    ];
    for (let round = 0; round < opts.rounds; round++) {
      // Each round starts at another size, so no size is always measured first or last.
      const order = servers.map((_, i) => servers[(i + round) % servers.length]!);
      for (const s of order) {
        for (const [query, p] of queriesOf(s.generated)) {
          const r = await opts.measureMisses(s.server.url + p);
          const bySize = runs.get(query) ?? new Map<number, LoopResult[]>();
          bySize.set(s.size, [...(bySize.get(s.size) ?? []), r]);
          runs.set(query, bySize);
          opts.log(`${engine} round ${round + 1}, ${s.size} videos, ${query}: p99 ${r.p99} ms, ${r.rps} req/s`);
        }
      }
    }
  } finally {
    for (const s of servers) await s.drop().catch(() => {});
  }
  const cells = new Map<string, Map<number, GrowthCell>>();
  for (const [query, bySize] of runs) {
    const m = new Map<number, GrowthCell>();
    // Rounds are kept in measurement order per size.
    for (const [size, rs] of bySize) m.set(size, { p99: median(rs.map((r) => r.p99)), rps: median(rs.map((r) => r.rps)), rounds: rs.map((r) => r.p99) });
    cells.set(query, m);
  }
  return { cells, generateMs };
}
