import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { buildCatalogue, type Catalogue } from '../helpers/catalogue-fixture.js';
import { recordingClient } from '../helpers/api-calls.js';
import { encodeCursor } from '../../server/http/pagination.js';

const ids = (body: { items: Array<{ _id: string }> }) => body.items.map((i) => i._id);

describe.each(engines)('catalogue API on %s', (engine) => {
  let t: TestApp;
  let c: Catalogue;
  const { get, serverErrors } = recordingClient(() => t);

  beforeAll(async () => {
    t = await startTestApp(engine);
    c = await buildCatalogue(t.ctx);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Follows nextCursor until the end and returns every id seen. */
  async function walk(path: string, limit: number): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null | undefined;
    for (let i = 0; i < 50; i++) {
      const sep = path.includes('?') ? '&' : '?';
      const res = await get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...ids(res.body));
      cursor = res.body.nextCursor;
      if (!cursor) return seen;
    }
    throw new Error('cursor paging did not end');
  }

  describe('GET /user/assets/videos/search', () => {
    it('lists only public videos of active performers, newest first', async () => {
      const res = await get('/user/assets/videos/search');
      expect(res.status).toBe(200);
      const v = c.videos;
      expect(ids(res.body)).toEqual([v.bobFree.id, v.bobSale.id, v.sale.id, v.subs.id, v.free.id]);
      expect(res.body.total).toBe(5);
      expect(res.body.nextCursor).toBeNull();
    });

    it('sorts by popularity and by price', async () => {
      const v = c.videos;
      expect(ids((await get('/user/assets/videos/search?sort=popular')).body)).toEqual([v.bobFree.id, v.free.id, v.subs.id, v.sale.id, v.bobSale.id]);
      const byPrice = (await get('/user/assets/videos/search?sort=price')).body.items.map((i: { price: number }) => i.price);
      expect(byPrice).toEqual([0, 0, 0, 499, 1299]);
    });

    it('filters by performer, tag (any case), category and keyword', async () => {
      const v = c.videos;
      const alice = await get(`/user/assets/videos/search?performerId=${c.alice.id}`);
      expect(ids(alice.body)).toEqual([v.sale.id, v.subs.id, v.free.id]);
      expect(alice.body.total).toBe(3);
      expect(new Set(ids((await get('/user/assets/videos/search?tag=YOGA')).body))).toEqual(new Set([v.free.id, v.subs.id, v.bobFree.id]));
      expect(ids((await get(`/user/assets/videos/search?categoryId=${c.categories.tutorials.id}`)).body)).toEqual([v.sale.id, v.free.id]);
      expect(ids((await get('/user/assets/videos/search?q=FLOW')).body)).toEqual([v.free.id]);
      expect((await get(`/user/assets/videos/search?q=${encodeURIComponent('%')}`)).body.total).toBe(0);
      expect((await get('/user/assets/videos/search?performerId=nobody')).body).toEqual({ items: [], total: 0, nextCursor: null });
    });

    it('pages with limit/offset and with a cursor, without overlap', async () => {
      const page = await get('/user/assets/videos/search?limit=2&offset=1');
      expect(ids(page.body)).toEqual([c.videos.bobSale.id, c.videos.sale.id]);
      expect(page.body.total).toBe(5);
      for (const sort of ['newest', 'popular', 'price']) {
        const all = ids((await get(`/user/assets/videos/search?sort=${sort}`)).body);
        expect(await walk(`/user/assets/videos/search?sort=${sort}`, 2)).toEqual(all);
      }
    });

    it('shows previews and price on every item, and the full video only when unlocked', async () => {
      const res = await get('/user/assets/videos/search');
      for (const item of res.body.items) {
        expect(item.thumbnail).toMatch(/^\/media\/public\/videos\/thumbs\//);
        expect(item.teaser).toMatch(/^\/media\/public\/videos\/teasers\//);
        expect(item.poster).toMatch(/^\/media\/public\/videos\/posters\//);
        expect(item.performer).toMatchObject({ username: expect.any(String), name: expect.any(String) });
        expect(item.locked).toBe(item.access !== 'free');
        if (item.locked) expect(item.video).toBeNull();
        else expect(item.video.url).toMatch(/^\/media\/protected\/video\//);
      }
      const sale = res.body.items.find((i: { _id: string }) => i._id === c.videos.sale.id);
      expect(sale).toMatchObject({ access: 'sale', isSale: true, price: 1299, locked: true, video: null, tags: ['stretch'] });
      // Previews are public files under names never reused: cached for a year; the full video is never cached.
      const thumb = await fetch(`${t.url}${sale.thumbnail}`);
      expect(thumb.status).toBe(200);
      expect(thumb.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const free = res.body.items.find((i: { locked: boolean }) => !i.locked);
      const full = await fetch(`${t.url}${free.video.url}`);
      expect(full.status).toBe(200);
      expect(full.headers.get('cache-control')).toMatch(/private/);
    });

    it("opens to each signed-in viewer what they hold, in the plain list (held in its page's statement) as in a filtered one", async () => {
      const v = c.videos;
      const openIds = (body: { items: Array<{ _id: string; locked: boolean; video: unknown }> }) => {
        for (const i of body.items) expect(i.video === null).toBe(i.locked);
        return body.items.filter((i) => !i.locked).map((i) => i._id).sort();
      };
      const free = [v.free.id, v.bobFree.id].sort();
      const expected = [
        [c.fan, free],
        [c.subscriber, [...free, v.subs.id].sort()],
        [c.lapsed, free],
        [c.buyer, [...free, v.sale.id].sort()],
        [c.alice, [...free, v.subs.id, v.sale.id].sort()],
        [c.admin, [v.free.id, v.subs.id, v.sale.id, v.bobFree.id, v.bobSale.id].sort()],
      ] as const;
      for (const [who, open] of expected) {
        for (const list of ['/user/assets/videos/search', '/user/assets/videos/search?sort=popular&limit=3&offset=1', '/user/assets/videos/search?q=clip', `/user/assets/videos/search?categoryId=${c.categories.tutorials.id}`]) {
          const body = (await get(list, who)).body;
          expect(openIds(body), `${who.id} ${list}`).toEqual(open.filter((id) => ids(body).includes(id)));
        }
        expect(openIds((await get('/user/assets/videos/search', who)).body)).toEqual(open);
      }
      // A refunded purchase opens nothing.
      await t.ctx.db.updateTable('entitlements').set({ revokedAt: new Date().toISOString() }).where('userId', '=', c.buyer.id).where('objectId', '=', v.sale.id).execute();
      expect(openIds((await get('/user/assets/videos/search', c.buyer)).body)).toEqual(free);
      await t.ctx.db.updateTable('entitlements').set({ revokedAt: null }).where('userId', '=', c.buyer.id).where('objectId', '=', v.sale.id).execute();
    });

    it.each([
      ['limit=0'], ['limit=101'], ['limit=x'], ['offset=-1'], ['offset=10001'], ['sort=cheapest'], ['cursor=%%%'], ['cursor=bm90LWpzb24'],
      ['performerId=' + encodeURIComponent("x' or 1=1")], ['categoryId=' + 'a'.repeat(101)], ['q=' + 'a'.repeat(101)], ['tag='],
    ])('rejects %s with 400', async (qs) => {
      const res = await get(`/user/assets/videos/search?${qs}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toMatch(/VALIDATION_FAILED|BAD_REQUEST/);
      expect(typeof res.body.message).toBe('string');
    });

    it('rejects a cursor whose value does not fit the sort', async () => {
      const textForNumber = encodeCursor({ v: 'abc', id: c.videos.free.id });
      expect((await get(`/user/assets/videos/search?sort=price&cursor=${textForNumber}`)).status).toBe(400);
      const numberForText = encodeCursor({ v: 5, id: c.videos.free.id });
      expect((await get(`/user/assets/videos/search?sort=newest&cursor=${numberForText}`)).status).toBe(400);
      const nullValue = encodeCursor({ v: null, id: c.videos.free.id });
      expect((await get(`/user/assets/videos/search?sort=popular&cursor=${nullValue}`)).status).toBe(400);
    });
  });

  describe('GET /user/assets/videos/{id}', () => {
    it('answers a public video by id and by slug', async () => {
      const byId = await get(`/user/assets/videos/${c.videos.subs.id}`);
      expect(byId.status).toBe(200);
      expect(byId.body).toMatchObject({ _id: c.videos.subs.id, title: 'Core strength', locked: true, video: null, access: 'subscribers' });
      const bySlug = await get(`/user/assets/videos/${c.videos.subs.slug}`);
      expect(bySlug.body._id).toBe(c.videos.subs.id);
    });

    it("prefers the video whose id is the key to one whose slug spells it, and takes the newest of a shared slug", async () => {
      const v = c.videos;
      // A slug may be any text a performer typed, another video's id included; the id wins.
      await t.ctx.db.updateTable('videos').set({ slug: v.subs.id }).where('id', '=', v.free.id).execute();
      try {
        expect((await get(`/user/assets/videos/${v.subs.id}`)).body._id).toBe(v.subs.id);
        // Two videos under one slug: the newest id answers.
        await t.ctx.db.updateTable('videos').set({ slug: 'shared-slug' }).where('id', 'in', [v.free.id, v.subs.id]).execute();
        const newest = [v.free.id, v.subs.id].sort().at(-1);
        expect((await get('/user/assets/videos/shared-slug')).body._id).toBe(newest);
        // A performer by id, or by username whatever its case.
        expect((await get(`/performers/${c.alice.id}`)).body._id).toBe(c.alice.id);
        expect((await get('/performers/ALICE')).body._id).toBe(c.alice.id);
      } finally {
        await t.ctx.db.updateTable('videos').set({ slug: v.free.slug }).where('id', '=', v.free.id).execute();
        await t.ctx.db.updateTable('videos').set({ slug: v.subs.slug }).where('id', '=', v.subs.id).execute();
      }
    });

    it('hides drafts, processing, scheduled, hidden and inactive-performer videos (404), except from their performer and admins', async () => {
      const v = c.videos;
      for (const video of [v.draft, v.processing, v.scheduled, v.hidden, v.carol]) {
        const res = await get(`/user/assets/videos/${video.id}`, c.fan);
        expect(res.status, video.title).toBe(404);
        expect(res.body.code).toBe('NOT_FOUND');
        expect((await get(`/user/assets/videos/${video.id}`, c.admin)).status).toBe(200);
      }
      expect((await get(`/user/assets/videos/${v.draft.id}`, c.alice)).status).toBe(200);
      expect((await get(`/user/assets/videos/${v.draft.id}`, c.bob)).status).toBe(404);
    });

    it('answers 404 for an unknown id and 400 for a malformed one', async () => {
      expect((await get('/user/assets/videos/0000000000000000')).status).toBe(404);
      const bad = await get(`/user/assets/videos/${encodeURIComponent('a b*c')}`);
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('VALIDATION_FAILED');
      // Fastify itself refuses path parameters longer than 100 characters (414 URI Too Long, JSON like every error).
      const long = await get(`/user/assets/videos/${'a'.repeat(101)}`);
      expect([400, 414]).toContain(long.status);
      expect(long.body.code).toEqual(expect.any(String));
    });
  });

  describe('GET /performer/assets/videos/{id}/view', () => {
    it('needs a performer session: 401 for guests, 403 for fans', async () => {
      expect((await get(`/performer/assets/videos/${c.videos.draft.id}/view`)).status).toBe(401);
      expect((await get(`/performer/assets/videos/${c.videos.draft.id}/view`, c.fan)).status).toBe(403);
    });

    it("shows the performer's own videos in any state, with the full file when there is one", async () => {
      const draft = await get(`/performer/assets/videos/${c.videos.draft.id}/view`, c.alice);
      expect(draft.status).toBe(200);
      expect(draft.body).toMatchObject({ status: 'draft', locked: false });
      expect(draft.body.video.url).toMatch(/^\/media\/protected\/video\//);
      const processing = await get(`/performer/assets/videos/${c.videos.processing.slug}/view`, c.alice);
      expect(processing.body).toMatchObject({ processingStatus: 'processing', video: null, thumbnail: null });
      expect((await get(`/performer/assets/videos/${c.videos.scheduled.id}/view`, c.admin)).status).toBe(200);
    });

    it("answers 404 for another performer's video and for unknown ids", async () => {
      expect((await get(`/performer/assets/videos/${c.videos.draft.id}/view`, c.bob)).status).toBe(404);
      expect((await get('/performer/assets/videos/unknown/view', c.alice)).status).toBe(404);
      expect((await get(`/performer/assets/videos/${encodeURIComponent('x y')}/view`, c.alice)).status).toBe(400);
    });
  });

  describe('galleries', () => {
    it('lists public galleries with filters and sorts', async () => {
      const g = c.galleries;
      const res = await get('/user/assets/galleries/search');
      expect(res.status).toBe(200);
      expect(ids(res.body)).toEqual([g.bob.id, g.sale.id, g.subs.id, g.free.id]);
      expect(res.body.items[0].cover).toMatch(/^\/media\/public\/photos\/thumbs\//);
      expect(ids((await get('/user/assets/galleries/search?sort=popular')).body)).toEqual([g.subs.id, g.free.id, g.sale.id, g.bob.id]);
      expect((await get('/user/assets/galleries/search?sort=price')).body.items.at(-1)._id).toBe(g.sale.id);
      expect(new Set(ids((await get('/user/assets/galleries/search?tag=beach')).body))).toEqual(new Set([g.free.id, g.sale.id]));
      expect(ids((await get(`/user/assets/galleries/search?categoryId=${c.categories.shoots.id}`)).body)).toEqual([g.free.id]);
      expect(ids((await get(`/user/assets/galleries/search?performerId=${c.bob.id}`)).body)).toEqual([g.bob.id]);
      expect(ids((await get('/user/assets/galleries/search?q=premium')).body)).toEqual([g.sale.id]);
      expect(await walk('/user/assets/galleries/search?sort=popular', 3)).toEqual([g.subs.id, g.free.id, g.sale.id, g.bob.id]);
    });

    it.each([['limit=0'], ['sort=oldest'], ['cursor=abc']])('rejects %s', async (qs) => {
      expect((await get(`/user/assets/galleries/search?${qs}`)).status).toBe(400);
    });

    it('views a gallery by id or slug; drafts only for their performer', async () => {
      const view = await get(`/user/assets/galleries/${c.galleries.sale.slug}/view`);
      expect(view.status).toBe(200);
      expect(view.body).toMatchObject({ _id: c.galleries.sale.id, access: 'sale', price: 699, locked: true, photoCount: 2 });
      expect((await get(`/user/assets/galleries/${c.galleries.draft.id}/view`)).status).toBe(404);
      expect((await get(`/user/assets/galleries/${c.galleries.draft.id}/view`, c.alice)).status).toBe(200);
      expect((await get(`/user/assets/galleries/${c.galleries.carol.id}/view`)).status).toBe(404);
      expect((await get('/user/assets/galleries/nope/view')).status).toBe(404);
      expect((await get('/user/assets/galleries/n*pe/view')).status).toBe(400);
    });
  });

  describe('photos', () => {
    it('lists the photos of a public gallery in order; locked photos keep their thumbnail only', async () => {
      const free = await get(`/user/assets/gallery/${c.galleries.free.id}/photos`);
      expect(free.status).toBe(200);
      expect(ids(free.body)).toEqual(c.galleries.free.photos.map((p) => p.id));
      expect(free.body.items.every((p: { locked: boolean; photo: unknown }) => !p.locked && p.photo)).toBe(true);
      const subs = await get(`/user/assets/gallery/${c.galleries.subs.slug}/photos`);
      expect(subs.body.total).toBe(2);
      for (const p of subs.body.items) {
        expect(p).toMatchObject({ locked: true, photo: null, access: 'subscribers' });
        expect(p.thumbnail).toMatch(/^\/media\/public\/photos\/thumbs\//);
      }
      expect((await get(`/user/assets/gallery/${c.galleries.sale.id}/photos`)).body.items[0]).toMatchObject({ access: 'sale', price: 699, locked: true });
      expect(await walk(`/user/assets/gallery/${c.galleries.free.id}/photos`, 1)).toEqual(c.galleries.free.photos.map((p) => p.id));
    });

    it("hides a draft gallery's photos except from its performer", async () => {
      expect((await get(`/user/assets/gallery/${c.galleries.draft.id}/photos`)).status).toBe(404);
      const own = await get(`/user/assets/gallery/${c.galleries.draft.id}/photos`, c.alice);
      expect(own.status).toBe(200);
      expect(own.body.total).toBe(1);
      expect((await get('/user/assets/gallery/unknown/photos')).status).toBe(404);
    });

    it('GET /user/assets/photos by gallery or by performer', async () => {
      const byGallery = await get(`/user/assets/photos?galleryId=${c.galleries.free.id}`);
      expect(ids(byGallery.body)).toEqual(c.galleries.free.photos.map((p) => p.id));
      const byPerformer = await get(`/user/assets/photos?performerId=${c.alice.id}`);
      expect(byPerformer.body.total).toBe(3 + 2 + 2 + 1);
      expect(ids(byPerformer.body)[0]).toBe(c.loosePhoto.id);
      expect(byPerformer.body.items[0]).toMatchObject({ galleryId: null, access: 'subscribers', locked: true, photo: null });
      expect(ids((await get(`/user/assets/photos?galleryId=${c.galleries.draft.id}`)).body)).toEqual([]);
      expect((await get(`/user/assets/photos?performerId=${c.carol.id}`)).body.total).toBe(0);
      expect((await get(`/user/assets/photos?performerId=${c.alice.id}&tag=beach`)).body.total).toBe(5);
    });

    it.each([[''], ['sort=position'], ['galleryId=a*b'], ['performerId=x&sort=bogus'], ['performerId=x&limit=0']])('rejects "%s" with 400', async (qs) => {
      expect((await get(`/user/assets/photos?${qs}`)).status).toBe(400);
    });
  });

  describe('products', () => {
    it('lists public products with filters and sorts', async () => {
      const p = c.products;
      const res = await get('/user/assets/products/search');
      expect(ids(res.body)).toEqual([p.bobDigital.id, p.digital.id, p.physical.id]);
      expect(res.body.items[0].image).toMatch(/^\/media\/public\/products\//);
      expect(ids((await get('/user/assets/products/search?sort=price')).body)).toEqual([p.bobDigital.id, p.digital.id, p.physical.id]);
      expect(ids((await get('/user/assets/products/search?sort=popular')).body)[0]).toBe(p.digital.id);
      expect(ids((await get('/user/assets/products/search?type=physical')).body)).toEqual([p.physical.id]);
      expect(ids((await get('/user/assets/products/search?tag=plan')).body)).toEqual([p.digital.id]);
      expect(ids((await get(`/user/assets/products/search?categoryId=${c.categories.merch.id}`)).body)).toEqual([p.physical.id]);
      expect(ids((await get(`/user/assets/products/search?performerId=${c.alice.id}&q=cork`)).body)).toEqual([p.physical.id]);
      expect(await walk('/user/assets/products/search?sort=price', 1)).toEqual([p.bobDigital.id, p.digital.id, p.physical.id]);
    });

    it.each([['type=ebook'], ['sort=name'], ['limit=-5']])('rejects %s', async (qs) => {
      expect((await get(`/user/assets/products/search?${qs}`)).status).toBe(400);
    });

    it('answers a product by id or slug; a digital one is locked until bought, a physical one never', async () => {
      const physical = await get(`/user/assets/products/${c.products.physical.slug}`);
      expect(physical.body).toMatchObject({ _id: c.products.physical.id, type: 'physical', price: 2400, stock: 10, locked: false });
      expect((await get(`/user/assets/products/${c.products.digital.id}`)).body).toMatchObject({ type: 'digital', locked: true });
      expect((await get(`/user/assets/products/${c.products.digital.id}`, c.buyer)).body.locked).toBe(false);
      expect((await get(`/user/assets/products/${c.products.draft.id}`)).status).toBe(404);
      expect((await get(`/user/assets/products/${c.products.carol.id}`)).status).toBe(404);
      expect((await get('/user/assets/products/b@d')).status).toBe(400);
    });

    it("performer studio: own products in every state", async () => {
      expect((await get('/performer/assets/products/search')).status).toBe(401);
      expect((await get('/performer/assets/products/search', c.fan)).status).toBe(403);
      const own = await get('/performer/assets/products/search', c.alice);
      expect(own.status).toBe(200);
      expect(new Set(ids(own.body))).toEqual(new Set([c.products.physical.id, c.products.digital.id, c.products.draft.id]));
      expect(ids((await get('/performer/assets/products/search?status=draft', c.alice)).body)).toEqual([c.products.draft.id]);
      expect(ids((await get(`/performer/assets/products/search?performerId=${c.alice.id}`, c.bob)).body)).toEqual([c.products.bobDigital.id]);
      expect((await get('/performer/assets/products/search?status=gone', c.alice)).status).toBe(400);
      expect((await get(`/performer/assets/products/search?performerId=${c.alice.id}`, c.admin)).body.total).toBe(3);
    });

    it('performer studio: one own product, 404 for the others', async () => {
      const draft = await get(`/performer/assets/products/${c.products.draft.id}/view`, c.alice);
      expect(draft.status).toBe(200);
      expect(draft.body).toMatchObject({ status: 'draft', locked: false });
      expect((await get(`/performer/assets/products/${c.products.draft.id}/view`, c.bob)).status).toBe(404);
      expect((await get(`/performer/assets/products/${c.products.draft.id}/view`, c.fan)).status).toBe(403);
      expect((await get(`/performer/assets/products/${c.products.draft.id}/view`)).status).toBe(401);
      expect((await get('/performer/assets/products/x%20y/view', c.alice)).status).toBe(400);
    });
  });

  describe('posts', () => {
    it('lists published posts, newest or most liked first', async () => {
      const p = c.posts;
      const res = await get('/posts/search');
      expect(res.status).toBe(200);
      expect(ids(res.body)).toEqual([p.newer.id, p.byAlice.id, p.older.id]);
      expect(res.body.items[0]).not.toHaveProperty('content');
      expect(res.body.items[0].image).toMatch(/^\/media\/public\/posts\//);
      expect(ids((await get('/posts/search?sort=popular')).body)[0]).toBe(p.older.id);
      expect(ids((await get(`/posts/search?performerId=${c.alice.id}`)).body)).toEqual([p.byAlice.id]);
      // The blog (scope=site) keeps the site's own posts: a performer's post is on their page only.
      expect(ids((await get('/posts/search?scope=site')).body)).toEqual([p.newer.id, p.older.id]);
      expect(ids((await get('/posts/search?type=page')).body)).toEqual([p.page.id]);
      expect(ids((await get('/posts/search?q=week')).body)).toEqual([p.newer.id]);
      expect(await walk('/posts/search', 2)).toEqual([p.newer.id, p.byAlice.id, p.older.id]);
    });

    it('answers a post or page by id or slug, 404 when unpublished', async () => {
      const page = await get('/posts/terms-of-service');
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ type: 'page', title: 'Terms', content: '<p>Terms</p>' });
      expect((await get(`/posts/${c.posts.older.id}`)).body.title).toBe('Welcome');
      for (const hidden of [c.posts.draft, c.posts.future, c.posts.byCarol]) expect((await get(`/posts/${hidden.id}`)).status).toBe(404);
      expect((await get('/posts/search?type=draft')).status).toBe(400);
      expect((await get('/posts/search?sort=price')).status).toBe(400);
      expect((await get('/posts/%3Cscript%3E')).status).toBe(400);
    });
  });

  describe('GET /user/assets/categories/search', () => {
    it('lists active categories by group, in their order', async () => {
      const all = await get('/user/assets/categories/search');
      expect(all.body.total).toBe(5);
      const video = await get('/user/assets/categories/search?group=video');
      expect(video.body.items.map((x: { name: string }) => x.name)).toEqual(['Tutorials', 'Vlogs']);
      expect((await get('/user/assets/categories/search?sort=name')).body.items.map((x: { name: string }) => x.name)).toEqual([
        'Fitness', 'Merch', 'Shoots', 'Tutorials', 'Vlogs',
      ]);
      expect(ids((await get('/user/assets/categories/search?q=tut')).body)).toEqual([c.categories.tutorials.id]);
      expect(await walk('/user/assets/categories/search?sort=name', 2)).toHaveLength(5);
      expect((await get('/user/assets/categories/search?group=colour')).status).toBe(400);
    });
  });

  describe('GET /performers/{id}', () => {
    it('answers a profile by username or id, with categories, tags and the viewer subscription', async () => {
      const guest = await get('/performers/alice');
      expect(guest.status).toBe(200);
      expect(guest.body).toMatchObject({
        _id: c.alice.id, username: 'alice', name: 'Alice Stone', monthlyPrice: 999, isSubscribed: false,
        categories: [{ _id: c.categories.fitness.id, name: 'Fitness' }], tags: ['mobility', 'yoga'],
      });
      expect((await get(`/performers/${c.alice.id}`, c.subscriber)).body.isSubscribed).toBe(true);
      expect((await get('/performers/ALICE', c.lapsed)).body.isSubscribed).toBe(false);
    });

    it('answers 404 for unknown and inactive performers (except to themselves), 400 for malformed keys', async () => {
      expect((await get('/performers/nobody')).status).toBe(404);
      expect((await get('/performers/carol')).status).toBe(404);
      expect((await get('/performers/carol', c.carol)).status).toBe(200);
      expect((await get('/performers/a%20b')).status).toBe(400);
    });

    it('keeps GET /performers/search working, rejecting a cursor of the wrong type', async () => {
      expect(ids((await get('/performers/search?sort=price')).body)).toEqual([c.bob.id, c.alice.id]);
      expect((await get(`/performers/search?sort=price&cursor=${encodeCursor({ v: 'x', id: 'y' })}`)).status).toBe(400);
    });
  });

  it('documents every catalogue route in the OpenAPI document', async () => {
    const res = await get('/docs/openapi.json');
    const paths = Object.keys(res.body.paths);
    for (const p of [
      '/performers/{id}', '/posts/search', '/posts/{id}', '/user/assets/categories/search', '/user/assets/galleries/search',
      '/user/assets/galleries/{id}/view', '/user/assets/photos', '/user/assets/gallery/{id}/photos', '/user/assets/videos/search',
      '/user/assets/videos/{id}', '/user/assets/products/search', '/user/assets/products/{id}', '/user/assets/products/{id}/download-link',
      '/performer/assets/videos/{id}/view', '/performer/assets/products/search', '/performer/assets/products/{id}/view',
    ]) {
      expect(paths).toContain(p);
    }
  });

  it('answered no request with a 5xx', () => {
    expect(serverErrors).toEqual([]);
  });
});
