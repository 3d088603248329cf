/**
 * Socket benchmark (part of `npm run bench`, or alone: `tsx tests/bench/sockets.ts`).
 *
 * One server process (this one) holds N authenticated socket.io connections (BENCH_SOCKETS, default 2000),
 * all opened by a child process and all watching one object; the server's memory is measured after a full GC
 * before and after, giving the memory per connection. Then one event is emitted to the object's room R times
 * (BENCH_SOCKET_ROUNDS, default 20) through `ctx.realtime.emitToObject`, exactly as a new comment is, and the
 * child records when each connection received it: fan-out latency p50 / p99 / max over all deliveries, and the
 * time until the last connection had it per round. Embedded SQLite, no Redis (one instance).
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { io, type Socket } from 'socket.io-client';
import { loadConfig } from '../../server/config.js';
import { openDatabase } from '../../server/db/database.js';
import { migrateToLatest } from '../../server/db/migrate.js';
import { buildApp } from '../../server/app.js';
import { newId, nowIso } from '../../server/db/ids.js';
import { hashToken, newSecretToken } from '../../server/auth/tokens.js';
import { userRow } from '../../server/seed/factories.js';
import type { NewContent } from '../../common/realtime.js';

export interface SocketBenchResult {
  connections: number;
  rounds: number;
  connectSeconds: number;
  /** Server heap (after GC) and RSS growth per held connection, in KiB. */
  heapPerConnectionKiB: number;
  rssPerConnectionKiB: number;
  serverHeapMiB: { before: number; after: number };
  serverRssMiB: { before: number; after: number };
  /** Emit → receipt, over every delivery of every round, ms. */
  latencyMs: { p50: number; p99: number; max: number };
  /** Emit → the last connection's receipt, per round, ms. */
  lastDeliveryMs: { p50: number; max: number };
  lost: number;
}

