import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { buildCatalogue, type Catalogue } from '../helpers/catalogue-fixture.js';
import { recordingClient } from '../helpers/api-calls.js';
import { daysFromNow, fileBytes } from '../../server/seed/factories.js';
import type { TestUser } from '../helpers/sessions.js';
import { mediaSigner } from '../../server/media/signed-urls.js';
import { decideAccess, type AccessSubject, type Viewer } from '../../server/access/access.service.js';

/**
 * The paywall: who may open what (a table over identities and items), and the media crawler, which fetches every
 * media URL any identity was given with every identity and checks exactly the allowed ones open.
 */

type Who = 'guest' | 'fan' | 'lapsed' | 'subscriber' | 'buyer' | 'owner' | 'otherPerformer' | 'admin';
const everyone: Who[] = ['guest', 'fan', 'lapsed', 'subscriber', 'buyer', 'owner', 'otherPerformer', 'admin'];

/** Expected: who opens each of alice's items (the subscriber subscribes to alice; the buyer bought her sale items). */
const opens = {
  free: everyone,
  subscribers: ['subscriber', 'owner', 'admin'] as Who[],
  sale: ['buyer', 'owner', 'admin'] as Who[],
};

describe('access rules (pure)', () => {
  const subject = (access: AccessSubject['access']): AccessSubject => ({ objectType: 'video', objectId: 'v1', performerId: 'p1', access });
  const viewers: Record<string, Viewer> = { guest: null, fan: { id: 'u1', role: 'user' }, owner: { id: 'p1', role: 'performer' }, admin: { id: 'a1', role: 'admin' } };
  it.each([
    ['guest', 'free', {}, true], ['guest', 'subscribers', {}, false], ['guest', 'sale', {}, false],
    ['fan', 'subscribers', { subscribed: true }, true], ['fan', 'sale', { subscribed: true }, false], ['fan', 'sale', { purchased: true }, true],
    ['fan', 'subscribers', { purchased: true }, true], ['owner', 'sale', {}, true], ['admin', 'subscribers', {}, true],
  ] as const)('%s × %s %o → open %s', (who, access, facts, open) => {
    expect(decideAccess(viewers[who]!, subject(access), { subscribed: false, purchased: false, ...facts }).open).toBe(open);
  });
});

