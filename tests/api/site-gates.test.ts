import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { entitle, makeGallery, makePost, makeProduct, makeVideo } from '../../server/seed/factories.js';
import { connectSocket } from '../helpers/realtime-client.js';
import { hashPassword } from '../../server/auth/password.js';

/**
 * The site gates (server/http/site-gates.ts) on every way in other than pages: the JSON API, protected media and
 * the socket.io handshake. Countries come from the trusted COUNTRY_HEADER (X-Country here).
 */
describe.each(engines)('site gates on %s', (engine) => {
  let t: TestApp;
  let admin: TestUser;
  let fan: TestUser;
  let performer: TestUser;
  let video: { id: string };
  const password = 'correct horse battery';
  const from = (country: string, who?: TestUser) => ({ headers: { 'x-country': country, ...who?.headers } });
  const media = (url: string, init: { headers?: Record<string, string> } = {}) => fetch(new URL(url, t.url), init);

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { COUNTRY_HEADER: 'X-Country' } });
    admin = await createUser(t.ctx.db, 'admin');
    fan = await createUser(t.ctx.db, 'user');
    await t.ctx.db.updateTable('users').set({ passwordHash: await hashPassword(password) }).where('id', '=', fan.id).execute();
    performer = await createUser(t.ctx.db, 'performer');
    video = await makeVideo(t.ctx, performer.id, { title: 'Gate clip', access: 'free' });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A guest's signed URL of the free video's full file, asked for from a country that is not blocked. */
  async function signedVideoUrl(): Promise<string> {
    const res = await t.api(`/user/assets/videos/${video.id}`, from('FR'));
    expect(res.status).toBe(200);
    return res.body.video.url as string;
  }

  async function handshakeRefusal(opts: Parameters<typeof connectSocket>[1]): Promise<{ message: string; data: unknown } | null> {
    try {
      const socket = await connectSocket(t.url, opts);
      socket.disconnect();
      return null;
    } catch (err) {
      const e = err as Error & { data?: unknown };
      return { message: e.message, data: e.data };
    }
  }

  it('maintenance mode: the API answers 503 JSON with Retry-After to guests and fans; login, logout, the settings read, the country check and /health stay open; admins pass', async () => {
    const url = await signedVideoUrl();
    await t.ctx.settings.set('maintenanceMode', true);
    try {
      for (const who of [undefined, fan]) {
        const res = await t.api('/user/assets/videos/search', { headers: who?.headers });
        expect(res.status).toBe(503);
        expect(res.body).toEqual({ message: expect.any(String), code: 'MAINTENANCE' });
        expect(res.headers.get('retry-after')).toBe('300');
        expect(res.headers.get('content-type')).toMatch(/application\/json/);
      }
      expect((await t.api('/users/me', { headers: fan.headers })).status).toBe(503);
      expect((await t.api('/comments', { method: 'POST', headers: fan.headers, json: { objectType: 'video', objectId: video.id, content: 'hi' } })).status).toBe(503);
      // What stays open.
      const settings = await t.api('/settings/public');
      expect(settings.status).toBe(200);
      expect(settings.body.maintenanceMode).toBe(true);
      expect((await t.api('/country-block/check')).status).toBe(200);
      expect((await fetch(`${t.url}/health`)).status).toBe(200);
      const login = await t.api('/auth/login', { method: 'POST', json: { email: fan.email, password } });
      expect(login.status).toBe(200);
      expect((await t.api('/auth/logout', { method: 'POST', headers: { authorization: `Bearer ${login.body.token}` } })).status).toBeLessThan(300);
      // Admins pass.
      expect((await t.api('/user/assets/videos/search', { headers: admin.headers })).status).toBe(200);
      expect((await t.api('/admin/settings', { headers: admin.headers })).status).toBe(200);
      // Protected media: same status; an admin passes.
      const refused = await media(url);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('300');
      expect(await refused.json()).toMatchObject({ code: 'MAINTENANCE' });
      expect((await media(url, { headers: admin.headers })).status).toBe(200);
      // socket.io: the handshake is refused with a reason; an admin connects.
      expect(await handshakeRefusal({})).toEqual({ message: expect.stringMatching(/maintenance/i), data: { code: 'MAINTENANCE', status: 503 } });
      expect(await handshakeRefusal({ token: fan.token })).toMatchObject({ data: { code: 'MAINTENANCE' } });
      expect(await handshakeRefusal({ token: admin.token })).toBeNull();
    } finally {
      await t.ctx.settings.set('maintenanceMode', false);
    }
    expect((await t.api('/user/assets/videos/search')).status).toBe(200);
    expect((await media(url)).status).toBe(200);
    expect(await handshakeRefusal({})).toBeNull();
  });

  it('a blocked country: the API answers 451 JSON, protected media 451, the socket.io handshake is refused; admins from there pass, other countries too', async () => {
    const url = await signedVideoUrl();
    await t.ctx.geo.block('RU');
    try {
      for (const who of [undefined, fan]) {
        const res = await t.api('/user/assets/videos/search', from('RU', who));
        expect(res.status).toBe(451);
        expect(res.body).toEqual({ message: expect.any(String), code: 'COUNTRY_BLOCKED' });
      }
      expect((await t.api('/comments', { method: 'POST', json: { objectType: 'video', objectId: video.id, content: 'hi' }, ...from('RU', fan) })).status).toBe(451);
      // The check itself answers, and says so.
      expect((await t.api('/country-block/check', from('RU'))).body).toEqual({ blocked: true, country: 'RU' });
      expect((await t.api('/settings/public', from('RU'))).status).toBe(200);
      // Admins from there and visitors from elsewhere pass.
      expect((await t.api('/user/assets/videos/search', from('RU', admin))).status).toBe(200);
      expect((await t.api('/user/assets/videos/search', from('FR', fan))).status).toBe(200);
      expect((await t.api('/user/assets/videos/search')).status).toBe(200);
      // Protected media.
      const refused = await media(url, from('RU'));
      expect(refused.status).toBe(451);
      expect(await refused.json()).toMatchObject({ code: 'COUNTRY_BLOCKED' });
      expect((await media(url, from('RU', admin))).status).toBe(200);
      expect((await media(url, from('FR'))).status).toBe(200);
      // socket.io.
      expect(await handshakeRefusal({ headers: { 'x-country': 'RU' } })).toEqual({ message: expect.stringMatching(/country/i), data: { code: 'COUNTRY_BLOCKED', status: 451 } });
      expect(await handshakeRefusal({ headers: { 'x-country': 'RU' }, token: fan.token })).toMatchObject({ data: { code: 'COUNTRY_BLOCKED' } });
      expect(await handshakeRefusal({ headers: { 'x-country': 'RU' }, token: admin.token })).toBeNull();
      expect(await handshakeRefusal({ headers: { 'x-country': 'FR' } })).toBeNull();
    } finally {
      await t.ctx.geo.unblock('RU');
    }
    expect((await t.api('/user/assets/videos/search', from('RU'))).status).toBe(200);
  });
});