const now = () => performance.timeOrigin + performance.now();
const mib = (b: number) => Math.round((b / 1024 / 1024) * 10) / 10;
const round1 = (n: number) => Math.round(n * 10) / 10;

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function gcFunction(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

type ToChild = { type: 'connect'; url: string; tokens: string[]; objectId: string } | { type: 'round'; round: number } | { type: 'close' };
type FromChild =
  | { type: 'ready'; connected: number; failed: number; seconds: number }
  | { type: 'round'; round: number; latencies: number[] }
  | { type: 'closed' };

/** The child: opens the connections, watches the object, reports receipt times. */
async function childMain(): Promise<void> {
  const sockets: Socket[] = [];
  const received = new Map<number, number[]>();
  let expected = 0;
  const send = (m: FromChild) => process.send!(m);
  process.on('message', async (m: ToChild) => {
    if (m.type === 'connect') {
      expected = m.tokens.length;
      const began = now();
      let failed = 0;
      for (let i = 0; i < m.tokens.length; i += 100) {
        await Promise.all(
          m.tokens.slice(i, i + 100).map(
            (token) =>
              new Promise<void>((resolve) => {
                const s = io(m.url, { transports: ['websocket'], query: { token }, reconnection: false, forceNew: true, timeout: 20_000 });
                s.on('content/new', (p: { round: number; sentAt: number }) => {
                  const list = received.get(p.round) ?? [];
                  list.push(now() - p.sentAt);
                  received.set(p.round, list);
                  if (list.length === expected) send({ type: 'round', round: p.round, latencies: list });
                });
                s.once('connect', () => {
                  s.emit('object/watch', { objectType: 'video', objectId: m.objectId }, () => resolve());
                });
                s.once('connect_error', () => {
                  failed += 1;
                  resolve();
                });
                sockets.push(s);
              }),
          ),
        );
      }
      expected = sockets.length - failed;
      send({ type: 'ready', connected: expected, failed, seconds: (now() - began) / 1000 });
    } else if (m.type === 'round') {
      // Rounds that never complete are reported by the parent's timeout.
    } else if (m.type === 'close') {
      for (const s of sockets) s.close();
      send({ type: 'closed' });
      setTimeout(() => process.exit(0), 50);
    }
  });
}

function nextMessage<T extends FromChild['type']>(child: ChildProcess, type: T, timeoutMs: number, filter: (m: Extract<FromChild, { type: T }>) => boolean = () => true) {
  return new Promise<Extract<FromChild, { type: T }>>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error(`socket bench: no "${type}" from the client process within ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (m: FromChild) => {
      if (m.type !== type || !filter(m as Extract<FromChild, { type: T }>)) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(m as Extract<FromChild, { type: T }>);
    };
    child.on('message', onMessage);
  });
}

export async function runSocketBench(opts: { connections?: number; rounds?: number } = {}): Promise<SocketBenchResult> {
  const connections = opts.connections ?? Number(process.env.BENCH_SOCKETS ?? 2000);
  const rounds = opts.rounds ?? Number(process.env.BENCH_SOCKET_ROUNDS ?? 20);
  const gc = gcFunction();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-bench-sockets-'));
  const config = loadConfig(
    { ...process.env, NODE_ENV: 'production', SMTP_URL: 'smtp://127.0.0.1:9', APP_SECRET: 'bench-secret', DATA_DIR: dir, LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '', JOBS_WORKER: '0' },
    { port: 0, host: '127.0.0.1' },
  );
  const database = await openDatabase({ sqliteFile: config.sqliteFile });
  await migrateToLatest(database.db);
  // One user per connection, each with a live session (authenticated sockets join their user room too).
  const tokens: string[] = [];
  const stamp = nowIso();
  const expires = new Date(Date.now() + 86_400_000).toISOString();
  for (let i = 0; i < connections; i += 500) {
    const users = [];
    const sessions = [];
    for (let k = i; k < Math.min(connections, i + 500); k++) {
      const id = newId();
      const token = newSecretToken();
      tokens.push(token);
      users.push(userRow({ id, username: `bench${k}`, name: `Bench ${k}`, createdAt: stamp }));
      sessions.push({ id: newId(), userId: id, tokenHash: hashToken(token), expiresAt: expires, createdAt: stamp, lastSeenAt: stamp });
    }
    await database.db.insertInto('users').values(users).execute();
    await database.db.insertInto('sessions').values(sessions).execute();
  }
  const built = await buildApp({ config, database, logger: pino({ level: 'warn' }), web: false });
  await built.app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
  const objectId = newId();

  const child = fork(fileURLToPath(import.meta.url), [], { env: { ...process.env, SOCKET_BENCH_CHILD: '1' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    gc();
    const before = process.memoryUsage();
    child.send({ type: 'connect', url, tokens, objectId } satisfies ToChild);
    const ready = await nextMessage(child, 'ready', 180_000);
    const connectSeconds = ready.seconds;
    if (ready.failed) console.warn(`socket bench: ${ready.failed} connections failed`);
    await new Promise((r) => setTimeout(r, 500));
    gc();
    const after = process.memoryUsage();
    const held = built.realtime.io.engine.clientsCount;

    const all: number[] = [];
    const last: number[] = [];
    let lost = 0;
    for (let r = 1; r <= rounds; r++) {
      const done = nextMessage(child, 'round', 15_000, (m) => m.round === r).catch(() => null);
      // The bench's own fields ride on a real event's payload (the client reads round and sentAt back).
      const payload = { objectType: 'video', objectId, performerId: 'bench', publishedAt: '', round: r, sentAt: now() } as unknown as NewContent;
      built.ctx.realtime.emitToObject('video', objectId, 'content/new', payload);
      const result = await done;
      if (!result) {
        lost += 1;
        continue;
      }
      all.push(...result.latencies);
      last.push(Math.max(...result.latencies));
      await new Promise((res) => setTimeout(res, 50));
    }
    all.sort((a, b) => a - b);
    last.sort((a, b) => a - b);
    child.send({ type: 'close' } satisfies ToChild);
    await nextMessage(child, 'closed', 30_000).catch(() => null);
    return {
      connections: held,
      rounds,
      connectSeconds: round1(connectSeconds),
      heapPerConnectionKiB: round1((after.heapUsed - before.heapUsed) / 1024 / held),
      rssPerConnectionKiB: round1((after.rss - before.rss) / 1024 / held),
      serverHeapMiB: { before: mib(before.heapUsed), after: mib(after.heapUsed) },
      serverRssMiB: { before: mib(before.rss), after: mib(after.rss) },
      latencyMs: { p50: round1(percentile(all, 50)), p99: round1(percentile(all, 99)), max: round1(all.at(-1) ?? 0) },
      lastDeliveryMs: { p50: round1(percentile(last, 50)), max: round1(last.at(-1) ?? 0) },
      lost,
    };
  } finally {
    if (child.exitCode === null) child.kill();
    await built.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The report section. */
export function socketReportMarkdown(r: SocketBenchResult): string {
  return [
    '## Sockets',
    '',
    `${r.connections} authenticated socket.io connections (websocket) held by one server process, all watching one object; opened in ${r.connectSeconds} s by a separate client process.`,
    `One event emitted to the object's room ${r.rounds} times (\`ctx.realtime.emitToObject\`, as a new comment is); latency is emit → receipt in the client process.`,
    'Heap is measured after a full GC and is the reliable per-connection figure; RSS growth is noisy when this runs after the HTTP benchmark (memory the previous run returns to the system can make it negative).',
    'The client process decodes every copy on one thread, so the tail of the latency includes its own queueing.',
    '',
    '| connections | heap / connection | RSS / connection | server heap before → after | server RSS before → after | fan-out p50 | fan-out p99 | fan-out max | last delivery p50 | last delivery max | lost rounds |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    `| ${r.connections} | ${r.heapPerConnectionKiB} KiB | ${r.rssPerConnectionKiB} KiB | ${r.serverHeapMiB.before} → ${r.serverHeapMiB.after} MiB | ${r.serverRssMiB.before} → ${r.serverRssMiB.after} MiB | ${r.latencyMs.p50} ms | ${r.latencyMs.p99} ms | ${r.latencyMs.max} ms | ${r.lastDeliveryMs.p50} ms | ${r.lastDeliveryMs.max} ms | ${r.lost} |`,
    '',
  ].join('\n');
}

if (process.env.SOCKET_BENCH_CHILD === '1') {
  void childMain();
} else if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runSocketBench()
    .then((r) => {
      console.log(socketReportMarkdown(r));
      process.exit(0);
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
