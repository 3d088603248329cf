import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { bearer, buildEngagement, manyUsers, type Engagement, recordingCaller, deletePostBeforeNextWrite } from '../helpers/engagement-fixture.js';
import { makeGallery, makePost, makeVideo, subscribe } from '../../server/seed/factories.js';
import { countReactions } from '../../server/reactions/reactions.repository.js';
import { reactionCounts } from '../../server/reactions/reactions.service.js';
import { readCounter } from '../../server/reactions/targets.repository.js';

/**
 * The reaction rules at their edges, over real HTTP on every engine: the exact refusals, an admin on the site's own
 * draft posts, the object deleted between the check and the insert, what is pushed to the object's room (a real
 * change of a count, nothing else), the count answered when others still react or the object is gone, the lists
 * seen as the signed-in viewer (a subscriber's items open), and the counts of the discussion page.
 */

const redisEnv: Record<string, string> = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};

type Emitted = { objectType: string; objectId: string; event: string; payload: any };

describe.each(engines)('reaction rules on %s', (engine) => {
  let t: TestApp;
  let e: Engagement;
  const serverErrors: string[] = [];

  const call = recordingCaller(() => t, serverErrors);
  const react = (who: { token: string }, body: unknown) => call('POST', '/reactions', who, body);
  const unreact = (who: { token: string }, body: unknown) => call('DELETE', '/reactions', who, body);

  /** Runs `fn` while recording what is pushed to object rooms (still delivered). */
  async function capturingObjectEvents<T>(fn: () => Promise<T>): Promise<{ result: T; emitted: Emitted[] }> {
    const hub = t.ctx.realtime;
    const original = hub.emitToObject;
    const emitted: Emitted[] = [];
    hub.emitToObject = ((objectType: string, objectId: string, event: string, payload: unknown) => {
      emitted.push({ objectType, objectId, event, payload });
      return original.call(hub, objectType as never, objectId, event as never, payload as never);
    }) as typeof hub.emitToObject;
    try {
      return { result: await fn(), emitted };
    } finally {
      hub.emitToObject = original;
    }
  }


  /**
   * The next lookup of one `table` row by id or slug (a list loading its items) first runs `before`: something happens
   * between the list query and the loading of its items. Caught at the executor, by its SQL, so that a lookup built
   * by Kysely on every call and one compiled once (server/db/prepared.ts) are both caught.
   */
  function beforeNextLookup(table: 'videos' | 'galleries', before: () => Promise<void>): void {
    const executor = t.ctx.db.getExecutor() as unknown as { executeQuery(query: { sql: string }, ...rest: unknown[]): Promise<unknown> };
    const original = executor.executeQuery;
    const lookup = new RegExp(`from "${table}" where "${table}"\\."id" = coalesce\\(`);
    executor.executeQuery = async function (query, ...rest) {
      if (lookup.test(query.sql)) {
        executor.executeQuery = original;
        await before();
      }
      return original.call(this, query, ...rest);
    };
  }

  beforeAll(async () => {
    t = await startTestApp(engine, { env: redisEnv });
    e = await buildEngagement(t.ctx);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('an action an object type does not take is refused with a message naming the types it applies to', async () => {
    const [u] = await manyUsers(t.ctx.db, 1);
    const body = { objectType: 'product', objectId: e.product.id, action: 'watch_later' };
    for (const res of [await react(u!, body), await unreact(u!, body)]) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'BAD_REQUEST', message: '"watch_later" is not available for a product; it applies to: video, gallery' });
    }
    const performer = await react(u!, { objectType: 'performer', objectId: e.star.id, action: 'watch-later' });
    expect(performer.body.message).toBe('"watch_later" is not available for a performer; it applies to: video, gallery');
  });

  it('an object the user may not see is "Content not found"; an admin reacts to the site’s own draft post, a fan does not', async () => {
    const [u] = await manyUsers(t.ctx.db, 1);
    const draft = await makePost(t.ctx, { title: 'Site draft', performerId: null, status: 'draft', imageFileId: null });
    const body = { objectType: 'post', objectId: draft.id, action: 'like' };
    for (const res of [await react(u!, body), await react(e.star, body), await react(u!, { objectType: 'video', objectId: 'nope', action: 'like' })]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: 'Content not found' });
    }
    const admin = await react(e.admin, body);
    expect(admin.status).toBe(200);
    expect(admin.body).toEqual({ objectType: 'post', objectId: draft.id, action: 'like', reacted: true, changed: true, count: 1 });
    expect(await countReactions(t.ctx.db, 'post', draft.id, 'like')).toBe(1);
  });

  it('an object deleted between the check and the insert takes no reaction: 404, no row, nothing pushed', async () => {
    const [u] = await manyUsers(t.ctx.db, 1);
    const target = await makePost(t.ctx, { title: 'Vanishing', imageFileId: null });
    deletePostBeforeNextWrite(t.ctx.db, target.id);
    const { result: res, emitted } = await capturingObjectEvents(() => react(u!, { objectType: 'post', objectId: target.id, action: 'favourite' }));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: 'Content not found' });
    expect(await countReactions(t.ctx.db, 'post', target.id, 'favourite')).toBe(0);
    expect(emitted).toEqual([]);
  });

  it('pushes reaction/count to the object’s room only when a like or favourite count really changed', async () => {
    const [a, b] = await manyUsers(t.ctx.db, 2);
    const video = await makeVideo(t.ctx, e.star.id, { title: 'Counted', withFiles: false });
    const like = { objectType: 'video', objectId: video.id, action: 'like' };
    const fav = { objectType: 'video', objectId: video.id, action: 'favourite' };
    const later = { objectType: 'video', objectId: video.id, action: 'watch_later' };
    const { result, emitted } = await capturingObjectEvents(async () => [
      await react(a!, like),
      await react(b!, like),
      await react(a!, like), // again: no change
      await react(a!, fav),
      await react(a!, later), // no counter
      await react(a!, later),
      await unreact(a!, later),
      await unreact(a!, later),
      await unreact(a!, like), // b still likes it
      await unreact(a!, like), // again: no change
    ]);
    expect(result.map((r) => [r.status, r.body.changed, r.body.count])).toEqual([
      [200, true, 1],
      [200, true, 2],
      [200, false, 2],
      [200, true, 1],
      [200, true, null],
      [200, false, null],
      [200, true, null],
      [200, false, null],
      [200, true, 1],
      [200, false, 1],
    ]);
    const ref = { objectType: 'video', objectId: video.id };
    expect(emitted).toEqual([
      { ...ref, event: 'reaction/count', payload: { ...ref, action: 'like', count: 1 } },
      { ...ref, event: 'reaction/count', payload: { ...ref, action: 'like', count: 2 } },
      { ...ref, event: 'reaction/count', payload: { ...ref, action: 'favourite', count: 1 } },
      { ...ref, event: 'reaction/count', payload: { ...ref, action: 'like', count: 1 } },
    ]);
    expect(await readCounter(t.ctx.db, 'video', video.id, 'like')).toBe(1);
  });

  it('a reaction to an object that is gone can still be taken back: its row goes, the answer counts 0', async () => {
    const [u] = await manyUsers(t.ctx.db, 1);
    const target = await makePost(t.ctx, { title: 'Soon gone', imageFileId: null });
    const body = { objectType: 'post', objectId: target.id, action: 'like' };
    expect((await react(u!, body)).body.count).toBe(1);
    await t.ctx.db.deleteFrom('posts').where('id', '=', target.id).execute();
    const { result: res, emitted } = await capturingObjectEvents(() => unreact(u!, body));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ objectType: 'post', objectId: target.id, action: 'like', reacted: false, changed: true, count: 0 });
    expect(emitted).toEqual([{ objectType: 'post', objectId: target.id, event: 'reaction/count', payload: { objectType: 'post', objectId: target.id, action: 'like', count: 0 } }]);
    expect(await countReactions(t.ctx.db, 'post', target.id, 'like')).toBe(0);
    const again = await unreact(u!, body);
    expect(again.body).toEqual({ objectType: 'post', objectId: target.id, action: 'like', reacted: false, changed: false, count: 0 });
  });

  it('a subscriber’s favourite and watch-later lists show subscriber-only videos and galleries open', async () => {
    const [u] = await manyUsers(t.ctx.db, 1);
    await subscribe(t.ctx.db, u!.id, e.star.id);
    const gallery = await makeGallery(t.ctx, e.star.id, { title: 'Members gallery', access: 'subscribers', photos: 1 });
    expect((await react(u!, { objectType: 'video', objectId: e.subsVideo.id, action: 'favourite' })).status).toBe(200);
    expect((await react(u!, { objectType: 'gallery', objectId: gallery.id, action: 'watch_later' })).status).toBe(200);
    const videos = await call('GET', '/reactions/videos', u);
    expect(videos.body.total).toBe(1);
    expect(videos.body.items[0]).toMatchObject({ action: 'favourite', objectId: e.subsVideo.id, video: { _id: e.subsVideo.id, locked: false } });
    const galleries = await call('GET', '/reactions/galleries?action=watch_later', u);
    expect(galleries.body.total).toBe(1);
    expect(galleries.body.items[0]).toMatchObject({ action: 'watch_later', objectId: gallery.id, gallery: { _id: gallery.id, locked: false } });
    // The same lists of a fan without the subscription show them locked.
    const [fan] = await manyUsers(t.ctx.db, 1);
    await react(fan!, { objectType: 'video', objectId: e.subsVideo.id, action: 'favourite' });
    expect((await call('GET', '/reactions/videos', fan)).body.items[0].video.locked).toBe(true);
  });

  it('the discussion page’s counts are the object’s like and favourite counters, 0 for an object that does not exist', async () => {
    const users = await manyUsers(t.ctx.db, 3);
    const video = await makeVideo(t.ctx, e.other.id, { title: 'Counted on the page', withFiles: false });
    for (const u of users) await react(u, { objectType: 'video', objectId: video.id, action: 'like' });
    await react(users[0]!, { objectType: 'video', objectId: video.id, action: 'favourite' });
    expect(await reactionCounts(t.ctx.db, 'video', video.id)).toEqual({ like: 3, favourite: 1 });
    expect(await reactionCounts(t.ctx.db, 'video', 'does-not-exist')).toEqual({ like: 0, favourite: 0 });
  });

  it('a video or gallery hidden between the list query and the loading of its item is left out of the page; the others stay', async () => {
    const [u] = await manyUsers(t.ctx.db, 1);
    const kept = await makeVideo(t.ctx, e.star.id, { title: 'Stays', withFiles: false });
    const hidden = await makeVideo(t.ctx, e.star.id, { title: 'Hidden meanwhile', withFiles: false });
    await react(u!, { objectType: 'video', objectId: kept.id, action: 'favourite' });
    await react(u!, { objectType: 'video', objectId: hidden.id, action: 'favourite' });
    // The newest reaction's item is loaded first: it is hidden just before.
    beforeNextLookup('videos', async () => {
      await t.ctx.db.updateTable('videos').set({ status: 'hidden' }).where('id', '=', hidden.id).execute();
    });
    const videos = await call('GET', '/reactions/videos', u);
    expect(videos.status).toBe(200);
    expect(videos.body.total).toBe(2);
    expect(videos.body.items).toHaveLength(1);
    expect(videos.body.items[0]).toMatchObject({ action: 'favourite', objectId: kept.id, video: { _id: kept.id, title: 'Stays' } });

    const keptGallery = await makeGallery(t.ctx, e.star.id, { title: 'Gallery stays', photos: 0 });
    const hiddenGallery = await makeGallery(t.ctx, e.star.id, { title: 'Gallery hidden meanwhile', photos: 0 });
    await react(u!, { objectType: 'gallery', objectId: keptGallery.id, action: 'watch_later' });
    await react(u!, { objectType: 'gallery', objectId: hiddenGallery.id, action: 'watch_later' });
    beforeNextLookup('galleries', async () => {
      await t.ctx.db.updateTable('galleries').set({ status: 'hidden' }).where('id', '=', hiddenGallery.id).execute();
    });
    const galleries = await call('GET', '/reactions/galleries?action=watch_later', u);
    expect(galleries.status).toBe(200);
    expect(galleries.body.items).toHaveLength(1);
    expect(galleries.body.items[0]).toMatchObject({ action: 'watch_later', objectId: keptGallery.id, gallery: { _id: keptGallery.id, title: 'Gallery stays' } });
  });

  it('an item that fails to load for another reason than being hidden fails the list (500), it is not silently dropped', async () => {
    const [u] = await manyUsers(t.ctx.db, 1);
    const video = await makeVideo(t.ctx, e.star.id, { title: 'Unloadable', withFiles: false });
    await react(u!, { objectType: 'video', objectId: video.id, action: 'favourite' });
    beforeNextLookup('videos', async () => {
      throw new Error('the database went away');
    });
    const res = await t.api('/reactions/videos', { headers: bearer(u!) });
    expect(res.status).toBe(500);
    expect((await call('GET', '/reactions/videos', u)).body.items.map((i: { objectId: string }) => i.objectId)).toEqual([video.id]);
  });

  it('never answered 5xx', () => {
    expect(serverErrors).toEqual([]);
  });
});