describe.each(engines)('paywall on %s', (engine) => {
  let t: TestApp;
  let c: Catalogue;
  const { get, serverErrors } = recordingClient(() => t);
  const user = (who: Who): TestUser | undefined =>
    who === 'guest' ? undefined : who === 'owner' ? c.alice : who === 'otherPerformer' ? c.bob : c[who];

  /** Fetches a media URL (relative to the server) as someone; bearer header, or the token cookie when asked. */
  async function fetchMedia(url: string, who: TestUser | undefined, opts: { range?: string; cookie?: boolean } = {}) {
    const headers: Record<string, string> = {};
    if (who && opts.cookie) headers.cookie = `token=${who.token}`;
    else if (who) headers.authorization = `Bearer ${who.token}`;
    if (opts.range) headers.range = opts.range;
    const res = await fetch(`${t.url}${url}`, { headers });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status >= 500) serverErrors.push(`${res.status} ${url}`);
    return { status: res.status, headers: res.headers, body, json: () => JSON.parse(body.toString('utf8')) };
  }

  beforeAll(async () => {
    t = await startTestApp(engine);
    c = await buildCatalogue(t.ctx);
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('access table: detail and list agree, full media only when open', () => {
    const cases: Array<[Who, 'video' | 'gallery', keyof typeof opens]> = [];
    for (const who of everyone) for (const kind of ['video', 'gallery'] as const) for (const access of ['free', 'subscribers', 'sale'] as const) cases.push([who, kind, access]);

    it.each(cases)('%s × %s (%s)', async (who, kind, access) => {
      const expected = opens[access].includes(who);
      const u = user(who);
      if (kind === 'video') {
        const video = c.videos[access === 'subscribers' ? 'subs' : access];
        const detail = await get(`/user/assets/videos/${video.id}`, u);
        expect(detail.status).toBe(200);
        expect(detail.body.locked).toBe(!expected);
        expect(detail.body.video === null).toBe(!expected);
        expect(detail.body.thumbnail && detail.body.teaser && detail.body.poster).toBeTruthy();
        const listed = (await get(`/user/assets/videos/search?performerId=${c.alice.id}`, u)).body.items.find((i: { _id: string }) => i._id === video.id);
        expect(listed.locked).toBe(!expected);
        expect(listed.video === null).toBe(!expected);
        if (expected) expect((await fetchMedia(detail.body.video.url, u)).status).toBe(200);
      } else {
        const gallery = c.galleries[access === 'subscribers' ? 'subs' : access];
        const view = await get(`/user/assets/galleries/${gallery.id}/view`, u);
        expect(view.body.locked).toBe(!expected);
        expect(view.body.cover).toMatch(/^\/media\/public\//);
        const photos = await get(`/user/assets/gallery/${gallery.id}/photos`, u);
        expect(photos.body.items.length).toBeGreaterThan(0);
        for (const p of photos.body.items) {
          expect(p.locked).toBe(!expected);
          expect(p.photo === null).toBe(!expected);
          // Blurred public thumbnails for those without access; the sharp private one, signed, for those with it.
          const sharp = gallery.sharpThumbs[p._id];
          if (expected && sharp) {
            expect(p.thumbnail).toMatch(new RegExp(`^/media/protected/photo/${p._id}/${sharp}\\?u=${u?.id ?? 'guest'}&`));
            expect((await fetchMedia(p.thumbnail, u)).status).toBe(200);
          } else {
            expect(p.thumbnail).toMatch(/^\/media\/public\//);
          }
        }
        // Every photo of a locked gallery but its cover has a sharp private thumbnail (and only those).
        expect(Object.keys(gallery.sharpThumbs).length).toBe(access === 'free' ? 0 : gallery.photos.length - 1);
        const byPerformer = (await get(`/user/assets/photos?performerId=${c.alice.id}&limit=100`, u)).body.items.filter((p: { galleryId: string }) => p.galleryId === gallery.id);
        expect(byPerformer.map((p: { locked: boolean }) => p.locked)).toEqual(photos.body.items.map(() => !expected));
      }
    });

    it.each(everyone)('%s × digital product download link', async (who) => {
      const u = user(who);
      const res = await get(`/user/assets/products/${c.products.digital.id}/download-link`, u);
      const expected = who === 'guest' ? 401 : opens.sale.includes(who) ? 200 : 403;
      expect(res.status).toBe(expected);
      const detail = await get(`/user/assets/products/${c.products.digital.id}`, u);
      expect(detail.body.locked).toBe(expected !== 200);
      if (expected === 200) {
        expect(res.body).toMatchObject({ fileName: 'guide.pdf', downloadLink: expect.stringMatching(/^\/media\/protected\/product\//) });
        const file = await fetchMedia(res.body.downloadLink, u);
        expect(file.status).toBe(200);
        expect(file.headers.get('content-type')).toBe('application/pdf');
        expect(file.headers.get('content-disposition')).toContain('attachment; filename="guide.pdf"');
      } else {
        expect(res.body.code).toBe(expected === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN');
      }
    });

    it('a physical product is never locked and has no download (404)', async () => {
      expect((await get(`/user/assets/products/${c.products.physical.id}`)).body.locked).toBe(false);
      expect((await get(`/user/assets/products/${c.products.physical.id}/download-link`, c.buyer)).status).toBe(404);
      expect((await get('/user/assets/products/unknown/download-link', c.buyer)).status).toBe(404);
      expect((await get(`/user/assets/products/${c.products.draft.id}/download-link`, c.buyer)).status).toBe(404);
      expect((await get(`/user/assets/products/${c.products.draft.id}/download-link`, c.alice)).status).toBe(200);
    });

    it("another performer's subscription or purchase opens nothing of alice's", async () => {
      const v = await get(`/user/assets/videos/${c.videos.bobSale.id}`, c.buyer);
      expect(v.body.locked).toBe(true);
      expect((await get(`/user/assets/videos/${c.videos.bobSale.id}`, c.bob)).body.locked).toBe(false);
    });
  });

  describe('media crawler', () => {
    /** Every string in a JSON value that looks like a media URL. */
    function mediaUrls(value: unknown, out = new Set<string>()): Set<string> {
      if (typeof value === 'string') {
        if (value.startsWith('/media/')) out.add(value);
      } else if (Array.isArray(value)) {
        for (const v of value) mediaUrls(v, out);
      } else if (value && typeof value === 'object') {
        for (const v of Object.values(value)) mediaUrls(v, out);
      }
      return out;
    }

    /** Every list and detail response an identity can get from the catalogue API. */
    async function crawl(who: TestUser | undefined): Promise<unknown[]> {
      const bodies: unknown[] = [];
      const fetchAll = async (path: string) => {
        const res = await get(path, who);
        expect(res.status, path).toBeLessThan(500);
        if (res.status === 200) bodies.push(res.body);
        return res.body;
      };
      const videos = await fetchAll('/user/assets/videos/search?limit=100');
      for (const v of videos.items) await fetchAll(`/user/assets/videos/${v._id}`);
      for (const sort of ['popular', 'price']) await fetchAll(`/user/assets/videos/search?limit=100&sort=${sort}`);
      const galleries = await fetchAll('/user/assets/galleries/search?limit=100');
      for (const g of galleries.items) {
        await fetchAll(`/user/assets/galleries/${g._id}/view`);
        await fetchAll(`/user/assets/gallery/${g._id}/photos?limit=100`);
        await fetchAll(`/user/assets/photos?galleryId=${g._id}&limit=100`);
      }
      for (const p of [c.alice, c.bob]) {
        await fetchAll(`/user/assets/photos?performerId=${p.id}&limit=100`);
        await fetchAll(`/performers/${p.username}`);
      }
      const products = await fetchAll('/user/assets/products/search?limit=100');
      for (const p of products.items) {
        await fetchAll(`/user/assets/products/${p._id}`);
        if (who) await fetchAll(`/user/assets/products/${p._id}/download-link`);
      }
      const posts = await fetchAll('/posts/search?limit=100');
      for (const p of posts.items) await fetchAll(`/posts/${p._id}`);
      await fetchAll('/performers/search?limit=100');
      await fetchAll('/user/assets/categories/search?limit=100');
      return bodies;
    }

    const crawlers = ['guest', 'fan', 'subscriber', 'buyer'] as const;

    it('gives each identity full-file URLs for exactly what it may open, and never names a locked file', async () => {
      const v = c.videos;
      const g = c.galleries;
      const photosOf = (...gs: Array<{ photos: Array<{ id: string }> }>) => gs.flatMap((x) => x.photos.map((p) => `photo:${p.id}`));
      const free = [`video:${v.free.id}`, `video:${v.bobFree.id}`, ...photosOf(g.free, g.bob)];
      const expected: Record<(typeof crawlers)[number], string[]> = {
        guest: free,
        fan: free,
        subscriber: [...free, `video:${v.subs.id}`, ...photosOf(g.subs), `photo:${c.loosePhoto.id}`],
        buyer: [...free, `video:${v.sale.id}`, ...photosOf(g.sale), `product:${c.products.digital.id}`],
      };
      const lockedFiles = (who: (typeof crawlers)[number]) => {
        const all: Array<[string, string | null | undefined]> = [
          ...Object.values(c.videos).map((x) => [`video:${x.id}`, x.fileId] as [string, string | null | undefined]),
          ...Object.values(c.galleries).flatMap((x) => x.photos.map((p) => [`photo:${p.id}`, p.fileId] as [string, string | null | undefined])),
          ...Object.values(c.galleries).flatMap((x) => Object.entries(x.sharpThumbs).map(([id, fileId]) => [`photo:${id}`, fileId] as [string, string])),
          [`photo:${c.loosePhoto.id}`, c.loosePhoto.fileId],
          ...Object.values(c.products).map((x) => [`product:${x.id}`, x.digitalFileId] as [string, string | null | undefined]),
        ];
        return all.filter(([key, fileId]) => fileId && !expected[who].includes(key)).map(([, fileId]) => fileId!);
      };
      for (const who of crawlers) {
        const bodies = await crawl(user(who));
        const text = JSON.stringify(bodies);
        const urls = [...mediaUrls(bodies)];
        const opened = urls
          .filter((u) => u.startsWith('/media/protected/'))
          .map((u) => u.split('?')[0]!.split('/').slice(3, 5).join(':'));
        expect(new Set(opened), who).toEqual(new Set(expected[who]));
        expect(text).not.toContain('private/');
        for (const fileId of lockedFiles(who)) expect(text, `${who} must not see file ${fileId}`).not.toContain(fileId);
      }
    });

    it('fetches every URL with every identity: exactly the allowed ones open', async () => {
      const given = new Map<string, (typeof crawlers)[number]>();
      for (const who of crawlers) for (const url of mediaUrls(await crawl(user(who)))) if (!given.has(url)) given.set(url, who);
      let open = 0;
      let denied = 0;
      for (const [url, owner] of given) {
        const signedFor = url.startsWith('/media/protected/') ? new URL(url, t.url).searchParams.get('u') : null;
        for (const who of crawlers) {
          const requester = user(who);
          const res = await fetchMedia(url, requester);
          // Public previews open for all; a signed URL for its own user (a guest URL, for anyone: free items only).
          const allowed = !signedFor || signedFor === 'guest' || signedFor === requester?.id;
          expect(res.status, `${who} GET ${url} (given to ${owner})`).toBe(allowed ? 200 : 403);
          if (allowed) open++;
          else {
            denied++;
            expect(res.json()).toMatchObject({ code: 'MEDIA_URL_OTHER_USER', message: expect.any(String) });
          }
        }
      }
      expect(open).toBeGreaterThan(50);
      expect(denied).toBeGreaterThan(10);
    });

    it('refuses an expired URL, a URL for another user, a tampered URL and a guessed one (403)', async () => {
      const signer = mediaSigner(t.ctx.config);
      const target = { objectType: 'video' as const, objectId: c.videos.subs.id, fileId: c.videos.subs.fileId! };
      const past = Math.floor(Date.now() / 1000) - 5;
      const expired = signer.sign(target, c.subscriber.id, { expiresAt: past });
      const res = await fetchMedia(expired.url, c.subscriber);
      expect(res.status).toBe(403);
      expect(res.json().code).toBe('MEDIA_URL_EXPIRED');

      const forSubscriber = signer.sign(target, c.subscriber.id).url;
      expect((await fetchMedia(forSubscriber, c.subscriber)).status).toBe(200);
      expect((await fetchMedia(forSubscriber, c.fan)).status).toBe(403);
      expect((await fetchMedia(forSubscriber, undefined)).status).toBe(403);
      expect((await fetchMedia(forSubscriber, c.admin)).status).toBe(403);

      const tampered = [
        forSubscriber.replace(/s=([A-Za-z0-9_-])/, (_m, ch: string) => `s=${ch === 'A' ? 'B' : 'A'}`),
        forSubscriber.replace(`u=${c.subscriber.id}`, `u=${c.fan.id}`),
        forSubscriber.replace(c.videos.subs.id, c.videos.sale.id),
        forSubscriber.replace(/e=\d+/, `e=${Math.floor(Date.now() / 1000) + 86_400 * 365}`),
        forSubscriber.replace('/video/', '/photo/'),
        forSubscriber.split('?')[0]!,
        `/media/protected/video/${c.videos.sale.id}/${c.videos.sale.fileId}?u=guest&e=9999999999&s=${'A'.repeat(43)}`,
      ];
      for (const url of tampered) {
        const r = await fetchMedia(url, c.fan);
        expect(r.status, url).toBe(403);
        expect(r.json().code).toMatch(/^MEDIA_URL_(INVALID|OTHER_USER)$/);
      }
      // The storage keys of private files are not reachable through the public route either.
      for (const guess of [`/media/public/../private/videos/${c.videos.sale.fileId}.mp4`, `/media/private/videos/${c.videos.sale.fileId}.mp4`]) {
        expect([403, 404]).toContain((await fetchMedia(guess, c.fan)).status);
      }
    });

    it('a URL signed for an item that is not its file, or for a file of a locked item, does not open', async () => {
      const signer = mediaSigner(t.ctx.config);
      // A guest URL naming the sale video's own file: valid signature, but a guest may not open it.
      const saleAsGuest = signer.sign({ objectType: 'video', objectId: c.videos.sale.id, fileId: c.videos.sale.fileId! }, null).url;
      const r = await fetchMedia(saleAsGuest, undefined);
      expect(r.status).toBe(403);
      expect(r.json().code).toBe('LOCKED');
      // A free video's id with the sale video's file: not that item's file.
      const mixed = signer.sign({ objectType: 'video', objectId: c.videos.free.id, fileId: c.videos.sale.fileId! }, null).url;
      expect((await fetchMedia(mixed, undefined)).status).toBe(404);
    });

    it('checks access again on every request: a lapsed subscription, a revoked purchase or an unpublished item closes issued URLs', async () => {
      const db = t.ctx.db;
      const subs = await get(`/user/assets/videos/${c.videos.subs.id}`, c.subscriber);
      const url = subs.body.video.url as string;
      expect((await fetchMedia(url, c.subscriber)).status).toBe(200);
      await db.updateTable('subscriptions').set({ expiresAt: daysFromNow(-1) }).where('userId', '=', c.subscriber.id).execute();
      try {
        const r = await fetchMedia(url, c.subscriber);
        expect(r.status).toBe(403);
        expect(r.json().code).toBe('LOCKED');
      } finally {
        await db.updateTable('subscriptions').set({ expiresAt: daysFromNow(30) }).where('userId', '=', c.subscriber.id).execute();
      }
      expect((await fetchMedia(url, c.subscriber)).status).toBe(200);

      const link = (await get(`/user/assets/products/${c.products.digital.id}/download-link`, c.buyer)).body.downloadLink as string;
      await db.updateTable('entitlements').set({ revokedAt: daysFromNow(0) }).where('userId', '=', c.buyer.id).where('objectId', '=', c.products.digital.id).execute();
      try {
        expect((await fetchMedia(link, c.buyer)).status).toBe(403);
        expect((await get(`/user/assets/products/${c.products.digital.id}/download-link`, c.buyer)).status).toBe(403);
      } finally {
        await db.updateTable('entitlements').set({ revokedAt: null }).where('userId', '=', c.buyer.id).execute();
      }

      const free = (await get(`/user/assets/videos/${c.videos.free.id}`)).body.video.url as string;
      await db.updateTable('videos').set({ status: 'hidden' }).where('id', '=', c.videos.free.id).execute();
      try {
        expect((await fetchMedia(free, undefined)).status).toBe(404);
      } finally {
        await db.updateTable('videos').set({ status: 'active' }).where('id', '=', c.videos.free.id).execute();
      }
    });

    it("a locked gallery's sharp thumbnails: only blurred public ones for those without access; the signed sharp one opens for its own subscriber, never for a guest, another fan, after expiry or once the subscription lapses", async () => {
      const gallery = c.galleries.subs;
      const [photoId, thumbId] = Object.entries(gallery.sharpThumbs)[0]!;
      const thumbnailOf = async (who: TestUser | undefined) => {
        const res = await get(`/user/assets/gallery/${gallery.id}/photos`, who);
        expect(JSON.stringify(res.body).includes(thumbId), 'the sharp thumbnail is named').toBe(who === c.subscriber);
        return res.body.items.find((p: { _id: string }) => p._id === photoId).thumbnail as string;
      };
      for (const who of [undefined, c.fan, c.lapsed, c.buyer]) expect(await thumbnailOf(who)).toMatch(/^\/media\/public\/photos\/thumbs\//);
      const given = await thumbnailOf(c.subscriber);
      expect(given).toMatch(new RegExp(`^/media/protected/photo/${photoId}/${thumbId}\\?u=${c.subscriber.id}&e=\\d+&s=`));
      const ok = await fetchMedia(given, c.subscriber);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('cache-control')).toBe('private, no-store');
      expect(ok.body.equals(fileBytes(4096, thumbId.charCodeAt(31)))).toBe(true);
      for (const who of [undefined, c.fan, c.buyer]) {
        const r = await fetchMedia(given, who);
        expect(r.status).toBe(403);
        expect(r.json().code).toBe('MEDIA_URL_OTHER_USER');
      }

      const signer = mediaSigner(t.ctx.config);
      const target = { objectType: 'photo' as const, objectId: photoId, fileId: thumbId };
      const expired = await fetchMedia(signer.sign(target, c.subscriber.id, { expiresAt: Math.floor(Date.now() / 1000) - 5 }).url, c.subscriber);
      expect(expired.status).toBe(403);
      expect(expired.json().code).toBe('MEDIA_URL_EXPIRED');
      // Validly signed for a guest: the access rules still say no.
      const asGuest = await fetchMedia(signer.sign(target, null).url, undefined);
      expect(asGuest.status).toBe(403);
      expect(asGuest.json().code).toBe('LOCKED');
      // The thumbnail is only that photo's: named under a free photo it is not found.
      const freePhoto = c.galleries.free.photos[0]!.id;
      expect((await fetchMedia(signer.sign({ ...target, objectId: freePhoto }, null).url, undefined)).status).toBe(404);
      // Its private storage key is not reachable through the public route.
      const key = (await t.ctx.db.selectFrom('files').select('storageKey').where('id', '=', thumbId).executeTakeFirstOrThrow()).storageKey;
      expect(key).toMatch(/^private\//);
      expect([403, 404]).toContain((await fetchMedia(`/media/public/../${key}`, undefined)).status);
      expect([403, 404]).toContain((await fetchMedia(`/media/${key}`, undefined)).status);

      await t.ctx.db.updateTable('subscriptions').set({ expiresAt: daysFromNow(-1) }).where('userId', '=', c.subscriber.id).execute();
      try {
        const lapsed = await fetchMedia(given, c.subscriber);
        expect(lapsed.status).toBe(403);
        expect(lapsed.json().code).toBe('LOCKED');
        expect(await thumbnailOf(undefined)).toMatch(/^\/media\/public\//);
      } finally {
        await t.ctx.db.updateTable('subscriptions').set({ expiresAt: daysFromNow(30) }).where('userId', '=', c.subscriber.id).execute();
      }
      expect((await fetchMedia(given, c.subscriber)).status).toBe(200);
    });

    it('a performer opens their own drafts through signed URLs; nobody else does', async () => {
      const own = await get(`/performer/assets/videos/${c.videos.draft.id}/view`, c.alice);
      expect((await fetchMedia(own.body.video.url, c.alice)).status).toBe(200);
      expect((await fetchMedia(own.body.video.url, c.bob)).status).toBe(403);
      const asBob = mediaSigner(t.ctx.config).sign({ objectType: 'video', objectId: c.videos.draft.id, fileId: c.videos.draft.fileId! }, c.bob.id).url;
      expect((await fetchMedia(asBob, c.bob)).status).toBe(404);
    });

    it('accepts the session cookie as well as the Authorization header', async () => {
      const url = (await get(`/user/assets/videos/${c.videos.subs.id}`, c.subscriber)).body.video.url as string;
      expect((await fetchMedia(url, c.subscriber, { cookie: true })).status).toBe(200);
      expect((await fetchMedia(url, c.fan, { cookie: true })).status).toBe(403);
    });
  });

  describe('HTTP range (video seeking)', () => {
    it('answers 206 with the right Content-Range and bytes', async () => {
      const url = (await get(`/user/assets/videos/${c.videos.subs.id}`, c.subscriber)).body.video.url as string;
      const stored = fileBytes(20_000, c.videos.subs.fileId!.charCodeAt(31));
      const first = await fetchMedia(url, c.subscriber, { range: 'bytes=0-99' });
      expect(first.status).toBe(206);
      expect(first.headers.get('content-range')).toBe('bytes 0-99/20000');
      expect(first.headers.get('accept-ranges')).toBe('bytes');
      expect(first.headers.get('cache-control')).toBe('private, no-store');
      expect(first.body.equals(stored.subarray(0, 100))).toBe(true);
      const tail = await fetchMedia(url, c.subscriber, { range: 'bytes=19990-' });
      expect(tail.status).toBe(206);
      expect(tail.headers.get('content-range')).toBe('bytes 19990-19999/20000');
      expect(tail.body.equals(stored.subarray(19990))).toBe(true);
      const suffix = await fetchMedia(url, c.subscriber, { range: 'bytes=-10' });
      expect(suffix.headers.get('content-range')).toBe('bytes 19990-19999/20000');
      const whole = await fetchMedia(url, c.subscriber);
      expect(whole.status).toBe(200);
      expect(whole.headers.get('content-type')).toBe('video/mp4');
      expect(whole.body.equals(stored)).toBe(true);
      expect((await fetchMedia(url, c.subscriber, { range: 'bytes=50000-' })).status).toBe(416);
      // A range request by someone else is refused like any other request.
      expect((await fetchMedia(url, c.fan, { range: 'bytes=0-99' })).status).toBe(403);
    });
  });

  it('answered no request with a 5xx', () => {
    expect(serverErrors).toEqual([]);
  });
});
