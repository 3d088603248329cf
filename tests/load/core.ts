/**
 * The load scenario shared by `npm run load` (tests/load/run.ts, 500 users for 60 s, or the 2,000-user crowd) and
 * the short CI version (tests/api/load.test.ts): virtual users, one per pre-created user with a live session, browse
 * pages and API lists, like/unlike videos, comment and write to performers, against a real server. Every answered
 * write is counted by kind; at the end the database is compared with those counts (no lost or phantom writes) and
 * 5xx are counted.
 */
import http from 'node:http';
import type { Kysely } from 'kysely';
import type { Database } from '../../server/db/schema.js';
import { generateLargeCatalogue } from '../bench/generate.js';
import { createSession } from '../helpers/sessions.js';
import { newId, nowIso } from '../../server/db/ids.js';
import { seededRandom } from '../../common/random.js';
import { userRow } from '../../server/seed/factories.js';

export interface LoadFixture {
  videoIds: string[];
  performerUsernames: string[];
  tokens: string[];
}

/** A small public catalogue and `users` plain users, each with a live session (inserted directly, no HTTP). */
export async function prepareLoad(db: Kysely<Database>, opts: { users: number; performers?: number; videos?: number }): Promise<LoadFixture> {
  const gen = await generateLargeCatalogue(db, { performers: opts.performers ?? 50, videos: opts.videos ?? 500, bigPerformerVideos: 50 });
  // Free videos only, so comments and reactions are allowed for any signed-in user.
  const videos = await db.selectFrom('videos').select('id').where('access', '=', 'free').where('status', '=', 'active').orderBy('id').limit(100).execute();
  const performers = await db.selectFrom('performers').select('username').orderBy('id').limit(50).execute();
  // Any signed-in fan may write to these performers, so the messages of the mix are allowed.
  await db.updateTable('performers').set({ messagePolicy: 'fans' }).where('username', 'in', performers.map((p) => p.username)).execute();
  const tokens: string[] = [];
  const now = nowIso();
  const ids: string[] = [];
  for (let i = 0; i < opts.users; i++) ids.push(newId());
  for (let i = 0; i < ids.length; i += 200) {
    await db
      .insertInto('users')
      .values(ids.slice(i, i + 200).map((id, k) => userRow({
        id, email: `load${i + k}_${id.slice(-6)}@load.test`, username: `load${i + k}_${id.slice(-6)}`, name: `Load user ${i + k}`, createdAt: now,
      })))
      .execute();
  }
  for (const id of ids) tokens.push(await createSession(db, id));
  void gen;
  return { videoIds: videos.map((v) => v.id), performerUsernames: performers.map((p) => p.username), tokens };
}

export interface LoadOptions {
  base: string;
  apiBase: string;
  seconds: number;
  /** Browse server-rendered pages too (needs the Astro build in dist/). */
  pages: boolean;
  /** Random pause between a user's requests, ms (uniform 0..thinkMs). */
  thinkMs?: number;
  /**
   * Instead of thinkMs: each user acts every `thinkMeanMs` on average (exponential pauses, as independent people
   * arrive), starting at a random moment of the first pause, so a crowd does not all click at once.
   */
  thinkMeanMs?: number;
  /**
   * Latencies of the requests started in the first `warmupMs` are also left out of a second figure (`afterWarmup`):
   * the crowd's arrival, when every user opens their connection and the process is cold. `all` keeps every request.
   */
  warmupMs?: number;
}

export interface LoadResult {
  seconds: number;
  users: number;
  requests: number;
  rps: number;
  byStatus: Record<string, number>;
  byKind: Record<string, { count: number; p50: number; p99: number }>;
  fiveXX: number;
  networkErrors: number;
  rateLimited: number;
  writes: { comments2xx: number; likeAdded: number; likeRemoved: number; reactionNoop: number; messages2xx: number };
  /** p50 and p99 over every request, ms. */
  all: { p50: number; p99: number };
  /** p50 and p99 over the requests started after `warmupMs`, when it was given. */
  afterWarmup?: { p50: number; p99: number; requests: number };
  /** Every request by the window of the run it started in (WINDOW_MS each): where in the run the slow ones fall. */
  windows: Array<{ fromS: number; requests: number; p99: number; max: number; slowest: string }>;
  /** Filled by verifyLoad. */
  check?: LoadCheck;
}