/**
 * A performer's own country block (performer_blocked_countries): for a visitor from a blocked country the
 * performer's content does not exist (absent from lists and counts, 404 on details, comments, downloads and
 * protected files); visitors from elsewhere, the performer and admins see it.
 */
describe.each(engines)('a performer\'s country block on %s', (engine) => {
  let t: TestApp;
  let admin: TestUser;
  let fan: TestUser;
  let blocker: TestUser;
  let other: TestUser;
  const ids: Record<string, string> = {};
  let fileUrls: Record<'video' | 'photo' | 'product', string>;
  const as = (country: string, who?: TestUser) => ({ headers: { 'x-country': country, ...who?.headers } });

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { COUNTRY_HEADER: 'X-Country' } });
    admin = await createUser(t.ctx.db, 'admin');
    fan = await createUser(t.ctx.db, 'user');
    blocker = await createUser(t.ctx.db, 'performer', { username: 'qzblocker', name: 'Qz Blocker' });
    other = await createUser(t.ctx.db, 'performer', { username: 'qzother', name: 'Qz Other' });
    await t.ctx.db.insertInto('performerBlockedCountries').values({ performerId: blocker.id, countryCode: 'DE' }).execute();
    const video = await makeVideo(t.ctx, blocker.id, { title: 'Qz blocked video', access: 'free' });
    const gallery = await makeGallery(t.ctx, blocker.id, { title: 'Qz blocked gallery', access: 'free', photos: 2 });
    const product = await makeProduct(t.ctx, blocker.id, { name: 'Qz blocked guide', type: 'digital' });
    const post = await makePost(t.ctx, { title: 'Qz blocked post', performerId: blocker.id });
    Object.assign(ids, { video: video.id, gallery: gallery.id, photo: gallery.photos[0]!.id, product: product.id, post: post.id, performer: blocker.id });
    const otherVideo = await makeVideo(t.ctx, other.id, { title: 'Qz other video', access: 'free' });
    ids.otherVideo = otherVideo.id;
    await entitle(t.ctx.db, fan.id, 'product', product.id);
    // The fan keeps the blocker's video and gallery in their lists (added while travelling, say).
    for (const [objectType, objectId] of [['video', video.id], ['gallery', gallery.id]] as const) {
      for (const action of ['favourite', 'watch_later'] as const) {
        expect((await t.api('/reactions', { method: 'POST', json: { objectType, objectId, action }, ...as('FR', fan) })).status).toBe(200);
      }
    }
    expect((await t.api('/comments', { method: 'POST', json: { objectType: 'video', objectId: video.id, content: 'Lovely' }, ...as('FR', fan) })).status).toBe(201);
    // Signed URLs of the full files, handed out to the fan in another country.
    const v = await t.api(`/user/assets/videos/${video.id}`, as('FR', fan));
    const photos = await t.api(`/user/assets/gallery/${gallery.id}/photos`, as('FR', fan));
    const link = await t.api(`/user/assets/products/${product.id}/download-link`, as('FR', fan));
    fileUrls = { video: v.body.video.url, photo: photos.body.items[0].photo.url, product: link.body.downloadLink };
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Item ids of a list; a reaction list's items name their object. */
  const idsOf = (body: { items: Array<Record<string, any>> }) => body.items.map((i) => (i.action ? i.objectId : i._id));

  /** Lists: [name, path, the id that must appear or not, who asks]. */
  const lists = (): Array<[string, string, string, TestUser | undefined]> => [
    ['videos', '/user/assets/videos/search?q=qz', ids.video!, undefined],
    ['videos of the performer', `/user/assets/videos/search?performerId=${blocker.id}`, ids.video!, undefined],
    ['galleries', '/user/assets/galleries/search?q=qz', ids.gallery!, undefined],
    ['photos of the performer', `/user/assets/photos?performerId=${blocker.id}`, ids.photo!, undefined],
    ['products', '/user/assets/products/search?q=qz', ids.product!, undefined],
    ['posts', '/posts/search?q=qz', ids.post!, undefined],
    ['performers', '/performers/search?q=qz', blocker.id, undefined],
    ['favourite videos', '/reactions/videos?action=favourite', ids.video!, fan],
    ['watch-later videos', '/reactions/videos?action=watch_later', ids.video!, fan],
    ['favourite galleries', '/reactions/galleries?action=favourite', ids.gallery!, fan],
    ['watch-later galleries', '/reactions/galleries?action=watch_later', ids.gallery!, fan],
  ];

  it.each([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])('list %#: absent for a visitor from the blocked country, present elsewhere and for the performer and admins', async (n) => {
    const [name, path, id, who] = lists()[n]!;
    const de = await t.api(path, as('DE', who));
    expect(de.status, name).toBe(200);
    expect(idsOf(de.body), name).not.toContain(id);
    const fr = await t.api(path, as('FR', who));
    expect(idsOf(fr.body), name).toContain(id);
    expect(de.body.total, name).toBeLessThan(fr.body.total);
    if (!who) {
      expect(idsOf((await t.api(path, as('DE', blocker))).body), name).toContain(id);
      expect(idsOf((await t.api(path, as('DE', admin))).body), name).toContain(id);
    }
  });

  it('search totals leave the performer and their content out for the blocked country', async () => {
    const de = (await t.api('/search/total?q=qz', as('DE'))).body;
    const fr = (await t.api('/search/total?q=qz', as('FR'))).body;
    expect(fr).toMatchObject({ performers: 2, videos: 2, galleries: 1, products: 1, posts: 1 });
    expect(de).toMatchObject({ performers: 1, videos: 1, galleries: 0, products: 0, posts: 0 });
    expect((await t.api('/search/total?q=qz', as('DE', admin))).body).toEqual(fr);
  });

  /** Details: 404 from the blocked country, 200 elsewhere, 200 for the performer and admins from there. */
  const details = (): Array<[string, string, TestUser | undefined]> => [
    ['video', `/user/assets/videos/${ids.video}`, undefined],
    ['gallery', `/user/assets/galleries/${ids.gallery}/view`, undefined],
    ['photos of the gallery', `/user/assets/gallery/${ids.gallery}/photos`, undefined],
    ['product', `/user/assets/products/${ids.product}`, undefined],
    ['post', `/posts/${ids.post}`, undefined],
    ['performer', '/performers/qzblocker', undefined],
    ['comments of the video', `/comments/search?objectType=video&objectId=${ids.video}`, undefined],
    ['comments of the performer', `/comments/search?objectType=performer&objectId=${blocker.id}`, undefined],
    ['download link', `/user/assets/products/${ids.product}/download-link`, fan],
  ];

  it.each([0, 1, 2, 3, 4, 5, 6, 7, 8])('detail %#: 404 for a visitor from the blocked country, 200 elsewhere and for the performer and admins', async (n) => {
    const [name, path, who] = details()[n]!;
    const de = await t.api(path, as('DE', who));
    expect(de.status, name).toBe(404);
    expect(de.body.code, name).toBe('NOT_FOUND');
    expect((await t.api(path, as('FR', who))).status, name).toBe(200);
    expect((await t.api(path, as('DE', blocker))).status, name).toBe(200);
    expect((await t.api(path, as('DE', admin))).status, name).toBe(200);
  });

  it('comments and reactions cannot be written on the performer\'s objects from the blocked country', async () => {
    const comment = (country: string) => t.api('/comments', { method: 'POST', json: { objectType: 'video', objectId: ids.video, content: 'Hi' }, ...as(country, fan) });
    expect((await comment('DE')).status).toBe(404);
    expect((await comment('FR')).status).toBe(201);
    const onPerformer = await t.api('/comments', { method: 'POST', json: { objectType: 'performer', objectId: blocker.id, content: 'Hi' }, ...as('DE', fan) });
    expect(onPerformer.status).toBe(404);
    const like = (country: string) => t.api('/reactions', { method: 'POST', json: { objectType: 'product', objectId: ids.product, action: 'like' }, ...as(country, fan) });
    expect((await like('DE')).status).toBe(404);
    expect((await like('FR')).status).toBe(200);
    // Another performer's objects are not affected.
    const otherComment = await t.api('/comments', { method: 'POST', json: { objectType: 'video', objectId: ids.otherVideo, content: 'Hi' }, ...as('DE', fan) });
    expect(otherComment.status).toBe(201);
  });

  it.each(['video', 'photo', 'product'] as const)('protected %s file: 404 from the blocked country, served elsewhere and to admins', async (kind) => {
    const url = new URL(fileUrls[kind], t.url);
    const de = await fetch(url, as('DE', fan));
    expect(de.status).toBe(404);
    expect(await de.json()).toMatchObject({ code: 'NOT_FOUND' });
    expect((await fetch(url, as('FR', fan))).status).toBe(200);
  });
});

