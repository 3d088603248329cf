import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { entitle, makeGallery, makePost, makeVideo, subscribe } from '../../server/seed/factories.js';
import { FEED_MERGE_MAX } from '../../server/catalogue/catalogue.repository.js';
import { postForm } from '../helpers/uploads.js';
import { collect, nextEvent, sleep, socketsClosedAfterEach, startInstance, type TestSocket } from '../helpers/realtime-client.js';
import { announce } from '../../server/follows/announce.js';
import { newId } from '../../server/db/ids.js';

/**
 * Follows and the feed (docs/product.md, Follows and the feed): following is free, idempotent and counted exactly;
 * the feed holds the public posts, videos and galleries of followed and subscribed performers, newest first, keyset
 * paged, each locked exactly as the catalogue locks it; new content is announced once over socket.io.
 */

const fastJobs = { JOBS_POLL_MS: '50', JOBS_BACKOFF_MS: '50', JOBS_BACKOFF_MAX_MS: '200' };
const open = socketsClosedAfterEach();
/** The items whose full files a feed answer signs (`/media/protected/<type>/<item id>/…`), in order. */
const signedItems = (items: unknown[]) => [...JSON.stringify(items).matchAll(/\/media\/protected\/\w+\/([0-9a-f]+)\//g)].map((m) => m[1]);
const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

describe.each(engines)('follows and the feed on %s', (engine) => {
  let t: TestApp;
  let fan: TestUser;
  let fan2: TestUser;
  let perfA: TestUser;
  let perfB: TestUser;
  let perfC: TestUser;

  beforeAll(async () => {
    t = await startTestApp(engine, { env: fastJobs });
    const db = t.ctx.db;
    [fan, fan2] = [await createUser(db, 'user', { name: 'Feed Fan' }), await createUser(db, 'user', { name: 'Other Fan' })];
    perfA = await createUser(db, 'performer', { name: 'Performer A' });
    perfB = await createUser(db, 'performer', { name: 'Performer B' });
    perfC = await createUser(db, 'performer', { name: 'Performer C' });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  const call = (method: string, path: string, who?: TestUser) => t.api(path, { method, headers: who?.headers ?? {} });
  const followerRows = async (performerId: string) =>
    Number((await t.ctx.db.selectFrom('follows').select((eb) => eb.fn.countAll<number>().as('n')).where('performerId', '=', performerId).executeTakeFirstOrThrow()).n);
  const counter = async (performerId: string) => (await t.ctx.db.selectFrom('performers').select('followerCount').where('id', '=', performerId).executeTakeFirstOrThrow()).followerCount;

  it('follows and unfollows idempotently, by id or username, with an exact follower count on the profile', async () => {
    const first = await call('POST', `/performers/${perfC.id}/follow`, fan);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ performerId: perfC.id, following: true, followerCount: 1, changed: true });
    const again = await call('POST', `/performers/${perfC.username}/follow`, fan);
    expect(again.body).toEqual({ performerId: perfC.id, following: true, followerCount: 1, changed: false });
    const profile = await t.api(`/performers/${perfC.id}`, { headers: fan.headers });
    expect(profile.body).toMatchObject({ isFollowing: true, followerCount: 1 });
    expect((await t.api(`/performers/${perfC.id}`, { headers: fan2.headers })).body).toMatchObject({ isFollowing: false, followerCount: 1 });
    expect((await t.api(`/performers/${perfC.id}`)).body).toMatchObject({ isFollowing: false, followerCount: 1 });

    const gone = await call('DELETE', `/performers/${perfC.id}/follow`, fan);
    expect(gone.body).toEqual({ performerId: perfC.id, following: false, followerCount: 0, changed: true });
    const goneAgain = await call('DELETE', `/performers/${perfC.id}/follow`, fan);
    expect(goneAgain.body).toEqual({ performerId: perfC.id, following: false, followerCount: 0, changed: false });
    expect([await followerRows(perfC.id), await counter(perfC.id)]).toEqual([0, 0]);
  });

  it('keeps the count equal to the rows when the same fan and many fans follow at once', async () => {
    const target = await createUser(t.ctx.db, 'performer');
    const same = await Promise.all(Array.from({ length: 8 }, () => call('POST', `/performers/${target.id}/follow`, fan)));
    expect(same.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(same.filter((r) => r.body.changed)).toHaveLength(1);
    const fans = await Promise.all(Array.from({ length: 6 }, () => createUser(t.ctx.db, 'user')));
    await Promise.all(fans.map((f) => call('POST', `/performers/${target.id}/follow`, f)));
    await Promise.all([...fans.slice(0, 3).map((f) => call('DELETE', `/performers/${target.id}/follow`, f)), call('DELETE', `/performers/${target.id}/follow`, fans[0])]);
    expect([await followerRows(target.id), await counter(target.id)]).toEqual([4, 4]);
  });

  it('refuses oneself, non-performers, unknown and hidden performers, guests and bad ids with { message, code }', async () => {
    const self = await call('POST', `/performers/${perfA.id}/follow`, perfA);
    expect(self.status).toBe(400);
    expect(self.body).toMatchObject({ code: 'CANNOT_FOLLOW_SELF', message: expect.any(String) });
    for (const id of [fan2.id, 'no-such-performer', newId()]) {
      const res = await call('POST', `/performers/${id}/follow`, fan);
      expect(res.status, id).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: 'Performer not found' });
      expect((await call('DELETE', `/performers/${id}/follow`, fan)).status).toBe(404);
    }
    const unapproved = await createUser(t.ctx.db, 'performer', { performer: { approved: 0 } });
    expect((await call('POST', `/performers/${unapproved.id}/follow`, fan)).status).toBe(404);
    expect((await call('POST', `/performers/${perfA.id}/follow`)).status).toBe(401);
    expect((await call('GET', '/feed')).status).toBe(401);
    expect((await call('GET', '/following')).status).toBe(401);
    const bad = await call('POST', '/performers/bad%20id!/follow', fan);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_FAILED');
    expect((await call('GET', '/feed?cursor=garbage', fan)).status).toBe(400);
    expect((await call('GET', '/feed?limit=500', fan)).status).toBe(400);
    expect(await counter(unapproved.id)).toBe(0);
    // A follow of a performer who is later withdrawn can still be undone.
    const leaving = await createUser(t.ctx.db, 'performer');
    await call('POST', `/performers/${leaving.id}/follow`, fan2);
    await t.ctx.db.updateTable('performers').set({ approved: 0 }).where('id', '=', leaving.id).execute();
    expect((await call('DELETE', `/performers/${leaving.id}/follow`, fan2)).body).toMatchObject({ changed: true, followerCount: 0 });
  });

  it('lists whom I follow, newest first, keyset paged, and nobody else\'s follows', async () => {
    const me = await createUser(t.ctx.db, 'user');
    const followed = [perfA, perfB, perfC];
    for (const p of followed) {
      expect((await call('POST', `/performers/${p.id}/follow`, me)).status).toBe(200);
      await sleep(5);
    }
    const first = await call('GET', '/following?limit=2', me);
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(3);
    expect(first.body.items.map((p: { _id: string }) => p._id)).toEqual([perfC.id, perfB.id]);
    expect(first.body.items[0]).toMatchObject({ username: perfC.username, followedAt: expect.any(String) });
    const second = await call('GET', `/following?limit=2&cursor=${first.body.nextCursor}`, me);
    expect(second.body.items.map((p: { _id: string }) => p._id)).toEqual([perfA.id]);
    expect(second.body.nextCursor ?? null).toBeNull();
    const others = await call('GET', '/following', fan2);
    expect(JSON.stringify(others.body)).not.toContain(perfC.id);
    for (const p of followed) await call('DELETE', `/performers/${p.id}/follow`, me);
  });

  describe('the feed', () => {
    let ids: Record<string, string>;
    let feedFan: TestUser;
    let crawler: TestUser;

    beforeAll(async () => {
      const ctx = t.ctx;
      feedFan = await createUser(ctx.db, 'user');
      crawler = await createUser(ctx.db, 'user');
      // A: followed. B: subscribed (not followed). C: neither.
      await call('POST', `/performers/${perfA.id}/follow`, feedFan);
      await subscribe(ctx.db, feedFan.id, perfB.id);
      const a = perfA.id;
      ids = {
        aFree: (await makeVideo(ctx, a, { title: 'A free video', access: 'free', publishedAt: ago(10) })).id,
        aSubs: (await makeVideo(ctx, a, { title: 'A subscribers video', access: 'subscribers', publishedAt: ago(20) })).id,
        aSalePost: (await makePost(ctx, { title: 'A sale post', performerId: a, authorId: a, access: 'sale', price: 500, publishedAt: ago(30) })).id,
        aGallery: (await makeGallery(ctx, a, { title: 'A gallery', access: 'subscribers', photos: 2, publishedAt: ago(40) })).id,
        aFreePost: (await makePost(ctx, { title: 'A free post', performerId: a, authorId: a, access: 'free', publishedAt: ago(50) })).id,
        bSubs: (await makeVideo(ctx, perfB.id, { title: 'B subscribers video', access: 'subscribers', publishedAt: ago(15) })).id,
        // Bought: opened by a purchase in the same page as items opened by the subscription.
        bBoughtPost: (await makePost(ctx, { title: 'B bought post', performerId: perfB.id, authorId: perfB.id, access: 'sale', price: 300, publishedAt: ago(35) })).id,
        // Never in the feed: C's, A's drafts and future items, A's products, the site's posts.
        cFree: (await makeVideo(ctx, perfC.id, { title: 'C free video', access: 'free', publishedAt: ago(5) })).id,
        aDraft: (await makeVideo(ctx, a, { title: 'A draft', status: 'draft', publishedAt: ago(1) })).id,
        aFuture: (await makePost(ctx, { title: 'A future post', performerId: a, authorId: a, publishedAt: new Date(Date.now() + 3_600_000).toISOString() })).id,
        aProcessing: (await makeVideo(ctx, a, { title: 'A processing', processingStatus: 'processing', publishedAt: ago(2) })).id,
        sitePost: (await makePost(ctx, { title: 'Site news', publishedAt: ago(3) })).id,
      };
      await entitle(ctx.db, feedFan.id, 'post', ids.bBoughtPost!);
    }, 60_000);

    const feedIds = ['aFree', 'bSubs', 'aSubs', 'aSalePost', 'bBoughtPost', 'aGallery', 'aFreePost'];

    it('holds the followed and subscribed performers\' public posts, videos and galleries, newest first, paged by cursor', async () => {
      const seen: string[] = [];
      let cursor: string | null | undefined;
      let pages = 0;
      do {
        const res = await call('GET', `/feed?limit=2${cursor ? `&cursor=${cursor}` : ''}`, feedFan);
        expect(res.status).toBe(200);
        // No total: it would count every item of everyone followed, on every page.
        expect(res.body).not.toHaveProperty('total');
        seen.push(...res.body.items.map((i: { _id: string }) => i._id));
        cursor = res.body.nextCursor;
        pages += 1;
      } while (cursor && pages < 10);
      expect(seen).toEqual(feedIds.map((k) => ids[k]));
      const all = await call('GET', '/feed?limit=50', feedFan);
      expect(all.body.items.map((i: { kind: string }) => i.kind)).toEqual(['video', 'video', 'video', 'post', 'post', 'gallery', 'post']);
      expect(all.body.nextCursor ?? null).toBeNull();
    });

    it('locks each item as the catalogue does, with the same URLs, and names no locked file', async () => {
      const feed = (await call('GET', '/feed?limit=50', feedFan)).body.items as Array<Record<string, any>>;
      const byId = new Map(feed.map((i) => [i._id, i]));
      const strip = (item: Record<string, any>) => ({ ...item, video: item.video ? { url: String(item.video.url).split('?')[0] } : null });
      for (const [key, id] of [['aFree', ids.aFree], ['aSubs', ids.aSubs], ['bSubs', ids.bSubs]] as const) {
        const catalogue = (await t.api(`/user/assets/videos/${id}`, { headers: feedFan.headers })).body;
        expect(strip(byId.get(id)!.video), key).toEqual(strip(catalogue));
      }
      expect(byId.get(ids.aSubs)!.video).toMatchObject({ locked: true, video: null });
      expect(byId.get(ids.bSubs)!.video.locked).toBe(false);
      expect(byId.get(ids.bSubs)!.video.video.url).toContain('/media/protected/video/');
      expect(byId.get(ids.aSalePost)!.post).toMatchObject({ locked: true, access: 'sale', price: 500 });
      expect(byId.get(ids.bBoughtPost)!.post).toMatchObject({ locked: false, access: 'sale', price: 300 });
      const catalogueGallery = (await t.api(`/user/assets/galleries/${ids.aGallery}/view`, { headers: feedFan.headers })).body;
      expect(byId.get(ids.aGallery)!.gallery).toEqual(catalogueGallery);
      expect(byId.get(ids.aGallery)!.gallery.locked).toBe(true);
      // Only the open videos' full files are signed (the free one, the subscribed one); nothing private is named otherwise.
      expect(signedItems(feed)).toEqual([ids.aFree, ids.bSubs]);
      expect(JSON.stringify(feed)).not.toContain('private/');
    });

    it('shows another fan nothing of this fan\'s subscriptions, and to a crawler following A only what A\'s public cards show', async () => {
      expect((await call('GET', '/feed', crawler)).body).toEqual({ items: [], nextCursor: null });
      await call('POST', `/performers/${perfA.id}/follow`, crawler);
      const res = await call('GET', '/feed?limit=50', crawler);
      const text = JSON.stringify(res.body);
      expect(res.body.items.map((i: { _id: string }) => i._id)).toEqual(['aFree', 'aSubs', 'aSalePost', 'aGallery', 'aFreePost'].map((k) => ids[k]));
      expect(text).not.toContain(ids.bSubs);
      expect(signedItems(res.body.items)).toEqual([ids.aFree]);
      expect(text).not.toContain('private/');
      for (const item of res.body.items) {
        const card = item.video ?? item.gallery ?? item.post;
        if (card.access !== 'free') expect(card.locked, item._id).toBe(true);
      }
      // Unfollowing empties it again.
      await call('DELETE', `/performers/${perfA.id}/follow`, crawler);
      expect((await call('GET', '/feed', crawler)).body).toEqual({ items: [], nextCursor: null });
    });

    it('pages the same newest-first feed for a fan who follows more performers than one merge takes (one walk instead)', async () => {
      const fan = await createUser(t.ctx.db, 'user');
      const many: TestUser[] = [];
      for (let i = 0; i <= FEED_MERGE_MAX; i++) many.push(await createUser(t.ctx.db, 'performer'));
      for (const p of [...many, perfA]) expect((await call('POST', `/performers/${p.id}/follow`, fan)).status).toBe(200);
      const first = many[0]!.id;
      const last = many.at(-1)!.id;
      const theirs = {
        firstVideo: (await makeVideo(t.ctx, first, { title: 'First of many', access: 'free', publishedAt: ago(12) })).id,
        lastPost: (await makePost(t.ctx, { title: 'Last of many', performerId: last, authorId: last, access: 'free', publishedAt: ago(25) })).id,
      };
      const expected = [ids.aFree, theirs.firstVideo, ids.aSubs, theirs.lastPost, ids.aSalePost, ids.aGallery, ids.aFreePost];
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await call('GET', `/feed?limit=3${cursor ? `&cursor=${cursor}` : ''}`, fan);
        expect(res.status).toBe(200);
        seen.push(...res.body.items.map((i: { _id: string }) => i._id));
        cursor = res.body.nextCursor;
      } while (cursor && seen.length < 20);
      expect(seen).toEqual(expected);
    });
  });

  describe('content/new', () => {
    it('reaches followers and subscribers once when a post is published, scheduled or not, and nobody else', async () => {
      const performer = await createUser(t.ctx.db, 'performer');
      const follower = await createUser(t.ctx.db, 'user');
      const subscriber = await createUser(t.ctx.db, 'user');
      const stranger = await createUser(t.ctx.db, 'user');
      await call('POST', `/performers/${performer.id}/follow`, follower);
      await subscribe(t.ctx.db, subscriber.id, performer.id);
      const [onFollower, onSubscriber, onStranger, onPerformer] = (await Promise.all([follower, subscriber, stranger, performer].map((u) => open(t.url, { token: u.token })))) as [TestSocket, TestSocket, TestSocket, TestSocket];
      const strangers = collect(onStranger, 'content/new');
      const own = collect(onPerformer, 'content/new');
      const followerGot = collect(onFollower, 'content/new');

      const heard = [nextEvent(onFollower, 'content/new'), nextEvent(onSubscriber, 'content/new')];
      const created = await postForm(t, '/performer/assets/posts', { fields: { title: 'Fresh news', content: 'Only for subscribers', visibility: 'subscribers' } }, { headers: performer.headers });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const postId = created.body._id;
      for (const payload of await Promise.all(heard)) {
        expect(Object.keys(payload).sort()).toEqual(['objectId', 'objectType', 'performerId', 'publishedAt']);
        expect(payload).toMatchObject({ objectType: 'post', objectId: postId, performerId: performer.id });
      }
      // An edit does not announce it again; a draft is not announced until it is published.
      expect((await t.api(`/performer/assets/posts/${postId}`, { method: 'PUT', headers: performer.headers, json: { title: 'Fresh news, edited' } })).status).toBe(200);
      const draft = await postForm(t, '/performer/assets/posts', { fields: { title: 'Later', content: 'Draft', status: 'draft' } }, { headers: performer.headers });
      expect(draft.status).toBe(201);
      await sleep(400);
      expect(followerGot.map((p) => p.objectId)).toEqual([postId]);
      const published = nextEvent(onFollower, 'content/new', (p) => p.objectId === draft.body._id);
      expect((await t.api(`/performer/assets/posts/${draft.body._id}`, { method: 'PUT', headers: performer.headers, json: { status: 'published' } })).status).toBe(200);
      await published;

      // Scheduled: announced when its time comes, not before.
      const at = new Date(Date.now() + 1500).toISOString();
      const scheduled = await postForm(t, '/performer/assets/posts', { fields: { title: 'Scheduled', content: 'Soon', publishedAt: at } }, { headers: performer.headers });
      expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(201);
      const onTime = await nextEvent(onFollower, 'content/new', (p) => p.objectId === scheduled.body._id, 8000);
      expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(at));
      expect(onTime.publishedAt).toBe(at);

      await sleep(200);
      expect(strangers).toEqual([]);
      expect(own).toEqual([]);
      expect(await t.ctx.db.selectFrom('contentAnnouncements').select('objectId').where('performerId', '=', performer.id).execute()).toHaveLength(3);
    }, 30_000);

    it('announces a video only once it is processed and public, and never an old item', async () => {
      const performer = await createUser(t.ctx.db, 'performer');
      const follower = await createUser(t.ctx.db, 'user');
      await call('POST', `/performers/${performer.id}/follow`, follower);
      const deps = { db: t.ctx.db, realtime: t.ctx.realtime, logger: t.ctx.logger };
      const video = await makeVideo(t.ctx, performer.id, { processingStatus: 'processing', publishedAt: ago(1), withFiles: false });
      expect(await announce(deps, { objectType: 'video', objectId: video.id })).toBeNull();
      await t.ctx.db.updateTable('videos').set({ processingStatus: 'ready' }).where('id', '=', video.id).execute();
      expect(await announce(deps, { objectType: 'video', objectId: video.id })).toBe(1);
      expect(await announce(deps, { objectType: 'video', objectId: video.id })).toBeNull();
      const old = await makeVideo(t.ctx, performer.id, { publishedAt: ago(3 * 24 * 60), withFiles: false });
      expect(await announce(deps, { objectType: 'video', objectId: old.id })).toBeNull();
      expect(await announce(deps, { objectType: 'video', objectId: 'no-such-video' })).toBeNull();
    });
  });
});

