import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser } from '../helpers/sessions.js';
import { bearer, buildEngagement, manyUsers, type Engagement } from '../helpers/engagement-fixture.js';
import { makeVideo } from '../../server/seed/factories.js';
import { ask, collect, currentSchema, nextEvent, sleep, socketsClosedAfterEach, startInstance, type TestSocket } from '../helpers/realtime-client.js';
import { MAX_WATCHED_OBJECTS } from '../../server/realtime/socket.js';
import { addNotification, pushNotificationCount, unreadNotificationCount } from '../../server/notifications/notifications.service.js';
import {
  connectRealtime,
  disconnectRealtime,
  onRealtime,
  realtimeStatus,
  realtimeUserId,
  watchObject,
} from '../../src/lib/stores/realtime.js';
import type { CommentItem } from '../../common/schemas/engagement.js';
import type { RealtimeStatus } from '../../common/realtime.js';

/**
 * socket.io on every engine: authentication (cookie, query token, auth/login), rooms (user, object), the
 * server events (comment/*, reaction/count, notification/count) and the `ctx.realtime` emit API; two
 * instances on one PostgreSQL database and one Redis (a comment posted on A reaches a client on B); and a
 * restart on the same port, after which the browser client (src/lib/stores/realtime.ts, run in Node)
 * reconnects by itself: reconnecting → connected, rooms re-joined.
 */

const redisUrl = process.env.REDIS_URL;
const pgUrl = process.env.DATABASE_URL;
const redisEnv: Record<string, string> = redisUrl ? { REDIS_URL: redisUrl } : {};
if (!redisUrl || !pgUrl) {
  console.warn('\n!!! REDIS_URL and DATABASE_URL are both needed for the two-instance realtime test: it is SKIPPED. !!!\n');
}

const open = socketsClosedAfterEach();

