import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { daysFromNow, linkCategory, makeCategory, makeGallery, makePost, makeProduct, makeVideo, tagObject } from '../../server/seed/factories.js';
import { recordingClient } from '../helpers/api-calls.js';
import { nowIso } from '../../server/db/ids.js';
import { everyone, keywordWalk } from '../../server/catalogue/catalogue.repository.js';
import { keywordCandidates, type SearchKind } from '../../server/catalogue/search.repository.js';
import { publicVideoQueries } from '../../server/videos/videos.repository.js';

/**
 * Migration 0007: tag rows carry their video's published_at (triggers) and "by tag, newest" reads them in that order.
 * Migration 0013: keyword search finds candidates through an index of search documents (FTS5 trigram on SQLite,
 * pg_trgm on PostgreSQL) while answering exactly what the LIKE tests alone answer: a case-insensitive substring of the
 * name (0), a tag or active category name (1), or the description (2), ranked in that order, then the kind's usual
 * order, then id. Every answer is compared with a reference computed here from the rows the test wrote.
 */

const titles = [
  'Sunset yoga', 'SUNSET run', 'sunrise swim', 'Beach sunset, long', 'Morning 100% effort', 'Under_score', 'under score',
  'Quote "this"', 'Café crème', 'ab', 'Kitchen sun', 'Evening stretch', 'Sunsets galore', 'sun', 'Back\\slash',
];
const descriptions = ['A long walk at sunset', 'Stretching for runners', null, 'Kitchen: 50% off_ today', 'crème brûlée at the café', 'Under the pier', ''];
const keywords = [
  'sunset', 'SUN', 'sun', 'su', 's', 'unse', '100%', '%', '_', 'under_', 'ote "th', 'café', 'crème', 'ab', 'b', 'nothing here', 'set ', ' ',
  'slash', '\\', 'beach', 'calm', 'yoga', 'class', 'hidden', 'runner', 'pier', '50% off_', 'brûlée', 'q&a', 'al',
];

/** An item as the reference sees it: its searched fields, the tie order's value, and whether the list may show it. */
interface Ref {
  id: string;
  names: string[];
  labels: string[];
  texts: Array<string | null>;
  tie: string | number;
  visible: boolean;
}

function rankOf(item: Ref, q: string): number | null {
  const n = q.trim().toLowerCase();
  const has = (values: Array<string | null>) => values.some((v) => (v ?? '').toLowerCase().includes(n));
  return has(item.names) ? 0 : has(item.labels) ? 1 : has(item.texts) ? 2 : null;
}

/** The reference answer: visible matches, best rank first, then the tie order (descending), then id (descending). */
function expected(items: Ref[], q: string): string[] {
  const desc = <T extends string | number>(a: T, b: T) => (a === b ? 0 : a < b ? 1 : -1);
  if (!q.trim()) return items.filter((i) => i.visible).sort((a, b) => desc(a.tie, b.tie) || desc(a.id, b.id)).map((i) => i.id);
  return items
    .filter((i) => i.visible && rankOf(i, q) !== null)
    .sort((a, b) => rankOf(a, q)! - rankOf(b, q)! || desc(a.tie, b.tie) || desc(a.id, b.id))
    .map((i) => i.id);
}

