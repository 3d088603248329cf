import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { buildMoneyWorld, ledger, payWithSandbox, type MoneyWorld } from '../helpers/money-fixture.js';
import { makePost, subscribe } from '../../server/seed/factories.js';
import { makeTestMedia, postForm, waitFor, type FilePart, type TestMedia } from '../helpers/uploads.js';
import { createUser, type TestUser } from '../helpers/sessions.js';

/**
 * Performers' posts: text with up to ten pictures or one video, free, for subscribers or pay-per-view,
 * through the one upload pipeline, the one access rule (server/access) and the one checkout and settlement. A locked
 * post shows its title, teaser and blurred previews; its text and sharp media reach only those it is open to.
 */

const fastJobs = { JOBS_POLL_MS: '50', JOBS_BACKOFF_MS: '50', JOBS_BACKOFF_MAX_MS: '200', JOBS_MAX_ATTEMPTS: '2', MAX_VIDEO_BYTES: String(2 * 1024 * 1024) };

let media: TestMedia;
beforeAll(async () => {
  media = await makeTestMedia();
});
afterAll(async () => {
  await media?.cleanup();
});

describe.each(engines)('performer posts on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;
  /** fan: nothing; fan2: subscribed to perf; buyer: buys the sale post. */
  let buyer: TestUser;
  const ids: Record<'subs' | 'sale' | 'free' | 'video', string> = { subs: '', sale: '', free: '', video: '' };

  beforeAll(async () => {
    t = await startTestApp(engine, { env: fastJobs });
    w = await buildMoneyWorld(t.ctx);
    buyer = await createUser(t.ctx.db, 'user');
    await subscribe(t.ctx.db, w.fan2.id, w.perf.id);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  const png = (n: number): FilePart => ({ name: 'file', filename: `p${n}.png`, data: media.png, type: 'image/png' });
  const create = (fields: Record<string, string | string[]>, files: FilePart[] = [], who: TestUser = w.perf) =>
    postForm(t, '/performer/assets/posts', { fields, files }, { headers: who.headers });
  const get = (path: string, who?: TestUser | null) => t.api(path, { headers: who?.headers ?? {} });
  const mediaRows = (postId: string) => t.ctx.db.selectFrom('postMedia').selectAll().where('postId', '=', postId).orderBy('position').execute();
  const ready = (postId: string) => waitFor(async () => {
    const rows = await mediaRows(postId);
    return rows.length > 0 && rows.every((m) => m.processingStatus === 'ready' && m.previewFileId) && rows;
  }, `media of ${postId}`);
  const fetchMedia = (url: string, who?: TestUser | null, headers: Record<string, string> = {}) => fetch(`${t.url}${url}`, { headers: { ...(who?.headers ?? {}), ...headers } });
  /** How much a picture varies: a blurred checkerboard varies far less than a sharp one. */
  const sharpness = async (url: string, who?: TestUser | null) => {
    const res = await fetchMedia(url, who);
    expect(res.status, url).toBe(200);
    const stats = await sharp(Buffer.from(await res.arrayBuffer())).stats();
    return stats.channels[0]!.stdev;
  };

  it('lets a performer write posts with pictures or a video, free, for subscribers or for sale; processes their media', async () => {
    const subs = await create({ title: 'Behind the scenes', content: 'The whole story.\n\nSecond paragraph.', excerpt: 'A look behind the scenes', visibility: 'subscribers' }, [png(1), png(2)]);
    expect(subs.status, JSON.stringify(subs.body)).toBe(201);
    expect(subs.body).toMatchObject({ visibility: 'subscribers', price: 0, status: 'published', excerpt: 'A look behind the scenes' });
    expect(subs.body.media).toHaveLength(2);
    expect(subs.body.media[0]).toMatchObject({ kind: 'image', processingStatus: 'processing', previewUrl: null });
    ids.subs = subs.body._id;

    const sale = await create({ title: 'Pay per view set', content: 'Only for buyers.', visibility: 'sale', price: '499' }, [png(1)]);
    expect(sale.status, JSON.stringify(sale.body)).toBe(201);
    expect(sale.body).toMatchObject({ visibility: 'sale', price: 499 });
    ids.sale = sale.body._id;

    const free = await create({ title: 'Hello everyone', content: 'Free for all.' }, [png(1), { ...png(2), name: 'image' }]);
    expect(free.status, JSON.stringify(free.body)).toBe(201);
    expect(free.body).toMatchObject({ visibility: 'free' });
    expect(free.body.media).toHaveLength(2);
    ids.free = free.body._id;

    const video = await create({ title: 'A clip for members', content: 'Watch this.', visibility: 'subscribers' }, [{ name: 'video', filename: 'clip.mp4', data: media.video, type: 'video/mp4' }]);
    expect(video.status, JSON.stringify(video.body)).toBe(201);
    expect(video.body.media).toMatchObject([{ kind: 'video', processingStatus: 'processing' }]);
    ids.video = video.body._id;

    for (const id of Object.values(ids)) await ready(id);
    const [subsMedia, freeMedia, videoMedia] = [await mediaRows(ids.subs), await mediaRows(ids.free), await mediaRows(ids.video)];
    const key = async (fileId: string | null) => (await t.ctx.db.selectFrom('files').select('storageKey').where('id', '=', fileId!).executeTakeFirstOrThrow()).storageKey;
    // Locked: the preview is public, the sharp thumbnail and the picture in full are private.
    expect(await key(subsMedia[0]!.previewFileId)).toMatch(/^public\/posts\/previews\//);
    expect(await key(subsMedia[0]!.thumbFileId)).toMatch(/^private\/posts\/thumbs\//);
    expect(await key(subsMedia[0]!.displayFileId)).toMatch(/^private\/posts\/displays\//);
    expect(await key(subsMedia[0]!.fileId)).toMatch(/^private\/posts\/originals\//);
    // Free: the preview is sharp (no separate thumbnail) and the picture in full is public.
    expect(freeMedia[0]!.thumbFileId).toBeNull();
    expect(await key(freeMedia[0]!.displayFileId)).toMatch(/^public\/posts\/displays\//);
    expect(freeMedia.map((m) => [m.width, m.height])).toEqual([[64, 48], [64, 48]]);
    expect(videoMedia[0]).toMatchObject({ kind: 'video', width: 320, height: 240, displayFileId: null });
    expect(videoMedia[0]!.duration).toBeGreaterThan(2.5);

    const own = await get('/performer/assets/posts/search', w.perf);
    expect(own.body.items.map((p: { _id: string }) => p._id)).toEqual([ids.video, ids.free, ids.sale, ids.subs]);
    expect(own.body.items[3].media.every((m: { previewUrl: string | null }) => m.previewUrl?.startsWith('/media/public/posts/previews/'))).toBe(true);
  }, 60_000);

  it('refuses bad posts with a clear 4xx and keeps nothing', async () => {
    const before = await t.ctx.db.selectFrom('posts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const filesBefore = await t.ctx.db.selectFrom('files').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const cases: Array<[string, Promise<{ status: number; body: any }>, number, string]> = [
      ['sale without a price', create({ title: 'x', content: 'y', visibility: 'sale' }), 400, 'VALIDATION_FAILED'],
      ['an unknown visibility', create({ title: 'x', content: 'y', visibility: 'gold' }), 400, 'VALIDATION_FAILED'],
      ['a negative price', create({ title: 'x', content: 'y', visibility: 'sale', price: '-5' }), 400, 'VALIDATION_FAILED'],
      ['pictures and a video', create({ title: 'x', content: 'y' }, [png(1), { name: 'video', filename: 'c.mp4', data: media.video, type: 'video/mp4' }]), 400, 'VALIDATION_FAILED'],
      ['eleven pictures', create({ title: 'x', content: 'y' }, Array.from({ length: 11 }, (_, i) => png(i))), 400, 'BAD_REQUEST'],
      ['a PDF as a picture', create({ title: 'x', content: 'y' }, [{ name: 'file', filename: 'a.pdf', data: media.pdf, type: 'application/pdf' }]), 400, 'UNSUPPORTED_MEDIA'],
      ['a picture as the video', create({ title: 'x', content: 'y' }, [{ ...png(1), name: 'video' }]), 400, 'UNSUPPORTED_MEDIA'],
      ['no text', create({ title: 'x' }, [png(1)]), 400, 'VALIDATION_FAILED'],
      ['a fan', create({ title: 'x', content: 'y' }, [png(1)], w.fan), 403, 'FORBIDDEN'],
    ];
    for (const [what, res, status, code] of cases) {
      const r = await res;
      expect([what, r.status, r.body?.code], JSON.stringify(r.body)).toEqual([what, status, code]);
      expect(typeof r.body.message).toBe('string');
    }
    const guest = await postForm(t, '/performer/assets/posts', { fields: { title: 'x', content: 'y' } });
    expect(guest.status).toBe(401);
    const edit = (who: TestUser, body: Record<string, unknown>) => t.api(`/performer/assets/posts/${ids.subs}`, { method: 'PUT', headers: who.headers, json: body });
    expect((await edit(w.perf, { removeMedia: ['not-a-media-of-this-post'] })).status).toBe(400);
    expect((await edit(w.perf, { visibility: 'sale' })).status).toBe(400);
    expect((await edit(w.perf, { price: 'lots' })).status).toBe(400);
    const addVideo = await postForm(t, `/performer/assets/posts/${ids.subs}`, { files: [{ name: 'video', filename: 'c.mp4', data: media.video, type: 'video/mp4' }] }, { method: 'PUT', headers: w.perf.headers });
    expect([addVideo.status, addVideo.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    const tooMany = await postForm(t, `/performer/assets/posts/${ids.subs}`, { files: Array.from({ length: 9 }, (_, i) => png(i)) }, { method: 'PUT', headers: w.perf.headers });
    expect([tooMany.status, tooMany.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect((await get('/posts/search?scope=mine')).status).toBe(400);
    expect((await get('/posts/x%20y')).status).toBe(400);
    const after = await t.ctx.db.selectFrom('posts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const filesAfter = await t.ctx.db.selectFrom('files').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect([Number(after.n), Number(filesAfter.n)]).toEqual([Number(before.n), Number(filesBefore.n)]);
    expect((await mediaRows(ids.subs)).length).toBe(2);
  }, 60_000);

  it('shows a locked post as title, teaser and blurred previews to guests, fans and other performers; in full to subscribers, its performer and admins', async () => {
    const locked = [null, w.fan, w.perf2];
    const open = [w.fan2, w.perf, w.admin];
    const secretFiles = (await mediaRows(ids.subs)).flatMap((m) => [m.thumbFileId!, m.displayFileId!, m.fileId]);
    for (const who of locked) {
      const res = await get(`/posts/${ids.subs}`, who);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ locked: true, access: 'subscribers', content: null, excerpt: 'A look behind the scenes', imageCount: 2, hasVideo: false });
      expect(res.body.performer).toMatchObject({ _id: w.perf.id });
      for (const m of res.body.media) {
        expect(m.preview).toMatch(/^\/media\/public\/posts\/previews\//);
        expect([m.thumbnail, m.image, m.video]).toEqual([null, null, null]);
      }
      // A sharp file never reaches them: no signed URL, no private key, no id of a sharp file, not the text either.
      const text = JSON.stringify(res.body);
      expect(text).not.toContain('/media/protected/');
      expect(text).not.toContain('private/');
      expect(text).not.toContain('The whole story');
      for (const id of secretFiles) expect(text).not.toContain(id);
      const list = JSON.stringify((await get(`/posts/search?performerId=${w.perf.id}`, who)).body);
      expect(list).not.toContain('/media/protected/');
      for (const id of secretFiles) expect(list).not.toContain(id);
    }
    for (const who of open) {
      const res = await get(`/posts/${ids.subs}`, who);
      expect(res.body).toMatchObject({ locked: false, content: '<p>The whole story.</p>\n<p>Second paragraph.</p>' });
      for (const m of res.body.media) {
        expect(m.image).toMatch(/^\/media\/protected\/post\//);
        expect(m.thumbnail).toMatch(/^\/media\/protected\/post\//);
        const full = await fetchMedia(m.image, who);
        expect([full.status, full.headers.get('content-type'), full.headers.get('cache-control')]).toEqual([200, 'image/webp', 'private, no-store']);
      }
    }
    // The preview everyone gets is blurred; the subscriber's thumbnail of the same picture is sharp.
    const subscriberView = (await get(`/posts/${ids.subs}`, w.fan2)).body.media[0];
    expect(await sharpness(subscriberView.preview)).toBeLessThan((await sharpness(subscriberView.thumbnail, w.fan2)) / 2);
    // A URL signed for the subscriber opens for nobody else, and closes when the subscription does.
    expect((await fetchMedia(subscriberView.image, w.fan)).status).toBe(403);
    expect((await fetchMedia(subscriberView.image, null)).status).toBe(403);
    await t.ctx.db.updateTable('subscriptions').set({ expiresAt: new Date(Date.now() - 1000).toISOString() }).where('userId', '=', w.fan2.id).execute();
    const lapsed = await fetchMedia(subscriberView.image, w.fan2);
    expect([lapsed.status, (await lapsed.json()).code]).toEqual([403, 'LOCKED']);
    expect((await get(`/posts/${ids.subs}`, w.fan2)).body.locked).toBe(true);
    await t.ctx.db.updateTable('subscriptions').set({ expiresAt: new Date(Date.now() + 86_400_000).toISOString() }).where('userId', '=', w.fan2.id).execute();
  }, 60_000);

  it("serves a free post's pictures as public files to everyone, and a subscriber's video through the player's signed URL", async () => {
    const free = await get(`/posts/${ids.free}`);
    expect(free.body).toMatchObject({ locked: false, access: 'free', content: '<p>Free for all.</p>' });
    for (const m of free.body.media) {
      expect(m.image).toMatch(/^\/media\/public\/posts\/displays\//);
      expect(m.thumbnail).toBe(m.preview);
      expect((await fetchMedia(m.image)).status).toBe(200);
    }
    expect(JSON.stringify(free.body)).not.toContain('/media/protected/');

    const guest = await get(`/posts/${ids.video}`);
    expect(guest.body).toMatchObject({ locked: true, hasVideo: true, imageCount: 0 });
    expect(guest.body.media[0]).toMatchObject({ kind: 'video', video: null, thumbnail: null });
    expect(guest.body.media[0].preview).toMatch(/^\/media\/public\/posts\/previews\//);
    const sub = (await get(`/posts/${ids.video}`, w.fan2)).body.media[0];
    expect(sub.video).toMatchObject({ mime: 'video/mp4', width: 320, height: 240 });
    const ranged = await fetchMedia(sub.video.url, w.fan2, { range: 'bytes=0-99' });
    expect([ranged.status, ranged.headers.get('content-range')?.startsWith('bytes 0-99/')]).toEqual([206, true]);
    expect((await fetchMedia(sub.video.url, w.fan)).status).toBe(403);
  }, 60_000);

  it('sells a pay-per-view post through the sandbox gateway: the purchase opens it and shows in earnings and the ledger', async () => {
    const before = (await get(`/posts/${ids.sale}`, buyer)).body;
    expect(before).toMatchObject({ locked: true, access: 'sale', price: 499, content: null });
    // A subscription does not open a post for sale.
    expect((await get(`/posts/${ids.sale}`, w.fan2)).body.locked).toBe(true);

    const buy = (who: TestUser | null, id = ids.sale, json: unknown = {}) => t.api(`/payment/purchase-post/${id}`, { method: 'POST', headers: who?.headers ?? {}, json });
    expect((await buy(null)).status).toBe(401);
    expect([(await buy(buyer, ids.subs)).status, (await buy(buyer, ids.subs)).body.code]).toEqual([400, 'NOT_FOR_SALE']);
    expect((await buy(w.perf)).status).toBe(400);
    expect((await buy(buyer, 'no-such-post')).status).toBe(404);
    expect((await buy(buyer, ids.sale, { couponCode: 'not a code!' })).status).toBe(400);
    const checkout = await buy(buyer);
    expect(checkout.status, JSON.stringify(checkout.body)).toBe(201);
    expect(checkout.body).toMatchObject({ amount: 499, status: 'pending' });
    expect((await payWithSandbox(t, buyer, checkout.body.redirectUrl)).status).toBe(200);
    const payment = await waitFor(async () => {
      const p = await t.ctx.db.selectFrom('payments').selectAll().where('id', '=', checkout.body.paymentId).executeTakeFirst();
      return p?.status === 'success' && p;
    }, 'the post payment to settle');
    expect(payment).toMatchObject({ type: 'post', targetId: ids.sale, amount: 499 });

    const after = (await get(`/posts/${ids.sale}`, buyer)).body;
    expect(after).toMatchObject({ locked: false, content: '<p>Only for buyers.</p>' });
    expect((await fetchMedia(after.media[0].image, buyer)).status).toBe(200);
    expect([(await buy(buyer)).status, (await buy(buyer)).body.code]).toEqual([409, 'ALREADY_PURCHASED']);
    // The fan who did not buy still gets it locked.
    expect((await get(`/posts/${ids.sale}`, w.fan)).body.locked).toBe(true);

    const earnings = await get('/earning/performer/search?sourceType=post', w.perf);
    expect(earnings.status).toBe(200);
    expect(earnings.body.items).toMatchObject([{ paymentId: checkout.body.paymentId, sourceType: 'post', entry: 'credit', gross: 499, test: true }]);
    expect(earnings.body.items[0].net + earnings.body.items[0].commission).toBe(499);
    const tx = await get('/payment/transactions', buyer);
    expect(tx.body.items.find((p: { _id: string }) => p._id === checkout.body.paymentId)).toMatchObject({ type: 'post', status: 'success' });
    const l = await ledger(t.ctx.db);
    expect(l.net + l.commission).toBe(l.paid);

    // Deleting a bought post only hides it; the entitlement stays.
    expect((await t.api(`/performer/assets/posts/${ids.sale}`, { method: 'DELETE', headers: w.perf.headers })).status).toBe(204);
    expect((await t.ctx.db.selectFrom('posts').select('status').where('id', '=', ids.sale).executeTakeFirstOrThrow()).status).toBe('hidden');
    expect((await get(`/posts/${ids.sale}`, buyer)).status).toBe(404);
    expect((await get(`/posts/${ids.sale}`, w.perf)).status).toBe(200);
  }, 60_000);

  it("keeps the owner's posts to the owner: another performer cannot edit or delete them, an admin may moderate and only an admin restores", async () => {
    const edit = (who: TestUser, body: Record<string, unknown>) => t.api(`/performer/assets/posts/${ids.free}`, { method: 'PUT', headers: who.headers, json: body });
    expect((await edit(w.perf2, { title: 'Mine now' })).status).toBe(404);
    expect((await t.api(`/performer/assets/posts/${ids.free}`, { method: 'DELETE', headers: w.perf2.headers })).status).toBe(404);
    expect((await t.api(`/performer/assets/posts/${ids.free}`, { method: 'DELETE', headers: w.fan.headers })).status).toBe(403);
    const moderated = await edit(w.admin, { status: 'hidden' });
    expect([moderated.status, moderated.body.status]).toEqual([200, 'hidden']);
    expect((await get(`/posts/${ids.free}`)).status).toBe(404);
    // Taken down by an admin, it stays down until an admin puts it back.
    const back = await edit(w.perf, { status: 'published' });
    expect([back.status, back.body.code]).toEqual([403, 'HIDDEN_BY_ADMIN']);
    expect((await get(`/posts/${ids.free}`)).status).toBe(404);
    expect((await edit(w.admin, { status: 'published' })).body.status).toBe('published');
    expect((await get(`/posts/${ids.free}`)).status).toBe(200);
    expect((await t.ctx.db.selectFrom('posts').select('title').where('id', '=', ids.free).executeTakeFirstOrThrow()).title).toBe('Hello everyone');
  });

  it('withdraws a free post\'s public pictures at once when it is locked, and processes them again blurred and private', async () => {
    const before = (await get(`/posts/${ids.free}`)).body.media as Array<{ _id: string; image: string; preview: string }>;
    const sharpBefore = await sharpness(before[0]!.preview);
    const res = await t.api(`/performer/assets/posts/${ids.free}`, { method: 'PUT', headers: w.perf.headers, json: { visibility: 'subscribers' } });
    expect([res.status, res.body.visibility]).toEqual([200, 'subscribers']);
    for (const m of before) {
      expect((await fetchMedia(m.image)).status).toBe(404);
      expect((await fetchMedia(m.preview)).status).toBe(404);
    }
    await ready(ids.free);
    const after = (await get(`/posts/${ids.free}`)).body;
    expect(after.locked).toBe(true);
    expect(JSON.stringify(after)).not.toContain('/media/public/posts/displays/');
    expect(await sharpness(after.media[0].preview)).toBeLessThan(sharpBefore / 2);
    // Edits add and remove media: one picture removed, one added after the other.
    const removed = await postForm(t, `/performer/assets/posts/${ids.free}`, { fields: { removeMedia: before[0]!._id }, files: [png(3)] }, { method: 'PUT', headers: w.perf.headers });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body.media.map((m: { _id: string }) => m._id)[0]).toBe(before[1]!._id);
    expect(removed.body.media).toHaveLength(2);
    expect(await t.ctx.db.selectFrom('files').select('id').where('id', '=', (await mediaRows(ids.free))[0]!.fileId).executeTakeFirst()).toBeTruthy();
  }, 60_000);

  it("lists a performer's posts on their page newest first, keyset-paged; the blog keeps the site's own posts", async () => {
    const site = await makePost(t.ctx, { title: 'Site news' });
    const walk = async (path: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: { status: number; body: any } = await get(`${path}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(res.status).toBe(200);
        seen.push(...res.body.items.map((p: { _id: string }) => p._id));
        cursor = res.body.nextCursor;
      } while (cursor);
      return seen;
    };
    expect(await walk(`/posts/search?performerId=${w.perf.id}`)).toEqual([ids.video, ids.free, ids.subs]);
    expect(await walk('/posts/search?scope=site')).toEqual([site.id]);
    const all = (await get('/posts/search')).body.items.map((p: { _id: string }) => p._id);
    expect(all).toEqual(expect.arrayContaining([site.id, ids.subs]));
    const card = (await get(`/posts/search?performerId=${w.perf.id}`)).body.items.find((p: { _id: string }) => p._id === ids.subs);
    expect(card).toMatchObject({ locked: true, imageCount: 2, hasVideo: false, access: 'subscribers' });
    expect(card.image).toMatch(/^\/media\/public\/posts\/previews\//);
    expect(card).not.toHaveProperty('content');
    // A site post still opens at /posts/{id}, free, with its own picture.
    expect((await get(`/posts/${site.id}`)).body).toMatchObject({ title: 'Site news', locked: false, access: 'free', performer: null, media: [] });
  });

  it('keeps the comments of a locked post to those it is open to; reactions work on posts', async () => {
    const read = (who: TestUser | null) => get(`/comments/search?objectType=post&objectId=${ids.subs}`, who);
    const locked = await read(w.fan);
    expect([locked.status, locked.body.code, locked.body.details?.needs]).toEqual([403, 'LOCKED', 'subscription']);
    expect((await read(null)).status).toBe(403);
    const write = (who: TestUser) => t.api('/comments', { method: 'POST', headers: who.headers, json: { objectType: 'post', objectId: ids.subs, content: 'Lovely set' } });
    expect((await write(w.fan)).status).toBe(403);
    expect((await write(w.fan2)).status).toBe(201);
    expect((await read(w.fan2)).body.total).toBe(1);
    const like = await t.api('/reactions', { method: 'POST', headers: w.fan.headers, json: { objectType: 'post', objectId: ids.subs, action: 'like' } });
    expect(like.status).toBe(200);
    expect((await get(`/posts/${ids.subs}`)).body).toMatchObject({ likeCount: 1, commentCount: 1 });
  });
});
