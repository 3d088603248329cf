import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { bearer, buildEngagement, manyUsers, type Engagement, recordingCaller } from '../helpers/engagement-fixture.js';
import { makeGallery, makeVideo } from '../../server/seed/factories.js';
import { countReactions } from '../../server/reactions/reactions.repository.js';
import { readCounter } from '../../server/reactions/targets.repository.js';
import { ENGAGEMENT_OBJECT_TYPES, type EngagementObjectType, type ReactionAction } from '../../common/enums.js';

/**
 * Reactions over real HTTP on every engine: like / favourite / watch later, idempotent add and remove,
 * counters on the content rows exact after 200 concurrent requests and toggles, the user's reaction
 * search and favourite / watch-later lists, validation, and no 5xx anywhere.
 */

const redisEnv: Record<string, string> = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};

describe.each(engines)('reactions API on %s', (engine) => {
  let t: TestApp;
  let e: Engagement;
  const serverErrors: string[] = [];

  const call = recordingCaller(() => t, serverErrors);
  const react = (who: { token: string } | null, body: unknown) => call('POST', '/reactions', who, body);
  const unreact = (who: { token: string } | null, body: unknown) => call('DELETE', '/reactions', who, body);
  const counter = (type: EngagementObjectType, id: string, action: 'like' | 'favourite') => readCounter(t.ctx.db, type, id, action);
  /** The counter equals the number of rows: what "exact" means. */
  async function expectExact(type: EngagementObjectType, id: string, action: 'like' | 'favourite', expected?: number) {
    const rows = await countReactions(t.ctx.db, type, id, action);
    expect(await counter(type, id, action)).toBe(rows);
    if (expected !== undefined) expect(rows).toBe(expected);
  }

  beforeAll(async () => {
    t = await startTestApp(engine, { env: redisEnv });
    e = await buildEngagement(t.ctx);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('likes a video; liking again changes nothing; unliking twice is safe', async () => {
    const body = { objectType: 'video', objectId: e.video.id, action: 'like' };
    const first = await react(e.fan, body);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ objectType: 'video', objectId: e.video.id, action: 'like', reacted: true, changed: true, count: 1 });
    const again = await react(e.fan, body);
    expect(again.body).toMatchObject({ reacted: true, changed: false, count: 1 });
    await expectExact('video', e.video.id, 'like', 1);
    // The catalogue shows the count.
    expect((await call('GET', `/user/assets/videos/${e.video.id}`)).body.stats.likes).toBe(1);

    const off = await unreact(e.fan, body);
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ reacted: false, changed: true, count: 0 });
    const offAgain = await unreact(e.fan, body);
    expect(offAgain.body).toMatchObject({ reacted: false, changed: false, count: 0 });
    await expectExact('video', e.video.id, 'like', 0);
  });

  it('accepts the documented spellings and answers the canonical ones', async () => {
    const fav = await react(e.fan, { objectType: 'gallery', objectId: e.gallery.id, action: 'favorite' });
    expect(fav.status).toBe(200);
    expect(fav.body).toMatchObject({ action: 'favourite', changed: true, count: 1 });
    for (const spelling of ['watch-later', 'watchLater', 'watch_later']) {
      const res = await react(e.fan, { objectType: 'video', objectId: e.video.id, action: spelling });
      expect(res.status, spelling).toBe(200);
      expect(res.body).toMatchObject({ action: 'watch_later', reacted: true, count: null });
    }
    expect(await countReactions(t.ctx.db, 'video', e.video.id, 'watch_later')).toBe(1);
  });

  it('DELETE takes the reaction as query parameters too', async () => {
    await react(e.friend, { objectType: 'product', objectId: e.product.id, action: 'like' });
    const res = await t.api(`/reactions?objectType=product&objectId=${e.product.id}&action=like`, { method: 'DELETE', headers: bearer(e.friend) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ changed: true, reacted: false, count: 0 });
    const missing = await t.api('/reactions?objectType=product', { method: 'DELETE', headers: bearer(e.friend) });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('VALIDATION_FAILED');
  });

  it('counts likes and favourites on every object type', async () => {
    for (const type of ENGAGEMENT_OBJECT_TYPES) {
      for (const action of ['like', 'favourite'] as const) {
        const id = e.objects[type];
        const before = (await counter(type, id, action))!;
        const res = await react(e.friend, { objectType: type, objectId: id, action });
        expect(res.status, `${type} ${action}`).toBe(200);
        expect(res.body.count).toBe(before + 1);
        await expectExact(type, id, action);
      }
    }
    const performer = await call('GET', `/performers/${e.star.id}`);
    expect(performer.body.likeCount).toBe(await counter('performer', e.star.id, 'like'));
  });

  it('validates input and permissions', async () => {
    const ok = { objectType: 'video', objectId: e.video.id, action: 'like' };
    expect((await react(null, ok)).status).toBe(401);
    expect((await unreact(null, ok)).status).toBe(401);
    const bad: Array<[unknown, number]> = [
      [{ ...ok, action: 'love' }, 400],
      [{ ...ok, action: '' }, 400],
      [{ ...ok, objectType: 'photo' }, 400],
      [{ ...ok, objectType: 'comment' }, 400],
      [{ ...ok, objectId: "1' or '1'='1" }, 400],
      [{ ...ok, objectId: undefined }, 400],
      [{ objectType: 'product', objectId: e.product.id, action: 'watch_later' }, 400],
      [{ objectType: 'performer', objectId: e.star.id, action: 'watch_later' }, 400],
      [{ ...ok, objectId: 'does-not-exist' }, 404],
      [{ ...ok, objectType: 'gallery' }, 404],
      [{ ...ok, objectId: e.draft.id }, 404],
      [{ objectType: 'gallery', objectId: e.draftGallery.id, action: 'favourite' }, 404],
    ];
    for (const [body, status] of bad) {
      const res = await react(e.fan, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
    }
    expect((await unreact(e.fan, { ...ok, action: 'love' })).status).toBe(400);
    // The performer may react to their own draft; nobody's counter moved by the refusals.
    expect((await react(e.star, { ...ok, objectId: e.draft.id })).status).toBe(200);
    await expectExact('video', e.draft.id, 'like', 1);
  });

  it('searches the user’s reactions by type, action and ids', async () => {
    const [u] = await manyUsers(t.ctx.db, 1);
    await react(u!, { objectType: 'video', objectId: e.video.id, action: 'like' });
    await react(u!, { objectType: 'video', objectId: e.otherVideo.id, action: 'like' });
    await react(u!, { objectType: 'video', objectId: e.video.id, action: 'favourite' });
    await react(u!, { objectType: 'post', objectId: e.post.id, action: 'like' });
    const all = await call('GET', '/reactions/search', u);
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(4);
    expect(all.body.items[0]).toMatchObject({ objectType: 'post', objectId: e.post.id, action: 'like' });
    const likedVideos = await call('GET', '/reactions/search?objectType=video&action=like', u);
    expect(likedVideos.body.items.map((r: { objectId: string }) => r.objectId).sort()).toEqual([e.video.id, e.otherVideo.id].sort());
    const onPage = await call('GET', `/reactions/search?objectIds=${e.video.id},${e.subsVideo.id}`, u);
    expect(onPage.body.items.map((r: { action: ReactionAction }) => r.action).sort()).toEqual(['favourite', 'like']);
    const repeated = await call('GET', `/reactions/search?objectIds=${e.post.id}&objectIds=${e.otherVideo.id}&action=like`, u);
    expect(repeated.body.total).toBe(2);
    expect((await call('GET', '/reactions/search?limit=1&offset=1', u)).body.items).toHaveLength(1);
    // Other users' reactions are not visible.
    expect((await call('GET', '/reactions/search', e.other)).body.total).toBe(0);
    expect((await call('GET', '/reactions/search')).status).toBe(401);
    expect((await call('GET', '/reactions/search?action=love', u)).status).toBe(400);
    expect((await call('GET', `/reactions/search?objectIds=${'a,'.repeat(101)}a`, u)).status).toBe(400);
  });

  it('lists favourite and watch-later videos and galleries with the items; hidden ones drop out', async () => {
    const [u] = await manyUsers(t.ctx.db, 1);
    const later = await makeVideo(t.ctx, e.star.id, { title: 'Later video', access: 'subscribers', withFiles: false });
    const soonHidden = await makeVideo(t.ctx, e.star.id, { title: 'Soon hidden', withFiles: false });
    const gallery = await makeGallery(t.ctx, e.star.id, { title: 'Fav gallery', photos: 1 });
    await react(u!, { objectType: 'video', objectId: e.video.id, action: 'favourite' });
    await react(u!, { objectType: 'video', objectId: later.id, action: 'watch_later' });
    await react(u!, { objectType: 'video', objectId: soonHidden.id, action: 'watch_later' });
    await react(u!, { objectType: 'gallery', objectId: gallery.id, action: 'favourite' });
    await react(u!, { objectType: 'gallery', objectId: e.gallery.id, action: 'watch_later' });

    const favVideos = await call('GET', '/reactions/videos', u);
    expect(favVideos.status).toBe(200);
    expect(favVideos.body.total).toBe(1);
    expect(favVideos.body.items[0]).toMatchObject({ action: 'favourite', objectId: e.video.id, video: { _id: e.video.id, title: 'Public video', locked: false } });

    await t.ctx.db.updateTable('videos').set({ status: 'hidden' }).where('id', '=', soonHidden.id).execute();
    const laterVideos = await call('GET', '/reactions/videos?action=watch_later', u);
    expect(laterVideos.body.total).toBe(1);
    expect(laterVideos.body.items[0]).toMatchObject({ objectId: later.id, video: { _id: later.id, locked: true, video: null } });
    // The hidden one can still be taken off the list.
    expect((await unreact(u!, { objectType: 'video', objectId: soonHidden.id, action: 'watch_later' })).body.changed).toBe(true);

    const favGalleries = await call('GET', '/reactions/galleries?action=favorite', u);
    expect(favGalleries.body.items.map((i: { gallery: { _id: string } }) => i.gallery._id)).toEqual([gallery.id]);
    const laterGalleries = await call('GET', '/reactions/galleries?action=watch-later', u);
    expect(laterGalleries.body.items.map((i: { objectId: string }) => i.objectId)).toEqual([e.gallery.id]);
    expect((await call('GET', '/reactions/galleries?action=like', u)).status).toBe(400);
    expect((await call('GET', '/reactions/videos')).status).toBe(401);
    expect((await call('GET', '/reactions/videos?limit=0', u)).status).toBe(400);
  });

  it('keeps counters exact under 200 concurrent likes by 200 users, then 200 concurrent unlikes', async () => {
    const users = await manyUsers(t.ctx.db, 200);
    const target = await makeVideo(t.ctx, e.other.id, { title: 'Viral', withFiles: false });
    const body = { objectType: 'video', objectId: target.id, action: 'like' };
    const likes = await Promise.all(users.map((u) => react(u, body)));
    expect(likes.every((r) => r.status === 200 && r.body.changed)).toBe(true);
    await expectExact('video', target.id, 'like', 200);
    expect(Math.max(...likes.map((r) => r.body.count))).toBe(200);
    const unlikes = await Promise.all(users.map((u) => unreact(u, body)));
    expect(unlikes.every((r) => r.status === 200 && r.body.changed)).toBe(true);
    await expectExact('video', target.id, 'like', 0);
  }, 60_000);

  it('keeps counters exact under 200 concurrent toggles (same users, same object, adds and removes interleaved)', async () => {
    const users = await manyUsers(t.ctx.db, 20);
    const target = await makeGallery(t.ctx, e.other.id, { title: 'Toggled', photos: 0 });
    const requests = Array.from({ length: 200 }, (_, i) => {
      const u = users[i % users.length]!;
      const body = { objectType: 'gallery', objectId: target.id, action: i % 3 === 0 ? 'like' : 'favourite' };
      return (i * 7) % 2 === 0 ? react(u, body) : unreact(u, body);
    });
    const results = await Promise.all(requests);
    expect(results.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    await expectExact('gallery', target.id, 'like');
    await expectExact('gallery', target.id, 'favourite');
    // The same user firing 50 identical likes at once: one row, counter 1.
    const [solo] = await manyUsers(t.ctx.db, 1);
    const video = await makeVideo(t.ctx, e.other.id, { title: 'Once', withFiles: false });
    const same = await Promise.all(Array.from({ length: 50 }, () => react(solo!, { objectType: 'video', objectId: video.id, action: 'like' })));
    expect(same.filter((r) => r.body.changed)).toHaveLength(1);
    await expectExact('video', video.id, 'like', 1);
    const sameOff = await Promise.all(Array.from({ length: 50 }, () => unreact(solo!, { objectType: 'video', objectId: video.id, action: 'like' })));
    expect(sameOff.filter((r) => r.body.changed)).toHaveLength(1);
    await expectExact('video', video.id, 'like', 0);
  }, 60_000);

  it('never answered 5xx', () => {
    expect(serverErrors).toEqual([]);
  });
});
