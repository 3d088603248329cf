import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { buildCatalogue, type Catalogue } from '../helpers/catalogue-fixture.js';
import { recordingClient } from '../helpers/api-calls.js';
import { entitle, subscribe } from '../../server/seed/factories.js';
import { newId, nowIso } from '../../server/db/ids.js';
import { createUser } from '../helpers/sessions.js';

interface Card {
  _id: string;
  locked: boolean;
  video: { url: string } | null;
  performer: { name: string } | null;
}

/**
 * The display cache (server/catalogue/display-cache.ts) on, as deployed: cards' performer names and files are shared
 * across requests for PAGE_CACHE_MS, and nothing an access decision reads is. A fan's subscription, purchase or lapse
 * and a performer hiding a video take effect on the very next request.
 */
describe.each(engines)('display cache on %s', (engine) => {
  let t: TestApp;
  let c: Catalogue;
  const { get, serverErrors } = recordingClient(() => t);
  const cards = async (who: Catalogue['fan']): Promise<Map<string, Card>> => {
    const res = await get(`/user/assets/videos/search?performerId=${c.alice.id}&limit=50`, who);
    expect(res.status).toBe(200);
    return new Map((res.body as { items: Card[] }).items.map((i) => [i._id, i]));
  };

  beforeAll(async () => {
    // A minute: long enough that nothing expires during the test, so what is kept shows.
    t = await startTestApp(engine, { config: { pageCacheMs: 60_000 } });
    c = await buildCatalogue(t.ctx);
  });
  afterAll(async () => {
    expect(serverErrors).toEqual([]);
    await t?.close();
  });

  it("keeps what cards show: a performer's new name reaches signed-in lists only when the entry expires", async () => {
    expect((await cards(c.fan)).get(c.videos.free.id)?.performer?.name).toBe('Alice Stone');
    await t.ctx.db.updateTable('performers').set({ displayName: 'Alice Renamed' }).where('id', '=', c.alice.id).execute();
    // The other fan's request is answered from the same entry: it is shared, not per viewer.
    expect((await cards(c.subscriber)).get(c.videos.free.id)?.performer?.name).toBe('Alice Stone');
  });

  it("keeps a gallery's cover like the other card reads, for every viewer alike, and never the gallery's access", async () => {
    const galleries = async (who: Catalogue['fan']) => {
      const res = await get(`/user/assets/galleries/search?performerId=${c.alice.id}&limit=50`, who);
      expect(res.status).toBe(200);
      return new Map((res.body as { items: Array<{ _id: string; cover: string | null; locked: boolean }> }).items.map((i) => [i._id, i]));
    };
    const before = (await galleries(c.fan)).get(c.galleries.subs.id)!;
    expect(before.cover).toMatch(/^\/media\//);
    expect(before.locked).toBe(true);
    // Another photo's thumbnail as the cover's: the shared entry still answers, to the subscriber too, whose card opens.
    const [cover, other] = c.galleries.subs.photos;
    const otherThumb = await t.ctx.db.selectFrom('photos').select('thumbnailFileId').where('id', '=', other!.id).executeTakeFirstOrThrow();
    await t.ctx.db.updateTable('photos').set({ thumbnailFileId: otherThumb.thumbnailFileId }).where('id', '=', cover!.id).execute();
    const subscriber = (await galleries(c.subscriber)).get(c.galleries.subs.id)!;
    expect(subscriber).toMatchObject({ cover: before.cover, locked: false });
  });

  it("keeps the site's packages an offer shows, while the checkout charges the package's price of the moment", async () => {
    // Alice sets a monthly price only: her yearly plan is priced at the site's yearly package.
    const at = nowIso();
    const id = newId();
    const yearlyOffered = async () => {
      const res = await get(`/users/me/header?performer=${c.alice.id}`, c.fan);
      expect(res.status).toBe(200);
      return (res.body as { performer: { offer: { yearly: number | null } } }).performer.offer.yearly;
    };
    // Read once before the package exists: the kept answer is "no yearly plan" until the entry expires.
    expect(await yearlyOffered()).toBeNull();
    await t.ctx.db.insertInto('subscriptionPackages').values({ id, name: 'Site yearly', description: null, type: 'yearly', price: 8999, durationDays: 365, createdAt: at, updatedAt: at }).execute();
    try {
      expect(await yearlyOffered()).toBeNull();
      // A fan of their own: the checkout leaves a pending subscription row behind.
      const buyer = await createUser(t.ctx.db, 'user', { username: 'yearly_buyer' });
      const res = await t.api('/payment/subscribe', { method: 'POST', headers: buyer.headers, json: { performerId: c.alice.id, type: 'yearly' } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ amount: 8999 });
    } finally {
      await t.ctx.db.deleteFrom('subscriptionPackages').where('id', '=', id).execute();
    }
  });

  it('never keeps access: a subscription and a purchase open their videos on the next request, a lapse closes them', async () => {
    const before = await cards(c.fan);
    expect(before.get(c.videos.subs.id)).toMatchObject({ locked: true, video: null });
    expect(before.get(c.videos.sale.id)).toMatchObject({ locked: true, video: null });

    await subscribe(t.ctx.db, c.fan.id, c.alice.id);
    await entitle(t.ctx.db, c.fan.id, 'video', c.videos.sale.id);
    const open = await cards(c.fan);
    expect(open.get(c.videos.subs.id)?.locked).toBe(false);
    expect(open.get(c.videos.subs.id)?.video?.url).toMatch(/^\/media\//);
    expect(open.get(c.videos.sale.id)?.locked).toBe(false);

    await t.ctx.db.updateTable('subscriptions').set({ expiresAt: nowIso() }).where('userId', '=', c.fan.id).execute();
    await t.ctx.db.updateTable('entitlements').set({ revokedAt: nowIso() }).where('userId', '=', c.fan.id).execute();
    const closed = await cards(c.fan);
    expect(closed.get(c.videos.subs.id)).toMatchObject({ locked: true, video: null });
    expect(closed.get(c.videos.sale.id)).toMatchObject({ locked: true, video: null });
  });

  it('never keeps the items themselves: a video the performer hides is gone from the next list and its page', async () => {
    expect((await cards(c.subscriber)).has(c.videos.free.id)).toBe(true);
    await t.ctx.db.updateTable('videos').set({ status: 'hidden' }).where('id', '=', c.videos.free.id).execute();
    expect((await cards(c.subscriber)).has(c.videos.free.id)).toBe(false);
    expect((await get(`/user/assets/videos/${c.videos.free.id}`, c.subscriber)).status).toBe(404);
  });
});
