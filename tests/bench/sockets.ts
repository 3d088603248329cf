/**
 * Socket benchmark (part of `npm run bench`, or alone: `tsx tests/bench/sockets.ts`).
 *
 * One server process (this one) holds N authenticated socket.io connections (BENCH_SOCKETS, default 10,000), each
 * signed in as its own user (so each joins its `user:<id>` room) and all watching one object. They are opened by
 * several client processes (BENCH_SOCKET_CLIENTS, default one per 2,500 connections: one process decoding every copy
 * of an event on one thread would be the bottleneck), raw websockets (`transports: ['websocket']`, no polling
 * upgrade), each process from its own loopback source address (127.0.0.2, .3, …) so the ephemeral ports of one
 * address (about 28,000) never run out. The server's memory is measured after a full GC before and after, giving the
 * memory per connection. Then one event is emitted to the object's room R times (BENCH_SOCKET_ROUNDS, default 20)
 * through `ctx.realtime.emitToObject`, exactly as a new comment is: the time the emit call takes in the server, and
 * in the clients emit → receipt over all deliveries (p50 / p99 / max) and emit → the last connection's receipt per
 * round. Embedded SQLite, no Redis (one instance). The server process needs a file descriptor per connection:
 * `ulimit -n` must be above N (the report says what it was).
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
import { makePerformer, makeVideo, userRow } from '../../server/seed/factories.js';
import type { NewContent } from '../../common/realtime.js';

export interface SocketBenchResult {
  connections: number;
  /** Asked for, and `user:<id>` rooms the server holds (one per signed-in connection). */
  requested: number;
  userRooms: number;
  clientProcesses: number;
  /** This process's open-file limit (`ulimit -n`), when it can be read. */
  fileLimit: number | null;
  /** The server's synchronous `emitToObject` call (encoding once, writing to every socket), per round, ms. */
  emitCallMs: { p50: number; max: number };
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

type ToChild = { type: 'connect'; url: string; tokens: string[]; objectId: string; localAddress?: string } | { type: 'round'; round: number } | { type: 'close' };
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
                const s = io(m.url, { transports: ['websocket'], query: { token }, reconnection: false, forceNew: true, timeout: 60_000, ...(m.localAddress ? { localAddress: m.localAddress } : {}) });
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