/** The micro-cache keeps anonymous answers per visitor country, so a cached list never crosses a country block. */
describe.each(engines)('micro-cache and country blocks on %s', (engine) => {
  let t: TestApp;
  let blocker: TestUser;
  let videoId: string;
  const as = (country: string) => ({ headers: { 'x-country': country } });

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { COUNTRY_HEADER: 'X-Country', PAGE_CACHE_MS: '60000' } });
    blocker = await createUser(t.ctx.db, 'performer');
    await t.ctx.db.insertInto('performerBlockedCountries').values({ performerId: blocker.id, countryCode: 'DE' }).execute();
    videoId = (await makeVideo(t.ctx, blocker.id, { access: 'free' })).id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves each country its own cached answer', async () => {
    const path = `/user/assets/videos/search?performerId=${blocker.id}`;
    const fr = await t.api(path, as('FR'));
    expect(fr.headers.get('x-cache')).toBe('MISS');
    expect(fr.body.items.map((i: { _id: string }) => i._id)).toEqual([videoId]);
    const de = await t.api(path, as('DE'));
    expect(de.headers.get('x-cache')).toBe('MISS');
    expect(de.body.items).toEqual([]);
    const frAgain = await t.api(path, as('FR'));
    expect(frAgain.headers.get('x-cache')).toBe('HIT');
    expect(frAgain.body.items.map((i: { _id: string }) => i._id)).toEqual([videoId]);
    const deAgain = await t.api(path, as('DE'));
    expect(deAgain.headers.get('x-cache')).toBe('HIT');
    expect(deAgain.body.items).toEqual([]);
    // A detail the blocked country gets 404 for is never cached for it, and the other country's copy is not served to it.
    expect((await t.api(`/user/assets/videos/${videoId}`, as('FR'))).status).toBe(200);
    expect((await t.api(`/user/assets/videos/${videoId}`, as('DE'))).status).toBe(404);
  });
});
