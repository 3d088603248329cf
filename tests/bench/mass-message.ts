/**
 * Mass message benchmark (part of `npm run bench`, or alone: `npx tsx tests/bench/mass-message.ts`, or
 * `BENCH_PARTS=mass npm run bench`).
 *
 * Per engine (SQLite, and PostgreSQL in a fresh schema when DATABASE_URL is set): one performer with N live
 * subscribers (BENCH_MASS_RECIPIENTS, default 10,000), written with bulk INSERTs of the factories' rows, not sign-ups.
 * The performer sends one mass message through the real HTTP API (`POST /api/performer/mass-messages`) and the app's
 * own job worker delivers it, batch after batch, until the row is `done`. Measured: the time from the request to
 * `done`, recipients per second, and the runs it took. The pause between runs is 0 here (MASS_MESSAGE_PAUSE_MS=0) so
 * the figure is the delivery itself; the time at the production pacing is that plus one pause per run after the
 * first, stated next to it (BENCH_MASS_PACED=1 measures it for real, about three and a half minutes per engine).
 * The batch is the production one (config.massMessages.batch, MASS_MESSAGE_BATCH).
 *
 * Then the proof of "once each": copies counted, distinct recipients, the recipients' `message` notifications and
 * conversations, and the studio's delivered/total, all equal to N. Some recipients (BENCH_MASS_SOCKETS, default 500)
 * hold a socket open the whole time and count the `message/created` events of this message: each must hear it once.
 * Finally the whole walk is run again by two chains of the job at once (as a retried or doubly enqueued job would)
 * and must write no row and emit nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { io, type Socket } from 'socket.io-client';
import net from 'node:net';
import { loadConfig } from '../../server/config.js';
import { openDatabase, type Engine } from '../../server/db/database.js';
import { migrateToLatest } from '../../server/db/migrate.js';
import { buildApp } from '../../server/app.js';
import { newId, nowIso } from '../../server/db/ids.js';
import { hashToken, newSecretToken } from '../../server/auth/tokens.js';
import { makePerformer, subscriptionRow, userRow } from '../../server/seed/factories.js';
import { JOB_MASS_MESSAGE } from '../../server/messages/mass.service.js';
import { createPgSchema } from '../helpers/server-process.js';

export interface MassBenchResult {
  engine: Engine;
  recipients: number;
  batch: number;
  /** The production pause between runs, ms (what the paced time is stated for). */
  productionPauseMs: number;
  /** Writing the subscribers and their sessions (bulk INSERTs), s. */
  setupSeconds: number;
  /** The POST itself (counting the audience, storing the message, enqueueing), ms. */
  requestMs: number;
  /** From the POST to the row marked done, pause 0, s. */
  deliverySeconds: number;
  recipientsPerSecond: number;
  /** Runs of the job (one per batch, the last one finding fewer than a batch). */
  runs: number;
  /** deliverySeconds plus one production pause per run after the first. */
  pacedSeconds: number;
  /** Measured with the production pause when BENCH_MASS_PACED=1. */
  pacedMeasuredSeconds: number | null;
  /** The mails the paced message sent (BENCH_MASS_PACED=1). */
  pacedMailed: number | null;
  copies: number;
  distinctRecipients: number;
  notifications: number;
  conversations: number;
  studio: { total: number; delivered: number; status: string };
  /** copies == distinct == notifications == conversations == delivered == total == recipients. */
  exactlyOnce: boolean;
  live: { sockets: number; heardOnce: number; heardTwice: number; heardNever: number };
  /**
   * Each copy's notification mails its recipient (a `notification.email` job per copy, on the same worker): the
   * mails a local SMTP sink accepted, the recipients mailed more than once, and the time from the request until
   * every mail job finished.
   */
  mail: { sent: number; mailedTwice: number; allSentSeconds: number };
  repeat: { chains: number; seconds: number; runs: number; rowsWritten: number; eventsEmitted: number; mailsSent: number };
  failedJobs: number;
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const round2 = (n: number) => Math.round(n * 100) / 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | null | undefined | false>, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got) return got;
    if (Date.now() > deadline) throw new Error(`mass bench: ${what} did not happen within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

export async function runMassMessageBench(engine: Engine, opts: { recipients?: number; sockets?: number; paced?: boolean } = {}): Promise<MassBenchResult> {
  const recipients = opts.recipients ?? Number(process.env.BENCH_MASS_RECIPIENTS ?? 10_000);
  const socketCount = Math.min(recipients, opts.sockets ?? Number(process.env.BENCH_MASS_SOCKETS ?? 500));
  const paced = opts.paced ?? process.env.BENCH_MASS_PACED === '1';
  // The defaults of server/config.ts: what production runs unless its operator changed them.
  const production = loadConfig({}).massMessages;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-bench-mass-'));
  const databaseUrl = engine === 'postgres' ? process.env.DATABASE_URL : undefined;
  if (engine === 'postgres' && !databaseUrl) throw new Error('mass bench: PostgreSQL needs DATABASE_URL');
  const pg = databaseUrl ? await createPgSchema(databaseUrl, 'benchmass') : undefined;
  // A local SMTP sink that takes every mail and counts it per recipient.
  const mailed = new Map<string, number>();
  const smtp = await smtpSink((to) => mailed.set(to, (mailed.get(to) ?? 0) + 1));
  const smtpPort = smtp.port;
  const mailsSent = () => [...mailed.values()].reduce((a, b) => a + b, 0);
  const config = loadConfig(
    {
      ...process.env, NODE_ENV: 'production', SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, APP_SECRET: 'bench-secret', DATA_DIR: dir, LOG_LEVEL: 'warn',
      DATABASE_URL: databaseUrl ?? '', PG_SCHEMA: pg?.schema ?? '', REDIS_URL: '', JOBS_WORKER: '1',
      // The production batch, no pause: the delivery itself. Generous limits: the bench is one performer sending once.
      MASS_MESSAGE_BATCH: String(production.batch), MASS_MESSAGE_PAUSE_MS: '0',
    },
    { port: 0, host: '127.0.0.1', databaseUrl },
  );
  const database = await openDatabase({ databaseUrl, sqliteFile: config.sqliteFile, pgSchema: pg?.schema });
  await migrateToLatest(database.db, { schema: pg?.schema });
  const db = database.db;

  // The performer (through the factory) and N subscribers with live subscriptions, 500 rows per INSERT.
  const setupStarted = performance.now();
  const { user: performer } = await makePerformer(db, { username: 'massbenchperformer', name: 'Mass Bench' });
  const stamp = nowIso();
  const expires = new Date(Date.now() + 86_400_000).toISOString();
  const performerToken = newSecretToken();
  const fanIds: string[] = [];
  const socketTokens: string[] = [];
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('sessions').values({ id: newId(), userId: performer.id, tokenHash: hashToken(performerToken), expiresAt: expires, createdAt: stamp, lastSeenAt: stamp }).execute();
    for (let i = 0; i < recipients; i += 500) {
      const users = [];
      const sessions = [];
      for (let k = i; k < Math.min(recipients, i + 500); k++) {
        const id = newId();
        fanIds.push(id);
        users.push(userRow({ id, username: `massfan${k}`, name: `Mass Fan ${k}`, createdAt: stamp }));
        // Every (N / sockets)-th subscriber holds a socket, spread over the whole walk.
        if (k % Math.max(1, Math.floor(recipients / Math.max(1, socketCount))) === 0 && socketTokens.length < socketCount) {
          const token = newSecretToken();
          socketTokens.push(token);
          sessions.push({ id: newId(), userId: id, tokenHash: hashToken(token), expiresAt: expires, createdAt: stamp, lastSeenAt: stamp });
        }
      }
      await trx.insertInto('users').values(users).execute();
      await trx.insertInto('subscriptions').values(users.map((u) => subscriptionRow({ userId: u.id, performerId: performer.id }))).execute();
      if (sessions.length) await trx.insertInto('sessions').values(sessions).execute();
    }
  });
  await database.optimize();
  const setupSeconds = (performance.now() - setupStarted) / 1000;

  const built = await buildApp({ config, database, logger: pino({ level: 'warn' }), web: false });
  await built.app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
  const api = `${url}${config.apiBase}`;
  const headers = { authorization: `Bearer ${performerToken}`, 'content-type': 'application/json' };
  const TEXT = 'Mass bench: one message to every subscriber';

  // Live recipients: each counts the copies of this message it hears.
  const heard: number[] = new Array<number>(socketTokens.length).fill(0);
  const sockets: Socket[] = [];
  for (let i = 0; i < socketTokens.length; i += 100) {
    await Promise.all(
      socketTokens.slice(i, i + 100).map(
        (token, k) =>
          new Promise<void>((resolve, reject) => {
            const s = io(url, { path: config.socketPath, transports: ['websocket'], query: { token }, reconnection: false, forceNew: true, timeout: 30_000 });
            s.on('message/created', (p: { message: { text: string } }) => {
              if (p.message.text === TEXT) heard[i + k]! += 1;
            });
            s.once('connect', () => resolve());
            s.once('connect_error', (err) => reject(err));
            sockets.push(s);
          }),
      ),
    );
  }

  const subject = (id: string) => `mass-message:${id}`;
  const jobsOf = (id: string) => db.selectFrom('jobs').select(['status']).where('subject', '=', subject(id)).execute();
  const settled = async (id: string) => {
    const jobs = await jobsOf(id);
    return jobs.length > 0 && jobs.every((j) => j.status === 'done' || j.status === 'failed') ? jobs : null;
  };
  const isDone = async (id: string) => (await db.selectFrom('massMessages').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status === 'done';
  const timeout = Math.max(120_000, recipients * 20);

  try {
    // One mass message through the HTTP API; the worker in this process delivers it.
    const began = performance.now();
    const res = await fetch(`${api}/performer/mass-messages`, { method: 'POST', headers, body: JSON.stringify({ text: TEXT, audience: 'subscribers' }) });
    const requestMs = performance.now() - began;
    const sent = (await res.json()) as { _id: string; total: number };
    if (res.status !== 201) throw new Error(`mass bench: POST answered ${res.status} ${JSON.stringify(sent)}`);
    await until('the delivery', timeout, () => isDone(sent._id), 20);
    const deliverySeconds = (performance.now() - began) / 1000;
    const jobs = await until('the last run to be marked done', 30_000, () => settled(sent._id));
    const runs = jobs.length;
    const mailJobsLeft = async () =>
      Number((await db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('type', '=', 'notification.email').where('status', 'in', ['queued', 'running']).executeTakeFirstOrThrow()).n);
    await until('every mail job', timeout, async () => (await mailJobsLeft()) === 0, 100);
    const allSentSeconds = (performance.now() - began) / 1000;
    const mailsAfterFirst = mailsSent();
    // Let the last events reach the sockets.
    await sleep(500);

    const count = async () => {
      const copies = await db.selectFrom('messages').select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.count<number>('recipientId').distinct().as('distinct')]).where('massMessageId', '=', sent._id).executeTakeFirstOrThrow();
      const notifications = await db.selectFrom('notifications').select((eb) => eb.fn.countAll<number>().as('n')).where('type', '=', 'message').executeTakeFirstOrThrow();
      const conversations = await db.selectFrom('conversations').select((eb) => eb.fn.countAll<number>().as('n')).where('performerId', '=', performer.id).executeTakeFirstOrThrow();
      return { copies: Number(copies.n), distinct: Number(copies.distinct), notifications: Number(notifications.n), conversations: Number(conversations.n) };
    };
    const first = await count();
    const studio = ((await (await fetch(`${api}/performer/mass-messages`, { headers })).json()) as { items: Array<{ _id: string; total: number; delivered: number; status: string }> }).items.find((m) => m._id === sent._id)!;
    const heardAfterFirst = heard.reduce((a, b) => a + b, 0);
    const live = { sockets: sockets.filter((s) => s.connected).length, heardOnce: heard.filter((n) => n === 1).length, heardTwice: heard.filter((n) => n > 1).length, heardNever: heard.filter((n) => n === 0).length };

    // The whole walk again, by two chains of the job at once: nothing may be written or emitted twice.
    await db.updateTable('massMessages').set({ status: 'sending', cursorUserId: '', finishedAt: null }).where('id', '=', sent._id).execute();
    const runsBefore = runs;
    const repeatStarted = performance.now();
    for (let chain = 0; chain < 2; chain++) await built.ctx.jobs.enqueue(db, JOB_MASS_MESSAGE, { massMessageId: sent._id }, { subject: subject(sent._id) });
    await until('the repeated walk', timeout, () => isDone(sent._id), 20);
    const repeatJobs = await until('the repeated runs to finish', 30_000, () => settled(sent._id));
    const repeatSeconds = (performance.now() - repeatStarted) / 1000;
    await sleep(500);
    await until('every mail job of the repeat', timeout, async () => (await mailJobsLeft()) === 0, 100);
    const second = await count();
    const failedJobs = repeatJobs.filter((j) => j.status === 'failed').length;
    const mailsAfterRepeat = mailsSent();
    const mailedTwice = [...mailed.values()].filter((n) => n > 1).length;

    let pacedMeasuredSeconds: number | null = null;
    let pacedMailed: number | null = null;
    if (paced) {
      // A second message at the production pacing, to the same audience (its copies land in the same conversations),
      // measured last so the counts above are of the first one. The job reads the pacing object it was registered
      // with at every run, so setting the pause here is what starting the app with the default would do.
      config.massMessages.pauseMs = production.pauseMs;
      // Everyone read the first one, so this one is mailed to each of them again, as a first message is (an unread,
      // recently mailed message in a conversation would hold the next mail back).
      await db.updateTable('notifications').set({ readAt: nowIso() }).where('readAt', 'is', null).execute();
      await db.updateTable('messages').set({ readAt: nowIso() }).where('readAt', 'is', null).execute();
      const pacedStarted = performance.now();
      const again = await fetch(`${api}/performer/mass-messages`, { method: 'POST', headers, body: JSON.stringify({ text: `${TEXT} (paced)`, audience: 'subscribers' }) });
      const pacedId = ((await again.json()) as { _id: string })._id;
      await until('the paced delivery', timeout + (recipients / production.batch + 1) * production.pauseMs * 2, () => isDone(pacedId), 50);
      await until('every mail job of the paced message', timeout, async () => (await mailJobsLeft()) === 0, 100);
      pacedMeasuredSeconds = round1((performance.now() - pacedStarted) / 1000);
      pacedMailed = mailsSent() - mailsAfterRepeat;
    }

    const exactlyOnce =
      [first.copies, first.distinct, first.notifications, first.conversations, studio.delivered, studio.total].every((n) => n === recipients) &&
      second.copies === first.copies && second.notifications === first.notifications && failedJobs === 0 &&
      mailsAfterFirst === recipients && mailsAfterRepeat === mailsAfterFirst && mailedTwice === 0;
    return {
      engine, recipients, batch: config.massMessages.batch, productionPauseMs: production.pauseMs, setupSeconds: round1(setupSeconds), requestMs: round1(requestMs),
      deliverySeconds: round2(deliverySeconds), recipientsPerSecond: Math.round(recipients / deliverySeconds), runs,
      pacedSeconds: round1(deliverySeconds + (runs - 1) * (production.pauseMs / 1000)), pacedMeasuredSeconds, pacedMailed,
      copies: first.copies, distinctRecipients: first.distinct, notifications: first.notifications, conversations: first.conversations,
      studio: { total: studio.total, delivered: studio.delivered, status: studio.status }, exactlyOnce, live,
      mail: { sent: mailsAfterFirst, mailedTwice, allSentSeconds: round2(allSentSeconds) },
      repeat: { chains: 2, seconds: round2(repeatSeconds), runs: repeatJobs.length - runsBefore, rowsWritten: second.copies - first.copies + (second.notifications - first.notifications), eventsEmitted: heard.reduce((a, b) => a + b, 0) - heardAfterFirst, mailsSent: mailsAfterRepeat - mailsAfterFirst },
      failedJobs,
    };
  } finally {
    for (const s of sockets) s.close();
    await built.close();
    await pg?.drop();
    await smtp.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The least SMTP server the mailer talks to: greets at once, accepts every envelope and counts each mail's recipients
 * when its data ends. Not smtp-server (the tests' catcher): it holds every new connection 100 ms before greeting, to
 * catch clients that talk too soon, which here would be most of the measured time, since the app's mailer opens a
 * connection per mail. A real relay's connection costs its own round trips and TLS instead.
 */
async function smtpSink(onMail: (to: string) => void): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer((socket) => {
    let buffer = '';
    let inData = false;
    let rcpt: string[] = [];
    socket.write('220 bench-sink ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          buffer = buffer.slice(end + 5);
          inData = false;
          for (const to of rcpt) onMail(to);
          rcpt = [];
          socket.write('250 queued\r\n');
          continue;
        }
        const nl = buffer.indexOf('\r\n');
        if (nl < 0) return;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 bench-sink\r\n');
        else if (verb === 'RCPT') {
          rcpt.push((/<([^>]*)>/.exec(line)?.[1] ?? '').toLowerCase());
          socket.write('250 ok\r\n');
        } else if (verb === 'DATA') {
          inData = true;
          // The terminator search starts at the data's first line.
          buffer = '\r\n' + buffer;
          socket.write('354 go on\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The report section. */
export function massReportMarkdown(results: MassBenchResult[]): string {
  if (!results.length) return '';
  const r0 = results[0]!;
  return [
    '## Mass message',
    '',
    `One performer, ${r0.recipients} live subscribers (bulk INSERTs), one mass message sent through \`POST /api/performer/mass-messages\` and delivered by the app's own job worker`,
    `in runs of ${r0.batch} recipients (MASS_MESSAGE_BATCH) with no pause between runs (MASS_MESSAGE_PAUSE_MS=0): the delivery itself, from the request to the row marked done.`,
    `At the production pause (${r0.productionPauseMs} ms) the same delivery takes at most that plus one pause per run after the first ("paced, stated": the mail jobs run during the pauses, so less);`,
    'BENCH_MASS_PACED=1 measures it with a second message at the production pause, to the same subscribers, until its last mail is sent.',
    `${r0.live.sockets} of the recipients hold a socket the whole time and count the copies they hear. Each copy's notification is mailed by a job of its own on the same worker, to a local SMTP sink;`,
    '"all mailed" is the request until the last mail job finished. Then the whole walk is run again by two chains of the job at once: it must write, emit and mail nothing.',
    '',
    '| engine | recipients | delivery s | recipients/s | runs | paced s (stated) | paced s (measured), mails | copies | distinct recipients | notifications | conversations | studio delivered / total | mails (twice) | all mailed s | once each | sockets heard once / twice / never | repeat: s, rows written, events, mails | failed jobs |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---|---|---|---:|',
    ...results.map(
      (r) =>
        `| ${r.engine} | ${r.recipients} | ${r.deliverySeconds} | ${r.recipientsPerSecond} | ${r.runs} | ${r.pacedSeconds} | ${r.pacedMeasuredSeconds === null ? '–' : `${r.pacedMeasuredSeconds}, ${r.pacedMailed}`} | ${r.copies} | ${r.distinctRecipients} | ${r.notifications} | ${r.conversations} | ${r.studio.delivered} / ${r.studio.total} (${r.studio.status}) | ${r.mail.sent} (${r.mail.mailedTwice}) | ${r.mail.allSentSeconds} | ${r.exactlyOnce ? 'yes' : 'NO'} | ${r.live.heardOnce} / ${r.live.heardTwice} / ${r.live.heardNever} | ${r.repeat.seconds} s, ${r.repeat.rowsWritten}, ${r.repeat.eventsEmitted}, ${r.repeat.mailsSent} | ${r.failedJobs} |`,
    ),
    '',
  ].join('\n');
}

/** Every engine this machine has: SQLite, and PostgreSQL when DATABASE_URL is set. */
export async function runMassBenchAll(): Promise<MassBenchResult[]> {
  const engines: Engine[] = process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const results: MassBenchResult[] = [];
  for (const engine of engines) {
    const r = await runMassMessageBench(engine);
    console.log(`mass message ${engine}: ${r.recipients} recipients in ${r.deliverySeconds} s (${r.recipientsPerSecond}/s, ${r.runs} runs; paced ${r.pacedSeconds} s), once each: ${r.exactlyOnce ? 'yes' : 'NO'}`);
    results.push(r);
  }
  return results;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.env.NODE_ENV = 'production';
  runMassBenchAll()
    .then((results) => {
      console.log('\n' + massReportMarkdown(results));
      fs.mkdirSync('bench', { recursive: true });
      fs.writeFileSync('bench/mass-message.json', JSON.stringify(results, null, 2));
      process.exit(results.every((r) => r.exactlyOnce) ? 0 : 1);
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