/** The soft limit of open files of this process (Linux: /proc/self/limits), or null elsewhere. */
function openFileLimit(): number | null {
  try {
    const line = fs.readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft && /^\d+$/.test(soft) ? Number(soft) : null;
  } catch {
    return null;
  }
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

export async function runSocketBench(opts: { connections?: number; rounds?: number; clients?: number } = {}): Promise<SocketBenchResult> {
  const requested = opts.connections ?? Number(process.env.BENCH_SOCKETS ?? 10_000);
  const rounds = opts.rounds ?? Number(process.env.BENCH_SOCKET_ROUNDS ?? 20);
  const clientCount = Math.max(1, opts.clients ?? Number(process.env.BENCH_SOCKET_CLIENTS ?? Math.ceil(requested / 2500)));
  const fileLimit = openFileLimit();
  // Each connection is a file descriptor in this process; keep some for the database, logs and listeners.
  const connections = fileLimit !== null && fileLimit - 200 < requested ? Math.max(0, fileLimit - 200) : requested;
  if (connections < requested) console.warn(`socket bench: ulimit -n is ${fileLimit}, so ${connections} connections instead of ${requested} (raise it: ulimit -n ${requested + 1000})`);
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
  // A real free video: watching a room is checked against the object (server/comments/discussion.ts), so an unknown
  // id would be refused and no connection would hear anything.
  const { user: performer } = await makePerformer(database.db, { username: 'benchperformer' });
  const objectId = (await makeVideo({ db: database.db, storage: built.ctx.storage }, performer.id, { title: 'Bench video', access: 'free', withFiles: false })).id;

  // Each client process gets a share of the users, and a loopback source address of its own.
  const children: ChildProcess[] = [];
  const shares = Array.from({ length: clientCount }, (_, i) => tokens.filter((_, k) => k % clientCount === i)).filter((share) => share.length > 0);
  for (let i = 0; i < shares.length; i++) {
    children.push(fork(fileURLToPath(import.meta.url), [], { env: { ...process.env, SOCKET_BENCH_CHILD: '1' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  }
  try {
    gc();
    const before = process.memoryUsage();
    const began = now();
    const readies = children.map((child) => nextMessage(child, 'ready', 600_000));
    children.forEach((child, i) => child.send({ type: 'connect', url, tokens: shares[i]!, objectId, localAddress: `127.0.0.${2 + (i % 250)}` } satisfies ToChild));
    const ready = await Promise.all(readies);
    const connectSeconds = (now() - began) / 1000;
    const failed = ready.reduce((n, r) => n + r.failed, 0);
    if (failed) console.warn(`socket bench: ${failed} connections failed`);
    await new Promise((r) => setTimeout(r, 1000));
    gc();
    const after = process.memoryUsage();
    const held = built.realtime.io.engine.clientsCount;
    const userRooms = [...built.realtime.io.sockets.adapter.rooms.keys()].filter((room) => room.startsWith('user:')).length;

    const all: number[] = [];
    const last: number[] = [];
    const emitCalls: number[] = [];
    let lost = 0;
    for (let r = 1; r <= rounds; r++) {
      const done = Promise.all(children.map((child) => nextMessage(child, 'round', 30_000, (m) => m.round === r))).catch(() => null);
      // The bench's own fields ride on a real event's payload (the client reads round and sentAt back).
      const payload = { objectType: 'video', objectId, performerId: 'bench', publishedAt: '', round: r, sentAt: now() } as unknown as NewContent;
      const callStarted = performance.now();
      built.ctx.realtime.emitToObject('video', objectId, 'content/new', payload);
      emitCalls.push(performance.now() - callStarted);
      const results = await done;
      if (!results) {
        lost += 1;
        continue;
      }
      const latencies = results.flatMap((m) => m.latencies);
      all.push(...latencies);
      last.push(latencies.reduce((a, b) => Math.max(a, b), 0));
      await new Promise((res) => setTimeout(res, 100));
    }
    all.sort((a, b) => a - b);
    last.sort((a, b) => a - b);
    emitCalls.sort((a, b) => a - b);
    await Promise.all(
      children.map((child) => {
        const closed = nextMessage(child, 'closed', 60_000).catch(() => null);
        child.send({ type: 'close' } satisfies ToChild);
        return closed;
      }),
    );
    return {
      connections: held,
      requested,
      userRooms,
      clientProcesses: children.length,
      fileLimit,
      rounds,
      connectSeconds: round1(connectSeconds),
      heapPerConnectionKiB: round1((after.heapUsed - before.heapUsed) / 1024 / held),
      rssPerConnectionKiB: round1((after.rss - before.rss) / 1024 / held),
      serverHeapMiB: { before: mib(before.heapUsed), after: mib(after.heapUsed) },
      serverRssMiB: { before: mib(before.rss), after: mib(after.rss) },
      emitCallMs: { p50: round1(percentile(emitCalls, 50)), max: round1(emitCalls.at(-1) ?? 0) },
      latencyMs: { p50: round1(percentile(all, 50)), p99: round1(percentile(all, 99)), max: round1(all.at(-1) ?? 0) },
      lastDeliveryMs: { p50: round1(percentile(last, 50)), max: round1(last.at(-1) ?? 0) },
      lost,
    };
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill();
    await built.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The report section. */
export function socketReportMarkdown(r: SocketBenchResult): string {
  return [
    '## Sockets',
    '',
    `${r.connections} of ${r.requested} authenticated socket.io connections (raw websockets) held by one server process, each signed in as its own user (${r.userRooms} \`user:<id>\` rooms) and all watching one object; opened in ${r.connectSeconds} s by ${r.clientProcesses} client processes, each from its own loopback address. Open-file limit of the server process: ${r.fileLimit ?? 'unknown'}.`,
    `One event emitted to the object's room ${r.rounds} times (\`ctx.realtime.emitToObject\`, as a new comment is): the server's emit call takes ${r.emitCallMs.p50} ms (max ${r.emitCallMs.max} ms); latency is emit → receipt in the client processes.`,
    'Heap is measured after a full GC and is the reliable per-connection figure; RSS growth is noisy when this runs after the HTTP benchmark (memory the previous run returns to the system can make it negative).',
    'Each client process decodes its share of the copies on one thread, so the tail of the latency includes its own queueing; the client processes share the machine\'s cores with the server.',
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