const redisUrl = process.env.REDIS_URL;
const pgUrl = process.env.DATABASE_URL;

describe.skipIf(!redisUrl || !pgUrl)('content/new across two instances (PostgreSQL + Redis)', () => {
  let a: TestApp;
  let b: Awaited<ReturnType<typeof startInstance>>;

  beforeAll(async () => {
    a = await startTestApp('postgres', { env: { REDIS_URL: redisUrl!, ...fastJobs } });
    b = await startInstance(a);
  });
  afterAll(async () => {
    await b?.built.close();
    await a?.close();
  });

  it('a post published through instance A reaches a follower connected to instance B', async () => {
    const performer = await createUser(a.ctx.db, 'performer');
    const follower = await createUser(a.ctx.db, 'user');
    expect((await a.api(`/performers/${performer.id}/follow`, { method: 'POST', headers: follower.headers })).status).toBe(200);
    const onB = await open(b.url, { token: follower.token });
    await sleep(200);
    const got = nextEvent(onB, 'content/new', () => true, 8000);
    const created = await postForm(a, '/performer/assets/posts', { fields: { title: 'Across', content: 'Hello B' } }, { headers: performer.headers });
    expect(created.status).toBe(201);
    expect((await got).objectId).toBe(created.body._id);
    // And the feed read through B shows it.
    const feed = await fetch(`${b.url}/api/feed`, { headers: follower.headers }).then((r) => r.json());
    expect(feed.items[0]).toMatchObject({ kind: 'post', _id: created.body._id });
  });
});
