import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { daysFromNow, makeGallery, makeProduct, makeVideo } from '../../server/seed/factories.js';
import { recordingClient } from '../helpers/api-calls.js';

/**
 * Catalogue visibility fixes: only approved performers are listed; performer_blocked_countries hides a
 * performer and their content from visitors of those countries; GET /search/total counts with the lists' rules.
 */
describe.each(engines)('catalogue visibility on %s', (engine) => {
  let t: TestApp;
  let blocker: TestUser;
  let pending: TestUser;
  let plain: TestUser;
  let fan: TestUser;
  const v: Record<string, { id: string }> = {};
  const { get, serverErrors } = recordingClient(() => t);
  const from = (country: string) => ({ headers: { 'x-country': country } });

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { COUNTRY_HEADER: 'X-Country' } });
    blocker = await createUser(t.ctx.db, 'performer', { username: 'zedblocker', name: 'Zed Blocker' });
    pending = await createUser(t.ctx.db, 'performer', { username: 'zedpending', name: 'Zed Pending', performer: { approved: 0 } });
    plain = await createUser(t.ctx.db, 'performer', { username: 'zedplain', name: 'Zed Plain' });
    fan = await createUser(t.ctx.db, 'user', { username: 'zedfan' });
    await t.ctx.db.insertInto('performerBlockedCountries').values({ performerId: blocker.id, countryCode: 'DE' }).execute();
    v.blocker = await makeVideo(t.ctx, blocker.id, { title: 'Zebra blocked clip', access: 'free', publishedAt: daysFromNow(-1) });
    v.pending = await makeVideo(t.ctx, pending.id, { title: 'Zebra pending clip', access: 'free', publishedAt: daysFromNow(-1) });
    v.plain = await makeVideo(t.ctx, plain.id, { title: 'Zebra plain clip', access: 'free', publishedAt: daysFromNow(-1) });
    v.draft = await makeVideo(t.ctx, plain.id, { title: 'Zebra draft clip', status: 'draft', publishedAt: null });
    v.processing = await makeVideo(t.ctx, plain.id, { title: 'Zebra processing clip', processingStatus: 'processing', withFiles: false });
    v.scheduled = await makeVideo(t.ctx, plain.id, { title: 'Zebra scheduled clip', scheduledAt: daysFromNow(2), publishedAt: daysFromNow(2) });
    await makeGallery(t.ctx, plain.id, { title: 'Zebra gallery', access: 'free', photos: 1, publishedAt: daysFromNow(-1) });
    await makeGallery(t.ctx, plain.id, { title: 'Zebra draft gallery', status: 'draft', photos: 1 });
    await makeGallery(t.ctx, pending.id, { title: 'Zebra pending gallery', access: 'free', photos: 1 });
    await makeProduct(t.ctx, plain.id, { name: 'Zebra mug' });
    await makeProduct(t.ctx, pending.id, { name: 'Zebra pending mug' });
  });
  afterAll(async () => {
    expect(serverErrors).toEqual([]);
    await t?.close();
  });

  const usernames = (body: { items: Array<{ username: string }> }) => body.items.map((p) => p.username).sort();

  it('lists and shows only approved performers (their own performer still sees an unapproved profile)', async () => {
    expect(usernames((await get('/performers/search?q=zed')).body)).toEqual(['zedblocker', 'zedplain']);
    expect((await get('/performers/zedpending')).status).toBe(404);
    expect((await get('/performers/zedpending', { headers: pending.headers })).status).toBe(200);
    const videos = (await get('/user/assets/videos/search?q=zebra')).body.items.map((i: { _id: string }) => i._id);
    expect(videos).not.toContain(v.pending!.id);
    expect((await get(`/user/assets/videos/${v.pending!.id}`)).status).toBe(404);
  });

  it('hides a performer from visitors of a country they block, on the directory and the detail endpoints', async () => {
    expect(usernames((await get('/performers/search?q=zed', from('DE'))).body)).toEqual(['zedplain']);
    expect(usernames((await get('/performers/search?q=zed', from('FR'))).body)).toEqual(['zedblocker', 'zedplain']);
    expect((await get('/performers/zedblocker', from('DE'))).status).toBe(404);
    expect((await get('/performers/zedblocker', from('FR'))).status).toBe(200);
    expect((await get(`/user/assets/videos/${v.blocker!.id}`, from('DE'))).status).toBe(404);
    expect((await get(`/user/assets/videos/${v.blocker!.id}`, from('FR'))).status).toBe(200);
    // Unknown country: not blocked. The performer themself is never blocked.
    expect((await get('/performers/zedblocker')).status).toBe(200);
    expect((await get('/performers/zedblocker', { headers: { ...blocker.headers, 'x-country': 'DE' } })).status).toBe(200);
    expect((await get(`/user/assets/videos/${v.blocker!.id}`, { headers: { ...fan.headers, 'x-country': 'DE' } })).status).toBe(404);
  });

  it('counts search totals with the same visibility rules as the lists', async () => {
    const totals = (await get('/search/total?q=zebra')).body;
    const list = async (path: string) => (await get(path)).body.total as number;
    expect(totals.videos).toBe(await list('/user/assets/videos/search?q=zebra'));
    expect(totals.videos).toBe(2); // blocker + plain: not the draft, processing, scheduled or unapproved performer's clip
    expect(totals.galleries).toBe(await list('/user/assets/galleries/search?q=zebra'));
    expect(totals.galleries).toBe(1);
    expect(totals.products).toBe(await list('/user/assets/products/search?q=zebra'));
    expect(totals.products).toBe(1);
    expect((await get('/search/total?q=zed')).body.performers).toBe(2);
  });

  it('lists a performer\'s own videos, galleries and posts in every state for the studio', async () => {
    const own = await get('/performer/assets/videos/search?limit=50', plain);
    expect(own.status).toBe(200);
    const titles = own.body.items.map((i: { title: string }) => i.title);
    expect(titles).toEqual(expect.arrayContaining(['Zebra plain clip', 'Zebra draft clip', 'Zebra processing clip', 'Zebra scheduled clip']));
    expect(titles).not.toContain('Zebra blocked clip');
    expect(own.body.total).toBe(4);
    expect((await get('/performer/assets/videos/search?limit=2', plain)).body.items).toHaveLength(2);
    const galleries = await get('/performer/assets/galleries/search', plain);
    expect(galleries.body.items.map((g: { title: string }) => g.title).sort()).toEqual(['Zebra draft gallery', 'Zebra gallery']);
    expect((await get('/performer/assets/posts/search', plain)).body).toEqual({ items: [], total: 0 });
    expect((await get('/performer/assets/videos/search', fan)).status).toBe(403);
    expect((await get('/performer/assets/videos/search')).status).toBe(401);
    expect((await get('/performer/assets/videos/search?limit=0', plain)).status).toBe(400);
  });
});