export interface LoadCheck {
  commentsCreatedInDb: number;
  commentsExpected: number;
  likeRowsDelta: number;
  likeRowsExpected: number;
  likeCounterMismatches: Array<{ videoId: string; expected: number; actual: number }>;
  commentCounterMismatches: Array<{ videoId: string; expected: number; actual: number }>;
  messagesCreatedInDb: number;
  messagesExpected: number;
  violations: string[];
}

interface Snapshot {
  comments: number;
  likes: number;
  messages: number;
  videos: Map<string, { likeCount: number; commentCount: number }>;
}

export async function snapshot(db: Kysely<Database>, videoIds: string[]): Promise<Snapshot> {
  const c = await db.selectFrom('comments').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  const l = await db.selectFrom('reactions').select((eb) => eb.fn.countAll<string>().as('n')).where('action', '=', 'like').executeTakeFirstOrThrow();
  const m = await db.selectFrom('messages').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  const rows = await db.selectFrom('videos').select(['id', 'likeCount', 'commentCount']).where('id', 'in', videoIds).execute();
  return { comments: Number(c.n), likes: Number(l.n), messages: Number(m.n), videos: new Map(rows.map((r) => [r.id, { likeCount: Number(r.likeCount), commentCount: Number(r.commentCount) }])) };
}

/** The width of LoadResult.windows. */
const WINDOW_MS = 5000;

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 10) / 10;
}

type Sent = { method?: string; headers?: Record<string, string>; body?: string };

/**
 * A kept connection unused this long is closed by the users' side, before the server's keep-alive timeout (Fastify's
 * 72 s) closes it: a server closing a connection just as a request goes out on it fails that request.
 */
const IDLE_SOCKET_MS = 60_000;

/**
 * One request on a kept-alive connection of node:http, as a browser holds its connections. Not fetch: in the crowd of
 * 2,000 the users' process spent a third of a core at 330 answers a second with it (about 1 ms a request), a fifth
 * at 447 with node:http (0.45 ms), CPU taken from the two cores the server shares with the users.
 */
const agent = new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS });

function send(url: string, init: Sent = {}): Promise<{ status: number; type: string; cached: boolean; text: string }> {
  return new Promise((resolve, reject) => {
    // The length always: node:http sends a DELETE's body without one, and the server then reads it as the next request.
    const headers = init.body === undefined ? init.headers : { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) };
    const req = http.request(url, { method: init.method ?? 'GET', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      // x-cache: the micro-cache saw the request (a page every member shares), not a render for this user.
      res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type'] ?? ''), cached: 'x-cache' in res.headers, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** Per-video net effects, to compare with the denormalised counters. */
interface Effects {
  likes: Map<string, number>;
  comments: Map<string, number>;
}

export async function runLoad(fx: LoadFixture, opts: LoadOptions): Promise<LoadResult & { effects: Effects }> {
  const api = opts.base + opts.apiBase;
  const deadline = Date.now() + opts.seconds * 1000;
  const byStatus: Record<string, number> = {};
  const latencies: Record<string, number[]> = {};
  const started = Date.now();
  const byWindow: Array<Array<{ ms: number; kind: string }>> = [];
  const warm = opts.warmupMs === undefined ? undefined : { from: Date.now() + opts.warmupMs, latencies: [] as number[] };
  const writes = { comments2xx: 0, likeAdded: 0, likeRemoved: 0, reactionNoop: 0, messages2xx: 0 };
  const effects: Effects = { likes: new Map(), comments: new Map() };
  let requests = 0;
  let networkErrors = 0;
  const bump = (m: Map<string, number>, k: string, d: number) => m.set(k, (m.get(k) ?? 0) + d);

  async function call(kind: string, url: string, init?: Sent): Promise<{ status: number; body: any; shared: boolean } | null> {
    const t = performance.now();
    const startedAt = Date.now();
    requests++;
    try {
      const res = await send(url, init);
      const text = res.text;
      const ms = performance.now() - t;
      (latencies[kind] ??= []).push(ms);
      (byWindow[Math.floor((startedAt - started) / WINDOW_MS)] ??= []).push({ ms, kind });
      if (warm && startedAt >= warm.from) warm.latencies.push(ms);
      byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
      let body: any = null;
      if (res.type.includes('json')) {
        try {
          body = JSON.parse(text);
        } catch {
          body = null;
        }
      }
      return { status: res.status, body, shared: res.cached };
    } catch {
      networkErrors++;
      return null;
    }
  }

  /** A virtual user's choices come from its own seeded generator: the same run makes the same choices in each user's order. */
  async function user(token: string, index: number) {
    const random = seededRandom(`load-user-${index}`);
    const pick = <T>(a: T[]): T => a[Math.floor(random() * a.length)]!;
    const auth = { authorization: `Bearer ${token}` };
    const json = { ...auth, 'content-type': 'application/json' };
    // Pages read the session from its cookie, as a browser sends it (a bearer token is for API clients).
    const browser = { cookie: `token=${token}` };
    const liked = new Set<string>();
    const conversations = new Map<string, string>();
    // Exponential pauses of the given mean (inverse transform of a uniform draw), or uniform 0..thinkMs.
    const think = () => (opts.thinkMeanMs ? -Math.log(1 - random()) * opts.thinkMeanMs : opts.thinkMs ? random() * opts.thinkMs : 0);
    const pause = (ms: number) => new Promise((ok) => setTimeout(ok, Math.min(ms, Math.max(0, deadline - Date.now()))));
    // A crowd already under way: each user's first action comes after an exponential pause too (the wait for the next
    // action of someone acting at random is exponential whenever one starts watching), so the crowd acts at its steady
    // rate from the first second. A uniform first pause crowded 1.6 times that rate into the first seconds.
    if (opts.thinkMeanMs) await pause(think());
    while (Date.now() < deadline) {
      const r = random();
      const videoId = pick(fx.videoIds);
      if (r < 0.3 && opts.pages) {
        const which = random();
        const p = which < 0.25 ? '/' : which < 0.45 ? '/performers' : which < 0.75 ? `/videos/${videoId}` : `/performers/${pick(fx.performerUsernames)}`;
        const shown = await call('page', opts.base + p, { headers: browser });
        // A member-shell page (the same HTML for every signed-in visitor) costs what a browser then asks: the
        // header's who-and-unread call (on a performer's or a video's page with the visitor's state there), and
        // on the home page the newest videos again as this viewer when something may be open to them that a guest's
        // copy shows locked (these fans hold nothing, so a performer's list is not asked again).
        if (shown?.shared) {
          const state = p.startsWith('/performers/') ? `?performer=${p.slice('/performers/'.length)}` : p.startsWith('/videos/') ? `?video=${videoId}` : '';
          const header = await call('page', `${api}/users/me/header${state}`, { headers: browser });
          if (p === '/' && header?.body?.unlocksMore) await call('page', `${api}/user/assets/videos/search?sort=newest&limit=12`, { headers: browser });
        }
      } else if (r < 0.55) {
        const which = random();
        const u =
          which < 0.4
            ? `${api}/user/assets/videos/search?limit=12${random() < 0.5 ? '&sort=popular' : ''}`
            : which < 0.7
              ? `${api}/performers/search?limit=12`
              : `${api}/comments/search?objectType=video&objectId=${videoId}&limit=10`;
        await call('list', u, { headers: auth });
      } else if (r < 0.8) {
        const add = !liked.has(videoId);
        const res = await call(add ? 'react' : 'unreact', `${api}/reactions`, {
          method: add ? 'POST' : 'DELETE',
          headers: json,
          body: JSON.stringify({ objectType: 'video', objectId: videoId, action: 'like' }),
        });
        if (res && res.status >= 200 && res.status < 300) {
          if (add) liked.add(videoId);
          else liked.delete(videoId);
          if (res.body?.changed) {
            if (add) writes.likeAdded++;
            else writes.likeRemoved++;
            bump(effects.likes, videoId, add ? 1 : -1);
          } else writes.reactionNoop++;
        }
      } else if (r < 0.9) {
        // A message to a performer: the conversation is opened once (idempotent), then written in.
        const performer = pick(fx.performerUsernames.slice(0, 10));
        let conversationId = conversations.get(performer);
        if (!conversationId) {
          const res = await call('message', `${api}/messages/conversations`, { method: 'POST', headers: json, body: JSON.stringify({ userId: performer }) });
          if (res?.status === 200) conversations.set(performer, (conversationId = res.body._id as string));
        }
        if (conversationId) {
          const res = await call('message', `${api}/messages/conversations/${conversationId}/messages`, {
            method: 'POST',
            headers: json,
            body: JSON.stringify({ text: `load message ${random().toString(36).slice(2)}` }),
          });
          if (res && res.status >= 200 && res.status < 300) writes.messages2xx++;
        }
      } else {
        const res = await call('comment', `${api}/comments`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ objectType: 'video', objectId: videoId, content: `load comment ${random().toString(36).slice(2)} ✓` }),
        });
        if (res && res.status >= 200 && res.status < 300) {
          writes.comments2xx++;
          bump(effects.comments, videoId, 1);
        }
      }
      const ms = think();
      if (ms) await pause(ms);
    }
  }

  await Promise.all(fx.tokens.map((t, i) => user(t, i)));
  const seconds = (Date.now() - started) / 1000;
  const byKind: LoadResult['byKind'] = {};
  const every = Object.values(latencies).flat().sort((a, b) => a - b);
  for (const [k, v] of Object.entries(latencies)) {
    v.sort((a, b) => a - b);
    byKind[k] = { count: v.length, p50: percentile(v, 50), p99: percentile(v, 99) };
  }
  const fiveXX = Object.entries(byStatus).filter(([s]) => Number(s) >= 500).reduce((a, [, n]) => a + n, 0);
  return {
    seconds: Math.round(seconds * 10) / 10,
    users: fx.tokens.length,
    requests,
    rps: Math.round(requests / seconds),
    byStatus,
    byKind,
    fiveXX,
    networkErrors,
    rateLimited: byStatus['429'] ?? 0,
    writes,
    all: { p50: percentile(every, 50), p99: percentile(every, 99) },
    windows: Array.from(byWindow, (w = [], i) => {
      const sorted = [...w].sort((a, b) => a.ms - b.ms);
      const ms = sorted.map((r) => r.ms);
      return { fromS: (i * WINDOW_MS) / 1000, requests: ms.length, p99: percentile(ms, 99), max: percentile(ms, 100), slowest: sorted.at(-1)?.kind ?? '' };
    }),
    ...(warm ? { afterWarmup: ((l) => ({ p50: percentile(l, 50), p99: percentile(l, 99), requests: l.length }))(warm.latencies.sort((a, b) => a - b)) } : {}),
    effects,
  };
}

/** Compares the database after the run with the snapshot before it and the counted 2xx writes. */
export async function verifyLoad(db: Kysely<Database>, fx: LoadFixture, before: Snapshot, result: LoadResult & { effects: Effects }): Promise<LoadCheck> {
  const after = await snapshot(db, fx.videoIds);
  const likeCounterMismatches: LoadCheck['likeCounterMismatches'] = [];
  const commentCounterMismatches: LoadCheck['commentCounterMismatches'] = [];
  for (const id of fx.videoIds) {
    const b = before.videos.get(id)!;
    const a = after.videos.get(id)!;
    const expectLikes = b.likeCount + (result.effects.likes.get(id) ?? 0);
    const expectComments = b.commentCount + (result.effects.comments.get(id) ?? 0);
    if (a.likeCount !== expectLikes) likeCounterMismatches.push({ videoId: id, expected: expectLikes, actual: a.likeCount });
    if (a.commentCount !== expectComments) commentCounterMismatches.push({ videoId: id, expected: expectComments, actual: a.commentCount });
  }
  const check: LoadCheck = {
    commentsCreatedInDb: after.comments - before.comments,
    commentsExpected: result.writes.comments2xx,
    likeRowsDelta: after.likes - before.likes,
    likeRowsExpected: result.writes.likeAdded - result.writes.likeRemoved,
    likeCounterMismatches,
    commentCounterMismatches,
    messagesCreatedInDb: after.messages - before.messages,
    messagesExpected: result.writes.messages2xx,
    violations: [],
  };
  if (result.fiveXX) check.violations.push(`${result.fiveXX} responses were 5xx`);
  if (result.networkErrors) check.violations.push(`${result.networkErrors} requests failed at the network level (outcome unknown)`);
  if (check.commentsCreatedInDb !== check.commentsExpected) check.violations.push(`comments: ${check.commentsCreatedInDb} rows created, ${check.commentsExpected} answered 2xx`);
  if (check.likeRowsDelta !== check.likeRowsExpected) check.violations.push(`like rows: ${check.likeRowsDelta} net new, ${check.likeRowsExpected} net successful operations`);
  if (likeCounterMismatches.length) check.violations.push(`${likeCounterMismatches.length} videos' likeCount differ from the net successful reactions`);
  if (check.messagesCreatedInDb !== check.messagesExpected) check.violations.push(`messages: ${check.messagesCreatedInDb} rows created, ${check.messagesExpected} answered 2xx`);
  if (commentCounterMismatches.length) check.violations.push(`${commentCounterMismatches.length} videos' commentCount differ from the created comments`);
  return check;
}