describe.each(engines)('realtime on %s', (engine) => {
  let t: TestApp;
  let e: Engagement;

  beforeAll(async () => {
    t = await startTestApp(engine, { env: redisEnv });
    e = await buildEngagement(t.ctx);
  });
  afterAll(async () => {
    await t?.close();
  });

  const comment = (who: { token: string }, objectId: string, content: string, objectType = 'video') =>
    t.api('/comments', { method: 'POST', headers: bearer(who), json: { objectType, objectId, content } });

  it('authenticates from the session cookie, the query token or auth/login; anything else is a guest', async () => {
    const byCookie = await open(t.url, { cookie: `other=1; token=${e.fan.token}` });
    expect(await ask(byCookie, 'auth/login', {})).toEqual({ ok: true, userId: e.fan.id });
    const sameOrigin = await open(t.url, { cookie: `token=${e.fan.token}`, origin: t.url });
    expect((await ask(sameOrigin, 'auth/login', {})).userId).toBe(e.fan.id);
    const byQuery = await open(t.url, { token: e.friend.token });
    expect(await ask(byQuery, 'auth/login', undefined)).toEqual({ ok: true, userId: e.friend.id });

    const guest = await open(t.url);
    expect(await ask(guest, 'auth/login', {})).toMatchObject({ ok: false, userId: null });
    expect(await ask(guest, 'auth/login', { token: 'not-a-token' })).toMatchObject({ ok: false, userId: null });
    expect(await ask(guest, 'auth/login', { token: e.fan.token })).toEqual({ ok: true, userId: e.fan.id });

    // Another site's page cannot ride on the visitor's cookie.
    const foreign = await open(t.url, { cookie: `token=${e.fan.token}`, origin: 'https://evil.example' });
    expect(await ask(foreign, 'auth/login', {})).toMatchObject({ ok: false, userId: null });
    const badToken = await open(t.url, { token: 'x'.repeat(43) });
    expect((await ask(badToken, 'auth/login', {})).ok).toBe(false);
    // A malformed payload is refused, not a crash.
    expect((await ask(byCookie, 'auth/login', { token: 42 } as never)).ok).toBe(false);
    // The polling transport works too.
    const polling = await open(t.url, { token: e.fan.token, transports: ['polling'] });
    expect((await ask(polling, 'auth/login', {})).userId).toBe(e.fan.id);
  });

  it('a revoked session is dropped at the next auth/login', async () => {
    const [u] = await manyUsers(t.ctx.db, 1);
    const s = await open(t.url, { token: u!.token });
    expect((await ask(s, 'auth/login', {})).ok).toBe(true);
    await t.ctx.db.updateTable('sessions').set({ revokedAt: new Date().toISOString() }).where('userId', '=', u!.id).execute();
    expect(await ask(s, 'auth/login', {})).toMatchObject({ ok: false, userId: null });
    const seen = collect(s, 'notification/count');
    t.ctx.realtime.emitToUser(u!.id, 'notification/count', { count: 99 });
    await sleep(200);
    expect(seen).toEqual([]);
  });

  it('an expired session answers 401 over HTTP and is a guest on the socket, open or new', async () => {
    const [u] = await manyUsers(t.ctx.db, 1);
    const me = () => t.api('/users/me', { headers: bearer(u!) });
    expect((await me()).status).toBe(200);
    const open1 = await open(t.url, { token: u!.token });
    expect((await ask(open1, 'auth/login', {})).userId).toBe(u!.id);
    // Expired a second ago, not revoked: only the expiry can refuse it.
    await t.ctx.db.updateTable('sessions').set({ expiresAt: new Date(Date.now() - 1000).toISOString() }).where('userId', '=', u!.id).execute();
    const res = await me();
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ message: expect.any(String), code: expect.any(String) });
    expect(await ask(open1, 'auth/login', {})).toMatchObject({ ok: false, userId: null });
    const fresh = await open(t.url, { token: u!.token });
    expect(await ask(fresh, 'auth/login', {})).toMatchObject({ ok: false, userId: null });
    const seen = collect(fresh, 'notification/count');
    t.ctx.realtime.emitToUser(u!.id, 'notification/count', { count: 7 });
    await sleep(200);
    expect(seen).toEqual([]);
  });

  it('suspending an account drops its open sockets at once', async () => {
    const [u] = await manyUsers(t.ctx.db, 1);
    const admin = await createUser(t.ctx.db, 'admin');
    const s = await open(t.url, { token: u!.token });
    expect((await ask(s, 'auth/login', {})).ok).toBe(true);
    const gone = new Promise<string>((resolve) => s.once('disconnect', (reason) => resolve(reason)));
    const res = await t.api(`/admin/users/${u!.id}/suspend`, { method: 'POST', headers: { authorization: `Bearer ${admin.token}` }, json: {} });
    expect(res.status).toBe(200);
    expect(await gone).toBe('io server disconnect');
  });

  it('pushes comment/created, comment/updated and comment/deleted to the sockets watching a free object (guests too)', async () => {
    const watcher = await open(t.url, { token: e.friend.token });
    const guest = await open(t.url);
    const elsewhere = await open(t.url, { token: e.admin.token });
    expect(await ask(watcher, 'object/watch', { objectType: 'video', objectId: e.video.id })).toEqual({ ok: true });
    expect((await ask(guest, 'object/watch', { objectType: 'video', objectId: e.video.id })).ok).toBe(true);
    expect((await ask(elsewhere, 'object/watch', { objectType: 'video', objectId: e.otherVideo.id })).ok).toBe(true);
    const strays = collect(elsewhere, 'comment/created');

    const created = nextEvent(watcher, 'comment/created');
    const createdForGuest = nextEvent(guest, 'comment/created');
    const res = await comment(e.fan, e.video.id, '<script>alert(1)</script> live!');
    expect(res.status).toBe(201);
    const got = await created;
    expect(got.comment).toMatchObject({ _id: res.body._id, content: '<script>alert(1)</script> live!', userId: e.fan.id, objectType: 'video', objectId: e.video.id });
    expect(got.commentCount).toBe(res.body.commentCount);
    expect((await createdForGuest).comment._id).toBe(res.body._id);

    const updated = nextEvent(watcher, 'comment/updated');
    await t.api(`/comments/${res.body._id}`, { method: 'PUT', headers: bearer(e.fan), json: { content: 'edited live' } });
    expect((await updated).comment.content).toBe('edited live');

    const deleted = nextEvent(watcher, 'comment/deleted');
    await t.api(`/comments/${res.body._id}`, { method: 'DELETE', headers: bearer(e.fan) });
    expect(await deleted).toEqual({ _id: res.body._id, objectType: 'video', objectId: e.video.id, commentCount: got.commentCount - 1 });
    expect(strays).toEqual([]);

    // After unwatching, nothing more arrives.
    expect((await ask(guest, 'object/unwatch', { objectType: 'video', objectId: e.video.id })).ok).toBe(true);
    const late = collect(guest, 'comment/created');
    const stillWatching = nextEvent(watcher, 'comment/created');
    await comment(e.fan, e.video.id, 'after unwatch');
    await stillWatching;
    await sleep(100);
    expect(late).toEqual([]);
  });

  it('pushes reaction/count when a like changes the counter', async () => {
    const s = await open(t.url);
    await ask(s, 'object/watch', { objectType: 'product', objectId: e.product.id });
    const counts = collect(s, 'reaction/count');
    await t.api('/reactions', { method: 'POST', headers: bearer(e.fan), json: { objectType: 'product', objectId: e.product.id, action: 'like' } });
    await t.api('/reactions', { method: 'POST', headers: bearer(e.fan), json: { objectType: 'product', objectId: e.product.id, action: 'like' } });
    await t.api('/reactions', { method: 'DELETE', headers: bearer(e.fan), json: { objectType: 'product', objectId: e.product.id, action: 'like' } });
    await sleep(200);
    // The repeated like changed nothing and sent nothing.
    expect(counts).toEqual([
      { objectType: 'product', objectId: e.product.id, action: 'like', count: 1 },
      { objectType: 'product', objectId: e.product.id, action: 'like', count: 0 },
    ]);
  });

  it('sends notification/count to the user room: on connect, and when someone comments on their content', async () => {
    const performer = await open(t.url, { token: e.star.token });
    // The count is sent when the user room is joined: at connect, and again on auth/login (before its ack).
    const current = nextEvent(performer, 'notification/count');
    await ask(performer, 'auth/login', {});
    const start = (await current).count;
    expect(start).toBe(await unreadNotificationCount(t.ctx.db, e.star.id));
    const second = await open(t.url, { cookie: `token=${e.star.token}` });
    const bumped = [nextEvent(performer, 'notification/count', (p) => p.count === start + 1), nextEvent(second, 'notification/count', (p) => p.count === start + 1)];
    await comment(e.friend, e.gallery.id, 'love this gallery', 'gallery');
    expect((await Promise.all(bumped)).map((p) => p.count)).toEqual([start + 1, start + 1]);
  });

  it('exposes emitToUser / emitToObject on ctx.realtime for other features', async () => {
    const [a, b] = await manyUsers(t.ctx.db, 2);
    const a1 = await open(t.url, { token: a!.token });
    const a2 = await open(t.url, { cookie: `token=${a!.token}` });
    const b1 = await open(t.url, { token: b!.token });
    await Promise.all([ask(a1, 'auth/login', {}), ask(a2, 'auth/login', {}), ask(b1, 'auth/login', {})]);
    const leaks = collect(b1, 'payment/success');
    const got = [nextEvent(a1, 'payment/success'), nextEvent(a2, 'payment/success')];
    t.ctx.realtime.emitToUser(a!.id, 'payment/success', { paymentId: 'p1', type: 'video', targetId: e.video.id });
    expect((await Promise.all(got)).map((p) => p.paymentId)).toEqual(['p1', 'p1']);
    await ask(b1, 'object/watch', { objectType: 'performer', objectId: e.star.id });
    const fresh = nextEvent(b1, 'content/new');
    t.ctx.realtime.emitToObject('performer', e.star.id, 'content/new', { objectType: 'video', objectId: e.video.id, performerId: e.star.id, publishedAt: '2026-01-01T00:00:00.000Z' });
    expect((await fresh).objectId).toBe(e.video.id);
    // The notification helpers money/catalogue use.
    await addNotification(t.ctx.db, a!.id, 'payment', { paymentId: 'p1' });
    const count = nextEvent(a1, 'notification/count', (p) => p.count === 1);
    await pushNotificationCount(t.ctx.db, t.ctx.realtime, a!.id);
    expect((await count).count).toBe(1);
    await sleep(100);
    expect(leaks).toEqual([]);
  });

  it('auth/login with another token moves the socket to that user; auth/logout leaves the user room', async () => {
    const [a, b] = await manyUsers(t.ctx.db, 2);
    const s = await open(t.url, { token: a!.token });
    expect((await ask(s, 'auth/login', { token: b!.token })).userId).toBe(b!.id);
    const seen = collect(s, 'notification/count');
    t.ctx.realtime.emitToUser(a!.id, 'notification/count', { count: 1 });
    t.ctx.realtime.emitToUser(b!.id, 'notification/count', { count: 2 });
    await sleep(150);
    expect(seen.map((p) => p.count)).toEqual([2]);
    expect(await ask(s, 'auth/logout', {})).toEqual({ ok: true, userId: null });
    t.ctx.realtime.emitToUser(b!.id, 'notification/count', { count: 3 });
    await sleep(150);
    expect(seen.map((p) => p.count)).toEqual([2]);
  });

  it('refuses bad watch requests and caps the rooms per socket', async () => {
    const s = await open(t.url);
    for (const bad of [{}, { objectType: 'video' }, { objectType: 'user', objectId: 'x' }, { objectType: 'video', objectId: '../x' }, null, 'video']) {
      expect((await ask(s, 'object/watch', bad as never)).ok, JSON.stringify(bad)).toBe(false);
    }
    // An object that does not exist (or that the socket may not see) has no room to join.
    expect(await ask(s, 'object/watch', { objectType: 'video', objectId: 'no-such-video' })).toMatchObject({ ok: false, code: 'NOT_FOUND' });
    const videos = await Promise.all(Array.from({ length: MAX_WATCHED_OBJECTS + 1 }, (_, i) => makeVideo(t.ctx, e.other.id, { title: `Watched ${i}`, access: 'free', withFiles: false })));
    for (let i = 0; i < MAX_WATCHED_OBJECTS; i++) expect((await ask(s, 'object/watch', { objectType: 'video', objectId: videos[i]!.id })).ok).toBe(true);
    expect(await ask(s, 'object/watch', { objectType: 'video', objectId: videos[MAX_WATCHED_OBJECTS]!.id })).toMatchObject({ ok: false, message: 'Too many watched objects' });
    // Watching one already watched is fine.
    expect((await ask(s, 'object/watch', { objectType: 'video', objectId: videos[0]!.id })).ok).toBe(true);
    expect(s.connected).toBe(true);
  });

  it('after a restart on the same port the browser client reconnects by itself: reconnecting → connected, rooms re-joined', async () => {
    const [u] = await manyUsers(t.ctx.db, 1);
    const statuses: RealtimeStatus[] = [];
    const offStatus = realtimeStatus.subscribe((s) => statuses.push(s));
    const received: CommentItem[] = [];
    const offEvent = onRealtime('comment/created', ({ comment: c }) => received.push(c));
    const unwatch = watchObject('video', e.video.id);
    const port = Number(new URL(t.url).port);
    const pgSchema = engine === 'postgres' ? await currentSchema(t) : undefined;
    let second: Awaited<ReturnType<typeof startInstance>> | undefined;
    try {
      connectRealtime({ loggedIn: true, url: t.url, token: u!.token });
      await expect.poll(() => realtimeStatus.get(), { timeout: 5000 }).toBe('connected');
      await expect.poll(() => realtimeUserId.get(), { timeout: 5000 }).toBe(u!.id);
      const first = comment(e.fan, e.video.id, 'before the restart');
      await expect.poll(() => received.length, { timeout: 5000 }).toBe(1);
      await first;

      const mark = statuses.length;
      await t.built.close();
      await expect.poll(() => realtimeStatus.get(), { timeout: 5000 }).not.toBe('connected');
      await sleep(300);
      second = await startInstance(t, { port, pgSchema });
      await expect.poll(() => realtimeStatus.get(), { timeout: 20_000, interval: 50 }).toBe('connected');
      const after = statuses.slice(mark);
      expect(after[0]).toBe('disconnected');
      expect(after).toContain('reconnecting');
      expect(after.at(-1)).toBe('connected');
      expect(after.lastIndexOf('reconnecting')).toBeLessThan(after.lastIndexOf('connected'));
      // auth/login was sent again and the object room re-joined, without the test doing anything.
      await expect.poll(() => realtimeUserId.get(), { timeout: 5000 }).toBe(u!.id);
      await sleep(100);
      const res = await fetch(`${second.url}/api/comments`, {
        method: 'POST',
        headers: { ...bearer(e.friend), 'content-type': 'application/json' },
        body: JSON.stringify({ objectType: 'video', objectId: e.video.id, content: 'after the restart' }),
      });
      expect(res.status).toBe(201);
      await expect.poll(() => received.map((c) => c.content), { timeout: 5000 }).toEqual(['before the restart', 'after the restart']);
    } finally {
      offStatus();
      offEvent();
      unwatch();
      disconnectRealtime();
      await second?.built.close();
    }
  }, 60_000);
});

