import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { daysFromNow, linkCategory, makeCategory, makeGallery, makePost, makeProduct, makeVideo, tagObject } from '../../server/seed/factories.js';
import { recordingClient } from '../helpers/api-calls.js';
import { encodeCursor } from '../../server/http/pagination.js';

/**
 * Search finds what people type (server/catalogue/search.repository.ts): "yoga" finds a performer by name, bio, tag
 * or category, and a video by title, tag, category or description; best match first (name, then tags and categories,
 * then description); /search/total counts exactly what each list holds and nothing that is not public.
 */
describe.each(engines)('keyword search on %s', (engine) => {
  let t: TestApp;
  const { get, serverErrors } = recordingClient(() => t);
  const from = (country: string) => ({ headers: { 'x-country': country } });
  const ids = (body: { items: Array<{ _id: string }> }) => body.items.map((i) => i._id);
  const p: Record<string, TestUser> = {};
  const v: Record<string, { id: string }> = {};
  const other: Record<string, { id: string }> = {};

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { COUNTRY_HEADER: 'X-Country' } });
    const db = t.ctx.db;
    const performer = (username: string, name: string, o: NonNullable<Parameters<typeof createUser>[2]>['performer'] = {}) => createUser(db, 'performer', { username, name, performer: o });
    // Usernames and names are chosen so that only the intended field of each holds "yoga".
    p.byName = await performer('yuki', 'Yuki Yoga', { subscriberCount: 10 });
    p.byCategory = await performer('cathy', 'Cathy Stone', { subscriberCount: 50 });
    p.byTag = await performer('tomas', 'Tomas Reed', { subscriberCount: 5 });
    p.byBio = await performer('beatrix', 'Beatrix Brown', { bio: 'Certified YOGA teacher from the coast.', subscriberCount: 500 });
    p.blocker = await performer('blocker', 'Bo Locke', { bio: 'Yoga, but not for everyone.', subscriberCount: 1 });
    p.pending = await performer('pending', 'Yoga Pending', { approved: 0, subscriberCount: 900 });
    p.inactive = await performer('gone', 'Yoga Gone', { status: 'inactive', subscriberCount: 900 });
    p.plain = await performer('noel', 'Noel Painter', { bio: 'Oils and gouache.', subscriberCount: 700 });
    const fitness = await makeCategory(db, 'performer', 'Fitness & Yoga');
    await linkCategory(db, fitness.id, 'performer', p.byCategory.id);
    await tagObject(db, 'performer', p.byTag.id, ['yoga', 'stretching']);
    await db.insertInto('performerBlockedCountries').values({ performerId: p.blocker.id, countryCode: 'DE' }).execute();

    const video = (owner: TestUser, title: string, o: NonNullable<Parameters<typeof makeVideo>[2]> = {}) => makeVideo(t.ctx, owner.id, { title, withFiles: false, ...o });
    v.byTitle = await video(p.plain, 'Yoga at dawn', { publishedAt: daysFromNow(-3) });
    v.percent = await video(p.plain, 'Yoga 100% effort', { publishedAt: daysFromNow(-4) });
    v.blocked = await video(p.blocker, 'Yoga by the sea', { publishedAt: daysFromNow(-5) });
    // Newer than the title matches, yet ranked after them.
    v.byTag = await video(p.plain, 'Morning flow', { publishedAt: daysFromNow(-1), tagsList: ['yoga', 'mobility'] });
    v.byCategory = await video(p.plain, 'Evening flow', { publishedAt: daysFromNow(-2) });
    v.byDescription = await video(p.plain, 'Hip openers', { description: 'A gentle yoga sequence for desk workers.', publishedAt: daysFromNow(-0.5) });
    v.draft = await video(p.plain, 'Yoga draft', { status: 'draft', publishedAt: null });
    v.scheduled = await video(p.plain, 'Yoga later', { publishedAt: daysFromNow(2), scheduledAt: daysFromNow(2) });
    v.processing = await video(p.plain, 'Yoga processing', { processingStatus: 'processing' });
    v.pending = await video(p.pending, 'Yoga by a pending performer');
    v.unrelated = await video(p.plain, 'Still life in oils', { publishedAt: daysFromNow(-1), tagsList: ['painting'] });
    const classes = await makeCategory(db, 'video', 'Yoga classes');
    await linkCategory(db, classes.id, 'video', v.byCategory.id);

    other.gallery = await makeGallery(t.ctx, p.plain.id, { title: 'Beach day', tagsList: ['yoga'], photos: 0 });
    other.draftGallery = await makeGallery(t.ctx, p.plain.id, { title: 'Yoga outtakes', status: 'draft', photos: 0 });
    other.product = await makeProduct(t.ctx, p.plain.id, { name: 'Cork block', description: 'Made for yoga.' });
    other.blockedProduct = await makeProduct(t.ctx, p.blocker.id, { name: 'Yoga mat' });
    other.post = await makePost(t.ctx, { title: 'Weekly notes', excerpt: 'Three yoga tips.' });
    other.draftPost = await makePost(t.ctx, { title: 'Yoga draft post', status: 'draft', publishedAt: null });
    // A post's text is what is sold: it is not searched.
    other.textOnly = await makePost(t.ctx, { title: 'Studio news', excerpt: 'What changed.', content: '<p>New yoga room.</p>' });
  });
  afterAll(async () => {
    expect(serverErrors).toEqual([]);
    await t?.close();
  });

  /** Every id of a list, following nextCursor with pages of two (relevance cursors cross from one rank to the next). */
  async function all(path: string, who?: { headers: Record<string, string> }): Promise<string[]> {
    const out: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 50; i++) {
      const res = await get(`${path}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, who);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      out.push(...ids(res.body));
      cursor = res.body.nextCursor;
      if (!cursor) return out;
    }
    throw new Error('paging did not end');
  }

  it('"yoga" finds performers by name, category, tag and bio, in that order (then most subscribers)', async () => {
    const expected = [p.byName, p.byCategory, p.byTag, p.byBio, p.blocker].map((x) => x!.id);
    const res = await get('/performers/search?q=yoga&limit=50');
    expect(ids(res.body)).toEqual(expected);
    expect(res.body.total).toBe(5);
    // Found by the bio alone and by the category alone.
    expect(ids(res.body)).toContain(p.byBio!.id);
    expect(ids(res.body)).toContain(p.byCategory!.id);
    // Across cursor pages and offsets: the same order, nothing twice.
    expect(await all('/performers/search?q=yoga')).toEqual(expected);
    expect(ids((await get('/performers/search?q=yoga&limit=2&offset=2')).body)).toEqual(expected.slice(2, 4));
    // A named order still applies to the same matches.
    expect(ids((await get('/performers/search?q=yoga&sort=popular&limit=50')).body)).toEqual([p.byBio, p.byCategory, p.byName, p.byTag, p.blocker].map((x) => x!.id));
    // From a country the blocker blocks, they are not there.
    expect(ids((await get('/performers/search?q=yoga&limit=50', from('DE'))).body)).toEqual(expected.filter((id) => id !== p.blocker!.id));
  });

  it('"yoga" finds videos by title, tag, category and description, best match first, then newest', async () => {
    const expected = [v.byTitle, v.percent, v.blocked, v.byTag, v.byCategory, v.byDescription].map((x) => x!.id);
    const res = await get('/user/assets/videos/search?q=yoga&limit=50');
    expect(ids(res.body)).toEqual(expected);
    expect(res.body.total).toBe(6);
    expect(await all('/user/assets/videos/search?q=yoga')).toEqual(expected);
    expect(ids((await get('/user/assets/videos/search?q=yoga&limit=3&offset=2')).body)).toEqual(expected.slice(2, 5));
    // Explicit relevance is the same; newest orders the same matches by date.
    expect(ids((await get('/user/assets/videos/search?q=yoga&sort=relevance&limit=50')).body)).toEqual(expected);
    expect(ids((await get('/user/assets/videos/search?q=yoga&sort=newest&limit=50')).body)).toEqual(
      [v.byDescription, v.byTag, v.byCategory, v.byTitle, v.percent, v.blocked].map((x) => x!.id),
    );
    expect(await all('/user/assets/videos/search?q=yoga', from('DE'))).toEqual(expected.filter((id) => id !== v.blocked!.id));
    // Without a keyword, relevance means nothing: the usual newest order.
    const plain = await get('/user/assets/videos/search?sort=relevance&limit=50');
    expect(ids(plain.body)).toEqual(ids((await get('/user/assets/videos/search?limit=50')).body));
  });

  it('finds the other kinds by tags and descriptions, and never by a post\'s sold text', async () => {
    expect(ids((await get('/user/assets/galleries/search?q=yoga')).body)).toEqual([other.gallery!.id]);
    // The mat by its name first, then the block by its description; a visitor from a country its maker blocks sees the block only.
    expect(ids((await get('/user/assets/products/search?q=yoga')).body)).toEqual([other.blockedProduct!.id, other.product!.id]);
    expect(ids((await get('/user/assets/products/search?q=yoga', from('DE'))).body)).toEqual([other.product!.id]);
    expect(ids((await get('/posts/search?q=yoga')).body)).toEqual([other.post!.id]);
  });

  it('takes LIKE wildcards literally', async () => {
    expect(ids((await get(`/user/assets/videos/search?q=${encodeURIComponent('%')}`)).body)).toEqual([v.percent!.id]);
    expect(ids((await get(`/user/assets/videos/search?q=${encodeURIComponent('0% e')}`)).body)).toEqual([v.percent!.id]);
    for (const q of ['y%a', 'y_ga', '_', '%%', 'yoga%']) {
      const res = await get(`/search/total?q=${encodeURIComponent(q)}`);
      expect(res.body, q).toEqual({ total: 0, performers: 0, videos: 0, galleries: 0, products: 0, posts: 0 });
      expect((await get(`/user/assets/videos/search?q=${encodeURIComponent(q)}`)).body.total, q).toBe(0);
    }
  });

  it('/search/total counts what each list holds, and nothing that is not public', async () => {
    const lists = {
      performers: '/performers/search', videos: '/user/assets/videos/search', galleries: '/user/assets/galleries/search',
      products: '/user/assets/products/search', posts: '/posts/search',
    } as const;
    for (const [who, expected] of [
      [undefined, { performers: 5, videos: 6, galleries: 1, products: 2, posts: 1 }],
      [from('DE'), { performers: 4, videos: 5, galleries: 1, products: 1, posts: 1 }],
    ] as const) {
      for (const q of ['yoga', 'YOGA', 'flow', '%']) {
        const totals = (await get(`/search/total?q=${encodeURIComponent(q)}`, who)).body;
        let sum = 0;
        for (const [tab, path] of Object.entries(lists)) {
          const list = (await get(`${path}?q=${encodeURIComponent(q)}&limit=100`, who)).body;
          expect(totals[tab], `${q} ${tab}`).toBe(list.total);
          expect(list.items.length, `${q} ${tab}`).toBe(list.total);
          sum += list.total;
        }
        expect(totals.total).toBe(sum);
        if (q.toLowerCase() === 'yoga') expect(totals).toMatchObject(expected);
      }
    }
    // Drafts, scheduled and processing items, unapproved and inactive performers and their content: in no list.
    const hidden = [v.draft, v.scheduled, v.processing, v.pending, p.pending, p.inactive, other.draftGallery, other.draftPost, other.textOnly].map((x) => x!.id);
    for (const path of Object.values(lists)) {
      const found = ids((await get(`${path}?q=yoga&limit=100`)).body);
      for (const id of hidden) expect(found, path).not.toContain(id);
    }
  });

  it('answers bad input with a 4xx JSON error, never a 5xx', async () => {
    const relevanceCursor = (await get('/user/assets/videos/search?q=yoga&limit=1')).body.nextCursor as string;
    const newestCursor = (await get('/user/assets/videos/search?q=yoga&sort=newest&limit=1')).body.nextCursor as string;
    expect(relevanceCursor).toBeTruthy();
    expect(newestCursor).toBeTruthy();
    const bad = [
      '/user/assets/videos/search?q=yoga&sort=best',
      `/user/assets/videos/search?q=${'y'.repeat(101)}`,
      `/user/assets/videos/search?q=yoga&sort=newest&cursor=${relevanceCursor}`,
      `/user/assets/videos/search?q=yoga&cursor=${newestCursor}`,
      `/user/assets/videos/search?q=yoga&cursor=${encodeCursor({ v: '2020-01-01T00:00:00.000Z', id: v.byTitle!.id, r: 99 })}`,
      `/user/assets/videos/search?q=yoga&cursor=${encodeCursor({ v: 5, id: v.byTitle!.id, r: 0 })}`,
      `/user/assets/videos/search?q=yoga&cursor=${Buffer.from(JSON.stringify(['2020-01-01', v.byTitle!.id, 0.5])).toString('base64url')}`,
      `/performers/search?q=yoga&cursor=${encodeCursor({ v: 'text', id: p.byName!.id, r: 0 })}`,
      '/performers/search?q=yoga&sort=relevant',
      '/search/total',
      '/search/total?q=%20',
      `/search/total?q=${'y'.repeat(101)}`,
    ];
    for (const path of bad) {
      const res = await get(path);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
      expect(typeof res.body.message, path).toBe('string');
      expect(typeof res.body.code, path).toBe('string');
    }
    // Keywords that look like full-text query syntax are just text.
    for (const q of ['"', 'yo"ga', 'NEAR(yoga flow)', 'yoga*', 'title:yoga', 'yoga OR flow', "'; drop table videos; --", '\\']) {
      for (const path of ['/user/assets/videos/search', '/performers/search', '/posts/search']) {
        const res = await get(`${path}?q=${encodeURIComponent(q)}`);
        expect(res.status, `${path} ${q}`).toBe(200);
        expect(res.body.total, `${path} ${q}`).toBe(0);
      }
      expect((await get(`/search/total?q=${encodeURIComponent(q)}`)).status).toBe(200);
    }
  });
});