describe.each(engines)('search indexes on %s', (engine) => {
  let t: TestApp;
  let performer: TestUser;
  let other: TestUser;
  const { get, serverErrors } = recordingClient(() => t);
  const videos: Array<Ref & { publishedAt: string; tags: string[] }> = [];
  const kinds: Record<Exclude<SearchKind, 'video'>, Ref[]> = { performer: [], gallery: [], product: [], post: [] };

  beforeAll(async () => {
    t = await startTestApp(engine);
    const db = t.ctx.db;
    performer = await createUser(db, 'performer', { username: 'indexer', name: 'Index Owner', performer: { subscriberCount: 1 } });
    other = await createUser(db, 'performer', { username: 'inactiveone', name: 'Inactive One', performer: { status: 'inactive' } });
    kinds.performer.push(
      { id: performer.id, names: ['Index Owner', 'indexer'], labels: [], texts: [null], tie: 1, visible: true },
      { id: other.id, names: ['Inactive One', 'inactiveone'], labels: [], texts: [null], tie: 0, visible: false },
    );
    const yogaClass = await makeCategory(db, 'video', 'Yoga class');
    const hidden = await makeCategory(db, 'video', 'Hidden sunset', { status: 'inactive' });
    const qa = await makeCategory(db, 'video', 'Q&A_100%');
    for (let i = 0; i < 40; i++) {
      const title = `${titles[i % titles.length]}${i >= titles.length ? ` ${i}` : ''}`;
      const description = descriptions[i % descriptions.length]!;
      // Every fourth shares its published_at with the next one (ties are ordered by id).
      const publishedAt = daysFromNow(-1 - Math.floor(i / 2) / 10);
      const tags = [...(i % 3 === 0 ? ['beach'] : i % 3 === 1 ? ['beach', 'calm'] : []), ...(i % 5 === 0 ? ['yoga'] : [])];
      const hide = i % 7 === 5;
      const owner = i === 11 ? other.id : performer.id;
      const v = await makeVideo(t.ctx, owner, { title, description, publishedAt, withFiles: false, tagsList: tags, status: hide ? 'draft' : 'active' });
      const categories = [...(i % 6 === 0 ? [yogaClass] : []), ...(i % 6 === 3 ? [hidden] : []), ...(i % 8 === 1 ? [qa] : [])];
      for (const c of categories) await linkCategory(db, c.id, 'video', v.id);
      const labels = [...tags, ...categories.filter((c) => c.status === 'active').map((c) => c.name)];
      videos.push({ id: v.id, names: [title], labels, texts: [description], tie: publishedAt, publishedAt, tags, visible: !hide && owner === performer.id });
    }
    // A scheduled video: tagged and matching, not public yet.
    const later = await makeVideo(t.ctx, performer.id, { title: 'Sunset later', publishedAt: daysFromNow(2), scheduledAt: daysFromNow(2), withFiles: false, tagsList: ['beach'] });
    videos.push({ id: later.id, names: ['Sunset later'], labels: ['beach'], texts: [null], tie: later.publishedAt!, publishedAt: later.publishedAt!, tags: ['beach'], visible: false });

    // The other kinds: a field each per item, cycling so every keyword meets every field.
    const fields = ['Sunset yoga', 'Café crème', 'Under_score', 'Kitchen 50% off_', 'Beach calm', 'Stretch class', 'q&a night'];
    const pick = (i: number, k: number) => fields[(i + k) % fields.length]!;
    const perfCategory = await makeCategory(db, 'performer', 'Fitness & Yoga');
    const itemCategory = { gallery: await makeCategory(db, 'gallery', 'Beach diaries'), product: await makeCategory(db, 'product', 'Yoga mats'), post: await makeCategory(db, 'post', 'Runner news') };
    for (let i = 0; i < 14; i++) {
      const name = `${pick(i, 0)} ${i}`;
      const text = pick(i, 3);
      const tag = pick(i, 5).toLowerCase();
      const hide = i % 5 === 4;
      const withCategory = i % 3 === 0;

      const p = await createUser(db, 'performer', {
        username: `idx${i}`, name, performer: { bio: text, subscriberCount: 100 - (i % 4) * 10, approved: hide ? 0 : 1 },
      });
      await tagObject(db, 'performer', p.id, [tag]);
      if (withCategory) await linkCategory(db, perfCategory.id, 'performer', p.id);
      kinds.performer.push({ id: p.id, names: [name, `idx${i}`], labels: [tag, ...(withCategory ? [perfCategory.name] : [])], texts: [text], tie: 100 - (i % 4) * 10, visible: !hide });

      const publishedAt = daysFromNow(-1 - Math.floor(i / 2) / 10);
      const status = hide ? ('draft' as const) : ('active' as const);
      const g = await makeGallery(t.ctx, performer.id, { title: name, description: text, tagsList: [tag], photos: 0, publishedAt, status });
      const pr = await makeProduct(t.ctx, performer.id, { name, description: text, tagsList: [tag], publishedAt, status });
      // A post's text (content) is not searched: it holds a keyword of every item, and must never make it match.
      const po = await makePost(t.ctx, { title: name, excerpt: text, content: `<p>nothing here ${fields.join(' ')}</p>`, publishedAt, status: hide ? 'draft' : 'published' });
      await tagObject(db, 'post', po.id, [tag]);
      for (const [kind, id] of [['gallery', g.id], ['product', pr.id], ['post', po.id]] as const) {
        if (withCategory) await linkCategory(db, itemCategory[kind].id, kind, id);
        kinds[kind].push({ id, names: [name], labels: [tag, ...(withCategory ? [itemCategory[kind].name] : [])], texts: [text], tie: publishedAt, visible: !hide });
      }
    }
  });
  afterAll(async () => {
    expect(serverErrors).toEqual([]);
    await t?.close();
  });

  const newest = (list: typeof videos) =>
    [...list].sort((a, b) => (a.publishedAt === b.publishedAt ? (a.id < b.id ? 1 : -1) : a.publishedAt < b.publishedAt ? 1 : -1)).map((v) => v.id);

  /** Every id of a list, following nextCursor with small pages. */
  async function all(path: string, query: string): Promise<{ ids: string[]; total: number }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let total = -1;
    for (let i = 0; i < 100; i++) {
      const res = await get(`${path}?${query}&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids.push(...res.body.items.map((x: { _id: string }) => x._id));
      total = res.body.total;
      cursor = res.body.nextCursor;
      if (!cursor) return { ids, total };
    }
    throw new Error('paging did not end');
  }
  const allVideos = (query: string) => all('/user/assets/videos/search', query);

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
    const expectedIds = newest(videos.filter((v) => v.visible && v.tags.includes('beach')));
    const got = await allVideos('tag=beach');
    expect(got.ids).toEqual(expectedIds);
    expect(got.total).toBe(expectedIds.length);
    // Upper-case tags are stored and matched lower-case.
    expect((await allVideos('tag=CALM')).ids).toEqual(newest(videos.filter((v) => v.visible && v.tags.includes('calm'))));
    // Offset paging gives the same order.
    const page2 = await get('/user/assets/videos/search?tag=beach&limit=4&offset=4');
    expect(page2.body.items.map((x: { _id: string }) => x._id)).toEqual(expectedIds.slice(4, 8));
    // Other orders by tag are unchanged (and still filtered by the tag).
    const popular = await get('/user/assets/videos/search?tag=beach&sort=popular&limit=100');
    expect(new Set(popular.body.items.map((x: { _id: string }) => x._id))).toEqual(new Set(expectedIds));
  });

  it.each([
    ['pages from the index', null],
    ['pages from the walk where it finds them', -1],
  ] as const)('video keyword search answers exactly what substring tests of title, tags, categories and description answer, best match first (%s)', async (_how, minMatches) => {
    // The API tries the bounded walk first only for many matches (runList); -1 makes it try on every page here.
    const saved = keywordWalk.minMatches;
    if (minMatches !== null) keywordWalk.minMatches = minMatches;
    try {
      await videoKeywords();
    } finally {
      keywordWalk.minMatches = saved;
    }
  });

  async function videoKeywords() {
    for (const q of keywords) {
      const want = expected(videos, q);
      const got = await allVideos(`q=${encodeURIComponent(q)}`);
      expect(got.ids, `q=${JSON.stringify(q)}`).toEqual(want);
      expect(got.total, `q=${JSON.stringify(q)} total`).toBe(want.length);
      const offset = await get(`/user/assets/videos/search?q=${encodeURIComponent(q)}&limit=2&offset=1`);
      expect(offset.body.items.map((x: { _id: string }) => x._id), `q=${JSON.stringify(q)} offset`).toEqual(want.slice(1, 3));
      // A named order keeps its order and the same matches.
      const byNewest = await allVideos(`q=${encodeURIComponent(q)}&sort=newest`);
      expect(byNewest.ids, `q=${JSON.stringify(q)} newest`).toEqual(newest(videos.filter((v) => want.includes(v.id))));
    }
    // With a tag: both filters.
    const tagged = expected(videos.filter((v) => v.tags.includes('beach')), 'sun');
    expect((await allVideos('q=sun&tag=beach')).ids).toEqual(tagged);
    expect((await allVideos('q=sun&tag=beach&sort=newest')).ids).toEqual(newest(videos.filter((v) => tagged.includes(v.id))));
  }

  it('the index path and the walk each answer like the reference on their own', async () => {
    // The API answers from a bounded walk when it finds a full page there; both halves must be right by themselves.
    // (The API trims the keyword; so does this.)
    for (const q of keywords.map((k) => k.trim()).filter(Boolean)) {
      const want = expected(videos, q);
      const queries = publicVideoQueries(t.ctx.db, { q, limit: 100, offset: 0 }, everyone());
      const viaIndex = await queries.page.execute();
      expect(viaIndex.map((r) => r.id), `q=${JSON.stringify(q)} index`).toEqual(want);
      const walked = ('walk' in queries && queries.walk ? await queries.walk.execute() : []) as Array<{ id: string }>;
      const names = want.filter((id) => rankOf(videos.find((v) => v.id === id)!, q) === 0);
      expect(walked.map((r) => r.id), `q=${JSON.stringify(q)} walk`).toEqual(names);
    }
  });

  it.each([
    ['performer', '/performers/search', 'performers'],
    ['gallery', '/user/assets/galleries/search', 'galleries'],
    ['product', '/user/assets/products/search', 'products'],
    ['post', '/posts/search', 'posts'],
  ] as const)('%s keyword search answers like the reference, and /search/total counts the same', async (kind, path, tab) => {
    let matched = 0;
    const saved = keywordWalk.minMatches;
    try {
      // From the index, then with the walk tried on every page (see the video test).
      for (const minMatches of [saved, -1]) {
        keywordWalk.minMatches = minMatches;
        // (Without a keyword the lists keep their own default order, which the video test covers.)
        for (const q of keywords.filter((k) => k.trim())) {
          const want = expected(kinds[kind], q);
          const got = await all(path, `q=${encodeURIComponent(q)}`);
          expect(got.ids, `${kind} q=${JSON.stringify(q)} walk from ${minMatches}`).toEqual(want);
          expect(got.total, `${kind} q=${JSON.stringify(q)} total`).toBe(want.length);
          expect((await get(`/search/total?q=${encodeURIComponent(q)}`)).body[tab], `${kind} q=${JSON.stringify(q)} search total`).toBe(want.length);
          if (want.length) matched++;
        }
      }
    } finally {
      keywordWalk.minMatches = saved;
    }
    // The keywords meet these items in every field (a reference that finds nothing would prove nothing).
    expect(matched).toBeGreaterThan(20);
  });

  /** The ids the index offers for a keyword (without the exact test). */
  async function candidates(kind: 'video' | 'performer', q: string): Promise<string[]> {
    const table = kind === 'video' ? 'videos' : 'performers';
    const rows = await t.ctx.db.selectFrom(table).select(`${table}.id as id`).where(keywordCandidates(t.ctx.db, kind, q)!).execute();
    return rows.map((r) => r.id);
  }

  it('the index follows edits of every searched field, tags, category links, renames and deletions', async () => {
    const db = t.ctx.db;
    const v = await makeVideo(t.ctx, performer.id, { title: 'Zebra crossing', withFiles: false });
    const search = async (q: string) => (await allVideos(`q=${q}`)).ids;
    expect(await search('zebra')).toEqual([v.id]);
    expect(await candidates('video', 'zebra')).toEqual([v.id]);

    await db.updateTable('videos').set({ title: 'Okapi crossing' }).where('id', '=', v.id).execute();
    expect(await candidates('video', 'zebra')).toEqual([]);
    expect(await search('okapi')).toEqual([v.id]);

    await db.updateTable('videos').set({ description: 'A quokka walks by' }).where('id', '=', v.id).execute();
    expect(await search('quokka')).toEqual([v.id]);
    await db.updateTable('videos').set({ description: null }).where('id', '=', v.id).execute();
    expect(await candidates('video', 'quokka')).toEqual([]);

    await tagObject(db, 'video', v.id, ['narwhal']);
    expect(await search('narwhal')).toEqual([v.id]);
    await db.deleteFrom('contentTags').where('objectType', '=', 'video').where('objectId', '=', v.id).execute();
    expect(await candidates('video', 'narwhal')).toEqual([]);

    const category = await makeCategory(db, 'video', 'Axolotl club');
    await linkCategory(db, category.id, 'video', v.id);
    expect(await search('axolotl')).toEqual([v.id]);
    await db.updateTable('categories').set({ name: 'Pangolin club' }).where('id', '=', category.id).execute();
    expect(await candidates('video', 'axolotl')).toEqual([]);
    expect(await search('pangolin')).toEqual([v.id]);
    // An inactive category's name finds nothing (the index may still offer the item; the exact test decides).
    await db.updateTable('categories').set({ status: 'inactive' }).where('id', '=', category.id).execute();
    expect(await search('pangolin')).toEqual([]);
    await db.updateTable('categories').set({ status: 'active' }).where('id', '=', category.id).execute();
    await db.deleteFrom('contentCategories').where('categoryId', '=', category.id).execute();
    expect(await candidates('video', 'pangolin')).toEqual([]);

    await db.deleteFrom('videos').where('id', '=', v.id).execute();
    expect(await candidates('video', 'okapi')).toEqual([]);

    // A performer's bio and name.
    const p = await createUser(db, 'performer', { username: 'edited', name: 'Plain Name', performer: { bio: 'Loves wombats' } });
    expect((await all('/performers/search', 'q=wombat')).ids).toEqual([p.id]);
    await db.updateTable('performers').set({ bio: 'Loves lemurs', displayName: 'Tapir Name' }).where('id', '=', p.id).execute();
    expect(await candidates('performer', 'wombat')).toEqual([]);
    expect((await all('/performers/search', 'q=lemur')).ids).toEqual([p.id]);
    expect((await all('/performers/search', 'q=tapir')).ids).toEqual([p.id]);
  });
});