describe.skipIf(!redisUrl || !pgUrl)('realtime across two instances (PostgreSQL + Redis)', () => {
  let a: TestApp;
  let b: Awaited<ReturnType<typeof startInstance>>;
  let e: Engagement;

  beforeAll(async () => {
    a = await startTestApp('postgres', { env: { REDIS_URL: redisUrl! } });
    b = await startInstance(a);
    e = await buildEngagement(a.ctx);
  });
  afterAll(async () => {
    await b?.built.close();
    await a?.close();
  });

  it('a comment posted through instance A reaches a client connected to instance B', async () => {
    expect(a.url).not.toBe(b.url);
    const onB = await open(b.url, { token: e.friend.token });
    expect((await ask(onB, 'auth/login', {})).userId).toBe(e.friend.id);
    await ask(onB, 'object/watch', { objectType: 'video', objectId: e.video.id });
    // The adapter subscription is in place once a room exists; give Redis a moment.
    await sleep(200);
    const got = nextEvent(onB, 'comment/created', () => true, 8000);
    const res = await a.api('/comments', { method: 'POST', headers: bearer(e.fan), json: { objectType: 'video', objectId: e.video.id, content: 'from A' } });
    expect(res.status).toBe(201);
    expect((await got).comment).toMatchObject({ _id: res.body._id, content: 'from A' });

    // And the other way round, and user rooms too.
    const onA = await open(a.url, { token: e.star.token });
    await ask(onA, 'object/watch', { objectType: 'video', objectId: e.video.id });
    await sleep(200);
    const deleted = nextEvent(onA, 'comment/deleted', () => true, 8000);
    const del = await fetch(`${b.url}/api/comments/${res.body._id}`, { method: 'DELETE', headers: bearer(e.fan) });
    expect(del.status).toBe(200);
    expect((await deleted)._id).toBe(res.body._id);
    const paid = nextEvent(onB, 'payment/success', () => true, 8000);
    a.ctx.realtime.emitToUser(e.friend.id, 'payment/success', { paymentId: 'pay-1', type: 'subscription_monthly' });
    expect((await paid).paymentId).toBe('pay-1');
  });
});
