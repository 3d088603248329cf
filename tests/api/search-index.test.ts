import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser } from '../helpers/sessions.js';
import { daysFromNow, makeVideo, tagObject } from '../../server/seed/factories.js';
import { nowIso } from '../../server/db/ids.js';

/**
 * Migration 0007: tag rows carry their video's published_at (triggers), "by tag, newest" reads them in that order,
 * and keyword search finds candidates through an index (FTS5 trigram on SQLite, pg_trgm on PostgreSQL) while
 * answering exactly what the LIKE test alone answered. Results are compared with a reference computed here.
 */

const titles = [
  'Sunset yoga', 'SUNSET run', 'sunrise swim', 'Beach sunset, long', 'Morning 100% effort', 'Under_score', 'under score',
  'Quote "this"', 'Café crème', 'ab', 'Kitchen sun', 'Evening stretch', 'Sunsets galore', 'sun', 'Back\\slash',
];
const keywords = ['sunset', 'SUN', 'sun', 'su', 's', 'unse', '100%', '%', '_', 'under_', 'ote "th', 'café', 'crème', 'ab', 'b', 'nothing here', 'set ', ' ', 'slash', '\\'];

describe.each(engines)('search indexes on %s', (engine) => {
  let t: TestApp;
  let performer: { id: string };
  let other: { id: string };
  const videos: Array<{ id: string; title: string; publishedAt: string; tags: string[]; visible: boolean }> = [];

  beforeAll(async () => {
    t = await startTestApp(engine);
    performer = await createUser(t.ctx.db, 'performer');
    other = await createUser(t.ctx.db, 'performer', { performer: { status: 'inactive' } });
    for (let i = 0; i < 40; i++) {
      const title = `${titles[i % titles.length]}${i >= titles.length ? ` ${i}` : ''}`;
      // Every fourth shares its published_at with the next one (ties are ordered by id).
      const publishedAt = daysFromNow(-1 - Math.floor(i / 2) / 10);
      const tags = i % 3 === 0 ? ['beach'] : i % 3 === 1 ? ['beach', 'calm'] : [];
      const hidden = i % 7 === 5;
      const owner = i === 11 ? other.id : performer.id;
      const v = await makeVideo(t.ctx, owner, { title, publishedAt, withFiles: false, tagsList: tags, status: hidden ? 'draft' : 'active' });
      videos.push({ id: v.id, title, publishedAt, tags, visible: !hidden && owner === performer.id });
    }
    // A scheduled video: tagged and matching, not public yet.
    const later = await makeVideo(t.ctx, performer.id, { title: 'Sunset later', publishedAt: daysFromNow(2), scheduledAt: daysFromNow(2), withFiles: false, tagsList: ['beach'] });
    videos.push({ id: later.id, title: 'Sunset later', publishedAt: later.publishedAt!, tags: ['beach'], visible: false });
  });
  afterAll(async () => {
    await t?.close();
  });

  const newest = (list: typeof videos) =>
    [...list].sort((a, b) => (a.publishedAt === b.publishedAt ? (a.id < b.id ? 1 : -1) : a.publishedAt < b.publishedAt ? 1 : -1)).map((v) => v.id);

  /** Every id of a list, following nextCursor with small pages. */
  async function all(query: string): Promise<{ ids: string[]; total: number }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let total = -1;
    for (let i = 0; i < 100; i++) {
      const res = await t.api(`/user/assets/videos/search?${query}&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids.push(...res.body.items.map((x: { _id: string }) => x._id));
      total = res.body.total;
      cursor = res.body.nextCursor;
      if (!cursor) return { ids, total };
    }
    throw new Error('paging did not end');
  }

  it('tag rows carry their video published_at, following inserts and changes', async () => {
    const rows = await t.ctx.db.selectFrom('contentTags').select(['objectId', 'publishedAt']).where('objectType', '=', 'video').execute();
    const byId = new Map(videos.map((v) => [v.id, v.publishedAt]));
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.publishedAt).toBe(byId.get(r.objectId));

    const v = await makeVideo(t.ctx, performer.id, { title: 'Retagged', publishedAt: null, status: 'draft', withFiles: false });
    await tagObject(t.ctx.db, 'video', v.id, ['later']);
    const keyOf = async () => (await t.ctx.db.selectFrom('contentTags').select('publishedAt').where('objectId', '=', v.id).executeTakeFirstOrThrow()).publishedAt;
    expect(await keyOf()).toBeNull();
    const at = nowIso();
    await t.ctx.db.updateTable('videos').set({ publishedAt: at, status: 'active' }).where('id', '=', v.id).execute();
    expect(await keyOf()).toBe(at);
    await t.ctx.db.deleteFrom('contentTags').where('objectId', '=', v.id).execute();
    await t.ctx.db.deleteFrom('videos').where('id', '=', v.id).execute();
  });

  it('by tag, newest: the public tagged videos in newest order, across cursor pages, with the right total', async () => {
    const expected = newest(videos.filter((v) => v.visible && v.tags.includes('beach')));
    const got = await all('tag=beach');
    expect(got.ids).toEqual(expected);
    expect(got.total).toBe(expected.length);
    // Upper-case tags are stored and matched lower-case.
    expect((await all('tag=CALM')).ids).toEqual(newest(videos.filter((v) => v.visible && v.tags.includes('calm'))));
    // Offset paging gives the same order.
    const page2 = await t.api('/user/assets/videos/search?tag=beach&limit=4&offset=4');
    expect(page2.body.items.map((x: { _id: string }) => x._id)).toEqual(expected.slice(4, 8));
    // Other orders by tag are unchanged (and still filtered by the tag).
    const popular = await t.api('/user/assets/videos/search?tag=beach&sort=popular&limit=100');
    expect(new Set(popular.body.items.map((x: { _id: string }) => x._id))).toEqual(new Set(expected));
  });

  it('keyword search answers exactly what a case-insensitive substring test of the title answers', async () => {
    for (const q of keywords) {
      // The API trims the keyword (an empty one filters nothing).
      const needle = q.trim().toLowerCase();
      const expected = newest(videos.filter((v) => v.visible && v.title.toLowerCase().includes(needle)));
      const got = await all(`q=${encodeURIComponent(q)}`);
      expect(got.ids, `q=${JSON.stringify(q)}`).toEqual(expected);
      expect(got.total, `q=${JSON.stringify(q)}`).toBe(expected.length);
      const first = await t.api(`/user/assets/videos/search?q=${encodeURIComponent(q)}&limit=2&offset=1`);
      expect(first.body.items.map((x: { _id: string }) => x._id), `q=${JSON.stringify(q)} offset`).toEqual(expected.slice(1, 3));
    }
    // With a tag and with another order.
    const tagged = newest(videos.filter((v) => v.visible && v.tags.includes('beach') && v.title.toLowerCase().includes('sun')));
    expect((await all('q=sun&tag=beach')).ids).toEqual(tagged);
    const popular = await t.api('/user/assets/videos/search?q=sunset&sort=popular&limit=100');
    expect(new Set(popular.body.items.map((x: { _id: string }) => x._id))).toEqual(new Set(videos.filter((v) => v.visible && v.title.toLowerCase().includes('sunset')).map((v) => v.id)));
  });

  it('keyword search follows title edits and deletions', async () => {
    const v = await makeVideo(t.ctx, performer.id, { title: 'Zebra crossing', withFiles: false });
    expect((await all('q=zebra')).ids).toEqual([v.id]);
    await t.ctx.db.updateTable('videos').set({ title: 'Okapi crossing' }).where('id', '=', v.id).execute();
    expect((await all('q=zebra')).ids).toEqual([]);
    expect((await all('q=okapi')).ids).toEqual([v.id]);
    await t.ctx.db.deleteFrom('videos').where('id', '=', v.id).execute();
    expect((await all('q=okapi')).ids).toEqual([]);
  });
});
