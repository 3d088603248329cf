import { CompiledQuery, sql, type Compilable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { buildCatalogue, type Catalogue } from '../helpers/catalogue-fixture.js';
import type { Db } from '../../server/db/database.js';
import { nowIso } from '../../server/db/ids.js';
import { everyone, FEED_MERGE_MAX, feedQuery, type Audience } from '../../server/catalogue/catalogue.repository.js';
import { feedVideoQueries, plainVideoQueries, publicVideoQueries, type VideoFilters } from '../../server/videos/videos.repository.js';
import { feedGalleryQueries, publicGalleryQueries, type GalleryFilters } from '../../server/galleries/galleries.repository.js';
import { photoQueries, type PhotoFilters } from '../../server/photos/photos.repository.js';
import { ownProductQueries, publicProductQueries, type ProductFilters } from '../../server/products/products.repository.js';
import { feedPostQueries, publicPostQueries, type PostFilters } from '../../server/posts/posts.repository.js';
import { categoryQueries, type CategoryFilters } from '../../server/categories/categories.repository.js';
import { performerForViewerQuery, performerListQueries, type PerformerQuery } from '../../server/performers/performers.repository.js';
import { heldAccessQuery, heldValues, holdsAnyAccessQuery } from '../../server/access/access.repository.js';
import { feedPerformersQuery } from '../../server/follows/follows.repository.js';
import { memberHeaderFactsQuery } from '../../server/users/users.repository.js';
import { claimUnpushedQuery } from '../../server/notifications/notifications.repository.js';

/**
 * Every list query of the catalogue (page and count, each filter and order) is served by an index on both engines.
 * The database holds a few thousand rows so the planners choose as they would in production:
 *  - SQLite plans as the app runs it, without statistics (nothing runs ANALYZE on it); each table must be read with
 *    SEARCH through an index, never SCAN.
 *  - PostgreSQL has statistics (ANALYZE, as autovacuum keeps them in production) and sequential scans disabled for
 *    the session, so a missing index shows as a Seq Scan or as an index walked without any condition.
 */

const page = { limit: 12, offset: 0 };
/** A filler fan with ten live subscriptions (`fill`). */
const FAN = `ff${'0'.padStart(30, '0')}`;
const cursor = (v: string | number) => ({ v, id: 'ffffffffffffffffffffffffffffffff' });

type Case = [name: string, build: (db: Db, c: Catalogue, now: Audience) => { page: Compilable; count: Compilable }];

function cases(): Case[] {
  const video = (f: Partial<VideoFilters>): Case[1] => (db, _c, now) => publicVideoQueries(db, { ...page, ...f }, now);
  const gallery = (f: Partial<GalleryFilters>): Case[1] => (db, _c, now) => publicGalleryQueries(db, { ...page, ...f }, now);
  const photo = (f: (c: Catalogue) => Partial<PhotoFilters>): Case[1] => (db, c, now) => photoQueries(db, { sort: 'position', ...page, ...f(c) }, now);
  const product = (f: Partial<ProductFilters>): Case[1] => (db, _c, now) => publicProductQueries(db, { ...page, ...f }, now);
  const post = (f: Partial<PostFilters>): Case[1] => (db, _c, now) => publicPostQueries(db, { type: 'post', ...page, ...f }, now);
  const category = (f: Partial<CategoryFilters>): Case[1] => (db) => categoryQueries(db, { sort: 'ordering', ...page, ...f });
  const performer = (f: Partial<PerformerQuery>): Case[1] => (db, _c, audience) => performerListQueries(db, { ...page, audience, ...f });
  // Without a sort: newest, or best match first when there is a keyword.
  return [
    ['videos newest', video({})],
    ['videos newest, cursor', video({ cursor: cursor('2030-01-01T00:00:00.000Z') })],
    ['videos popular', video({ sort: 'popular' })],
    ['videos popular, cursor', video({ sort: 'popular', cursor: cursor(100) })],
    ['videos price', video({ sort: 'price' })],
    ['videos by performer', video({ performerId: 'p' })],
    ['videos by performer, popular', video({ performerId: 'p', sort: 'popular' })],
    ['videos by tag', video({ tag: 'yoga' })],
    ['videos by category', video({ categoryId: 'c' })],
    ['videos by keyword', video({ q: 'flow' })],
    ['videos by keyword, best match, cursor', video({ q: 'flow', cursor: { v: '2030-01-01T00:00:00.000Z', id: 'ffffffffffffffffffffffffffffffff', r: 1 } })],
    ['videos by keyword, newest', video({ q: 'flow', sort: 'newest' })],
    ['videos by keyword and tag, newest', video({ q: 'flow', tag: 'yoga', sort: 'newest' })],
    ['galleries newest', gallery({})],
    ['galleries popular', gallery({ sort: 'popular' })],
    ['galleries price, cursor', gallery({ sort: 'price', cursor: cursor(0) })],
    ['galleries by performer', gallery({ performerId: 'p' })],
    ['galleries by tag', gallery({ tag: 'beach' })],
    ['galleries by category', gallery({ categoryId: 'c' })],
    ['galleries by keyword', gallery({ q: 'beach' })],
    ['galleries by keyword, popular', gallery({ q: 'beach', sort: 'popular' })],
    ['photos of a gallery', photo((c) => ({ galleryId: c.galleries.free.id }))],
    ['photos of a gallery, cursor', photo((c) => ({ galleryId: c.galleries.free.id, cursor: cursor(1) }))],
    ['photos of a gallery, studio', photo((c) => ({ galleryId: c.galleries.free.id, includeUnpublished: true }))],
    ['photos of a performer', photo((c) => ({ performerId: c.alice.id, sort: 'newest' }))],
    ['photos of a performer by tag', photo((c) => ({ performerId: c.alice.id, sort: 'newest', tag: 'beach' }))],
    ['products newest', product({})],
    ['products popular', product({ sort: 'popular' })],
    ['products price', product({ sort: 'price' })],
    ['products by performer', product({ performerId: 'p' })],
    ['products by type', product({ type: 'digital' })],
    ['products by tag', product({ tag: 'plan' })],
    ['products by category', product({ categoryId: 'c' })],
    ['products by keyword', product({ q: 'cork' })],
    ['products by keyword, price', product({ q: 'cork', sort: 'price' })],
    ['studio products', (db, c) => ownProductQueries(db, c.alice.id, { sort: 'newest', ...page })],
    ['studio products by status, price', (db, c) => ownProductQueries(db, c.alice.id, { sort: 'price', status: 'draft', ...page })],
    ['studio products by keyword', (db, c) => ownProductQueries(db, c.alice.id, { q: 'cork', ...page })],
    ['posts newest', post({})],
    ['posts popular', post({ sort: 'popular' })],
    ['pages', post({ type: 'page' })],
    ['posts by performer', post({ performerId: 'p' })],
    ['posts of the site (the blog)', post({ scope: 'site' })],
    ['posts of the site (the blog), cursor', post({ scope: 'site', cursor: cursor('2030-01-01') })],
    ['posts by tag', post({ tag: 't' })],
    ['posts by category, cursor', post({ categoryId: 'c', cursor: cursor('2030-01-01') })],
    ['posts by keyword', post({ q: 'week' })],
    ['categories', category({})],
    ['categories of a group', category({ group: 'video' })],
    ['categories by name', category({ sort: 'name' })],
    ['performers newest', performer({})],
    ['performers popular', performer({ sort: 'popular' })],
    ['performers price, cursor', performer({ sort: 'price', cursor: cursor(500) })],
    ['performers by category', performer({ categoryId: 'c' })],
    ['performers by keyword', performer({ q: 'ali' })],
    ['performers by keyword, best match, cursor', performer({ q: 'ali', cursor: { v: 100, id: 'ffffffffffffffffffffffffffffffff', r: 0 } })],
    ['performers by keyword, newest', performer({ q: 'ali', sort: 'newest' })],
    ['performers featured, popular', performer({ featured: true, sort: 'popular' })],
  ];
}

/** Bulk rows (no media files) so the tables are not trivially small: 100 performers, 3000 videos, 3000 photos... */
async function fill(db: Db): Promise<void> {
  const rows = <T>(n: number, make: (i: number) => T) => Array.from({ length: n }, (_, i) => make(i));
  const insert = async (table: string, values: unknown[]) => {
    for (let i = 0; i < values.length; i += 100) await db.insertInto(table as never).values(values.slice(i, i + 100) as never).execute();
  };
  const at = (i: number) => new Date(Date.now() - (i + 10) * 3_600_000).toISOString();
  const status = (i: number) => (i % 10 === 0 ? 'draft' : i % 13 === 0 ? 'inactive' : 'active');
  const access = (i: number) => (['free', 'subscribers', 'sale'] as const)[i % 3];
  const performers = rows(100, (i) => ({ id: `fp${String(i).padStart(30, '0')}`, i }));
  await insert('users', performers.map((p) => ({ id: p.id, email: `${p.id}@x.test`, username: `filler${p.i}`, name: `Filler ${p.i}`, passwordHash: 'x', role: 'performer', createdAt: at(p.i), updatedAt: at(p.i) })));
  await insert('performers', performers.map((p) => ({ id: p.id, username: `filler${p.i}`, displayName: `Filler ${p.i}`, status: p.i % 7 === 0 ? 'inactive' : 'active', approved: 1, subscriberCount: p.i * 3, monthlyPrice: 100 + p.i, createdAt: at(p.i), updatedAt: at(p.i) })));
  // Some performers block a country: the lists of a visitor from there probe performer_blocked_countries per row.
  await insert('performerBlockedCountries', performers.filter((p) => p.i % 5 === 0).flatMap((p) => ['DE', 'FR'].map((countryCode) => ({ performerId: p.id, countryCode }))));
  const categories = rows(40, (i) => ({ id: `fc${String(i).padStart(30, '0')}`, name: `Cat ${i}`, slug: `cat-${i}`, group: (['performer', 'video', 'gallery', 'product', 'post'] as const)[i % 5], ordering: i, status: i % 9 === 0 ? 'inactive' : 'active', createdAt: at(i), updatedAt: at(i) }));
  await insert('categories', categories);
  const perf = (i: number) => performers[i % 100]!.id;
  const videos = rows(3000, (i) => ({
    id: `fv${String(i).padStart(30, '0')}`, performerId: perf(i), title: `Filler video ${i}`, slug: `filler-video-${i}`, access: access(i), isSale: i % 3 === 2 ? 1 : 0,
    price: i % 3 === 2 ? 100 + (i % 50) * 10 : 0, status: status(i), processingStatus: i % 17 === 0 ? 'processing' : 'ready', viewCount: (i * 37) % 5000,
    publishedAt: at(i), createdAt: at(i), updatedAt: at(i),
  }));
  await insert('videos', videos);
  const galleries = rows(600, (i) => ({
    id: `fg${String(i).padStart(30, '0')}`, performerId: perf(i), title: `Filler gallery ${i}`, slug: `filler-gallery-${i}`, access: access(i), isSale: i % 3 === 2 ? 1 : 0,
    price: i % 3 === 2 ? 500 : 0, status: status(i), viewCount: (i * 31) % 3000, photoCount: 5, publishedAt: at(i), createdAt: at(i), updatedAt: at(i),
  }));
  await insert('galleries', galleries);
  await insert('photos', rows(3000, (i) => ({
    id: `fh${String(i).padStart(30, '0')}`, performerId: galleries[i % 600]!.performerId, galleryId: galleries[i % 600]!.id, position: Math.floor(i / 600),
    status: 'active', processingStatus: 'ready', publishedAt: at(i), createdAt: at(i), updatedAt: at(i),
  })));
  const products = rows(600, (i) => ({
    id: `fq${String(i).padStart(30, '0')}`, performerId: perf(i), name: `Filler product ${i}`, slug: `filler-product-${i}`, type: i % 2 ? 'digital' : 'physical',
    price: 300 + i, status: status(i), viewCount: i % 400, publishedAt: at(i), createdAt: at(i), updatedAt: at(i),
  }));
  await insert('products', products);
  const posts = rows(600, (i) => ({
    id: `fs${String(i).padStart(30, '0')}`, performerId: i % 4 === 0 ? perf(i) : null, type: i % 20 === 0 ? 'page' : 'post', title: `Filler post ${i}`,
    slug: `filler-post-${i}`, content: '<p>x</p>', status: i % 10 === 0 ? 'draft' : 'published', likeCount: i % 90, publishedAt: at(i), createdAt: at(i), updatedAt: at(i),
  }));
  await insert('posts', posts);
  // 200 fans with ten live subscriptions each: a visitor's own are to be found through their rows, not among everyone's.
  const fans = rows(200, (i) => ({ id: `ff${String(i).padStart(30, '0')}`, i }));
  await insert('users', fans.map((f) => ({ id: f.id, email: `${f.id}@x.test`, username: `fan${f.i}`, name: `Fan ${f.i}`, passwordHash: 'x', role: 'user', createdAt: at(f.i), updatedAt: at(f.i) })));
  const renews = new Date(Date.now() + 30 * 86_400_000).toISOString();
  await insert('subscriptions', fans.flatMap((f) => rows(10, (k) => ({
    id: `fu${String(f.i * 10 + k).padStart(30, '0')}`, userId: f.id, performerId: perf(f.i + k * 7), type: 'monthly', status: 'active',
    startedAt: at(1), expiresAt: renews, createdAt: at(1), updatedAt: at(1),
  }))));
  const links = <T extends { id: string }>(items: T[], objectType: string) => ({
    tags: items.map((x, i) => ({ tag: `tag${i % 60}`, objectType, objectId: x.id })),
    categories: items.map((x, i) => ({ categoryId: categories[i % 40]!.id, objectType, objectId: x.id })),
  });
  for (const [items, type] of [[videos, 'video'], [galleries, 'gallery'], [products, 'product'], [posts, 'post'], [performers, 'performer']] as const) {
    const l = links(items as Array<{ id: string }>, type);
    await insert('contentTags', l.tags);
    await insert('contentCategories', l.categories);
  }
}

describe.each(engines)('list queries use indexes on %s', (engine) => {
  let t: TestApp;
  let c: Catalogue;
  beforeAll(async () => {
    t = await startTestApp(engine);
    c = await buildCatalogue(t.ctx);
    await fill(t.ctx.db);
    if (engine === 'postgres') await sql`analyze`.execute(t.ctx.db);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The plan lines of a query. */
  /** The plan of `query`; on PostgreSQL with sequential scans off plus any other planner settings given. */
  async function explain(query: Compilable, pgSettings: Record<string, string> = {}): Promise<string[]> {
    const compiled = query.compile();
    if (engine === 'sqlite') {
      const res = await t.ctx.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${compiled.sql}`, [...compiled.parameters]));
      return res.rows.map((r) => r.detail);
    }
    return t.ctx.db.connection().execute(async (conn) => {
      const settings = { enable_seqscan: 'off', ...pgSettings };
      for (const [k, v] of Object.entries(settings)) await sql`select set_config(${k}, ${v}, false)`.execute(conn);
      try {
        const res = await conn.executeQuery<Record<string, string>>(CompiledQuery.raw(`EXPLAIN ${compiled.sql}`, [...compiled.parameters]));
        return res.rows.map((r) => Object.values(r)[0]!);
      } finally {
        for (const k of Object.keys(settings)) await sql.raw(`reset ${k}`).execute(conn);
      }
    });
  }

  /**
   * SQLite: every table is read with SEARCH (an index or primary key narrowed by a condition), never SCAN.
   * PostgreSQL: no Seq Scan, and every index scan has an Index Cond (a full walk of some index does not count).
   */
  function assertIndexed(plan: string[], table: string) {
    const text = plan.join('\n');
    if (engine === 'sqlite') {
      // Every table is read with SEARCH (an index or primary key narrowed by a condition), never a SCAN.
      // An FTS5 table queried with MATCH shows as a SCAN of its virtual-table index `0:M…` (a full-text lookup).
      const scans = plan.filter(
        (l) => /^(SCAN|SEARCH) /.test(l.trim()) && !/^SEARCH \S+ (EXISTS )?USING (COVERING INDEX|INDEX|INTEGER PRIMARY KEY|PRIMARY KEY)/.test(l.trim()) && !/^SCAN \S+ VIRTUAL TABLE INDEX \d+:M/.test(l.trim()),
      );
      expect(scans, text).toEqual([]);
      expect(text).toMatch(new RegExp(`^SEARCH ${table} `, 'm'));
    } else {
      // No Seq Scan anywhere, and the list's own table is read through an index with a condition.
      expect(text).not.toMatch(/Seq Scan/);
      const nodes = text.split(/\n(?=\s*->)/);
      const main = nodes.filter((n) => new RegExp(`(Index (Only )?Scan( Backward)? using \\S+|Bitmap Heap Scan) on ${table}( |$)`, 'm').test(n.split('\n')[0]!));
      expect(main.length, text).toBeGreaterThan(0);
      for (const n of main) {
        const cond = n.startsWith('Bitmap') || /Bitmap Heap Scan/.test(n.split('\n')[0]!) ? /Recheck Cond:|Index Cond:/ : /Index Cond:/;
        expect(n, text).toMatch(cond);
      }
    }
  }

  /** A visitor from a country some performers block (the lists then leave those performers' items out). */
  const fromBlockedCountry = (): Audience => ({ now: nowIso(), country: 'DE', selfId: null });
  const everyCase = [
    ...cases().map(([name, build]): [string, Case[1], () => Audience] => [name, build, () => everyone()]),
    ...cases().map(([name, build]): [string, Case[1], () => Audience] => [`${name} (visitor from a country some performers block)`, build, fromBlockedCountry]),
  ];

  it.each(everyCase)('%s', async (name, build, audience) => {
    const queries = build(t.ctx.db, c, audience());
    const table = name.startsWith('studio products') ? 'products' : name.split(' ')[0] === 'pages' ? 'posts' : name.split(' ')[0]!;
    for (const query of [queries.page, queries.count]) {
      // The query runs (a broken query must not pass as "indexed"), then its plan is checked.
      await t.ctx.db.executeQuery(query.compile());
      assertIndexed(await explain(query), table);
    }
  });

  it('videos by tag, newest, read the tag rows in order (content_tags_sorted) and stop after a page', async () => {
    // PostgreSQL chooses by cost: with this table's 50 rows per tag a sort is as cheap, so here it is asked not to
    // sort, which it can only honour if an index gives the tag's rows in order (tests/bench/explain.ts shows it
    // choosing that walk by itself at 100k videos).
    const plan = (await explain(publicVideoQueries(t.ctx.db, { sort: 'newest', tag: 'tag1', ...page }, everyone()).page, { enable_sort: 'off' })).join('\n');
    expect(plan).toMatch(engine === 'sqlite' ? /SEARCH ct USING COVERING INDEX content_tags_sorted/ : /Index Only Scan Backward using content_tags_sorted/);
    expect(plan).not.toMatch(engine === 'sqlite' ? /TEMP B-TREE/ : /Sort Key/);
  });

  /**
   * Keyword search (migration 0014): every searchable kind finds its candidates in the index of search documents, on
   * SQLite the FTS5 trigram table (a MATCH shows as its virtual-table index `0:M…`), on PostgreSQL the pg_trgm GIN
   * index on lower(document), and reads the list's own table by primary key from there.
   */
  const keywordLists: Array<[string, string, (db: Db, q: string) => { page: Compilable; count: Compilable }]> = [
    ['performers', 'performers', (db, q) => performerListQueries(db, { q, ...page, audience: everyone() })],
    ['videos', 'videos', (db, q) => publicVideoQueries(db, { q, ...page }, everyone())],
    ['galleries', 'galleries', (db, q) => publicGalleryQueries(db, { q, ...page }, everyone())],
    ['products', 'products', (db, q) => publicProductQueries(db, { q, ...page }, everyone())],
    ['posts', 'posts', (db, q) => publicPostQueries(db, { type: 'post', q, ...page }, everyone())],
  ];
  it.each(keywordLists)('%s by keyword find candidates in the search index (FTS5 trigram / pg_trgm) and read the rest by primary key', async (_name, table, build) => {
    const queries = build(t.ctx.db, 'qzxw');
    for (const query of [queries.page, queries.count]) {
      // PostgreSQL chooses by cost: with this table's 5,000 documents, reading all of search_documents_pkey costs about
      // what the trigram index does, so here it is asked not to walk whole indexes (enable_indexscan off), which it can
      // only honour through an index with a condition on the keyword (tests/bench/explain.ts shows it choosing the
      // trigram index by itself at 100k videos).
      const plan = (await explain(query, { enable_indexscan: 'off' })).join('\n');
      if (engine === 'sqlite') {
        expect(plan).toMatch(/SCAN sf VIRTUAL TABLE INDEX \d+:M/);
        expect(plan).toMatch(/SEARCH sk USING INTEGER PRIMARY KEY \(rowid=\?\)/);
        expect(plan).toMatch(new RegExp(`SEARCH ${table} USING (COVERING )?INDEX sqlite_autoindex_${table}_1 \\(id=\\?\\)`));
      } else {
        expect(plan).toMatch(/Bitmap Index Scan on search_documents_trgm/);
        expect(plan).toMatch(/Index Cond: \(lower\(document\) ~~ '%qzxw%'::text\)/);
      }
    }
  });

  it("a new notification's push finds the recipient's unpushed rows through their own index, not every row of the last minutes", async () => {
    // Without notifications_unpushed the claim walked notifications_user_created over every row of the window, pushed
    // or not: a performer many fans write to read more rows with each message.
    const query = claimUnpushedQuery(t.ctx.db, FAN, '2020-01-01T00:00:00.000Z', nowIso(), 20);
    await t.ctx.db.executeQuery(query.compile());
    const plan = (await explain(query)).join('\n');
    expect(plan).toMatch(engine === 'sqlite' ? /SEARCH notifications USING INDEX notifications_unpushed \(user_id=\? AND created_at>\?\)/ : /Index Scan( Backward)? using notifications_unpushed on notifications/);
  });

  it('featured performers (the home page) are found through the featured index, not by walking every active performer', async () => {
    // Without performers_featured_popular both engines walk performers_status_popular and test `featured` per row.
    const plan = (await explain(performerListQueries(t.ctx.db, { featured: true, sort: 'popular', ...page, audience: everyone() }).page)).join('\n');
    expect(plan).toMatch(engine === 'sqlite' ? /performers USING INDEX performers_featured_popular \(featured=\? AND status=\?\)/ : /performers_featured_popular/);
  });

  it("a performer's row for a signed-in visitor, with their facts (subscription, follow, conversation, block, the performer's reply, promotions), reads each table through an index", async () => {
    for (const [key, audience] of [[c.alice.id, everyone()], ['alice', fromBlockedCountry()]] as const) {
      const query = performerForViewerQuery(t.ctx.db, { key, lowerKey: key.toLowerCase(), ...audience, userId: FAN });
      expect((await t.ctx.db.executeQuery(query.compile())).rows).toHaveLength(1);
      const plan = await explain(query);
      for (const table of ['performers', 'subscriptions', 'follows', 'conversations', 'performer_blocks', 'messages', 'coupons']) assertIndexed(plan, table);
    }
  });

  it("a visitor's live subscriptions are found through their own rows: the member header's check and the feed's performers", async () => {
    // Without subscriptions_user_status_expires SQLite (no statistics) read every live subscription on the site through
    // subscriptions_status_expires and kept the visitor's.
    const holds = (await explain(memberHeaderFactsQuery(t.ctx.db, FAN, nowIso()))).join('\n');
    const feed = (await explain(feedPerformersQuery(t.ctx.db, FAN, nowIso()))).join('\n');
    expect(feed).toMatch(engine === 'sqlite' ? /SEARCH follows USING (COVERING )?INDEX \S+ \(user_id=\?\)/ : /Index (Only )?Scan using \S+ on follows/);
    for (const plan of [holds, feed]) {
      if (engine === 'sqlite') expect(plan).toMatch(/SEARCH (s|subscriptions) USING (COVERING )?INDEX \S+ \(user_id=\?/);
      else expect(plan).toMatch(/Index (Only )?Scan using \S+ on subscriptions[\s\S]*?Index Cond: \(.*user_id = /);
    }
    expect(await holdsAnyAccessQuery(t.ctx.db, FAN, nowIso()).executeTakeFirstOrThrow()).toMatchObject({ holds: expect.anything() });
    // The header's unread counts, asked in the same statement, each read through the visitor's own rows.
    if (engine === 'sqlite') {
      expect(holds).toMatch(/SEARCH messages USING (COVERING )?INDEX \S+ \(recipient_id=\?/);
      expect(holds).toMatch(/SEARCH notifications USING (COVERING )?INDEX \S+ \(user_id=\?/);
    } else {
      expect(holds).toMatch(/Index (Only )?Scan using \S+ on messages[\s\S]*?Index Cond: \(.*recipient_id = /);
      expect(holds).toMatch(/Index (Only )?Scan using \S+ on notifications[\s\S]*?Index Cond: \(.*user_id = /);
    }
  });

  /**
   * A fan's feed (feedRows): on SQLite, each followed performer's newest page through their own index, merged, and
   * past FEED_MERGE_MAX performers one walk of the newest-first index; on PostgreSQL the performers' rows, planned by
   * its statistics. Either way the page's rows are then read by primary key, and nothing is read whole; what the fan
   * holds of each row (a live subscription to its performer, an entitlement to it) through the fan's own keys.
   */
  const feedKinds: Array<[string, (db: Db, performers: readonly string[], audience: Audience) => Compilable]> = [
    ['videos', (db, ps, a) => feedQuery(db, ps, feedVideoQueries(db, a), page, { holder: FAN, now: a.now })],
    ['galleries', (db, ps, a) => feedQuery(db, ps, feedGalleryQueries(db, a), page, { holder: FAN, now: a.now })],
    ['posts', (db, ps, a) => feedQuery(db, ps, feedPostQueries(db, a), page, { holder: FAN, now: a.now })],
  ];
  const filler = (i: number) => `fp${String(i).padStart(30, '0')}`;
  /** PostgreSQL: the kind's table read through one of its published-order indexes (by performer, or newest first), never whole. */
  const indexedOnPg = (plan: string, table: string) => {
    expect(plan).toMatch(new RegExp(`(Index Scan( Backward)? using|Bitmap Index Scan on) ${table}_\\w*published`));
    expect(plan).not.toMatch(/Seq Scan/);
  };

  /** A row's live subscription and entitlement (heldColumns), each read through the viewer's own key. */
  const heldThroughKeys = (plan: string) => {
    if (engine === 'sqlite') {
      expect(plan).toMatch(/SEARCH subscriptions USING (COVERING )?INDEX \S+ \(user_id=\? AND performer_id=\?/);
      expect(plan).toMatch(/SEARCH entitlements USING (COVERING )?INDEX \S+ \(user_id=\? AND object_type=\? AND object_id=\?\)/);
    } else {
      expect(plan).toMatch(/Index (Only )?Scan using \S+ on subscriptions[\s\S]*?Index Cond: \(.*user_id = /);
      expect(plan).toMatch(/Index (Only )?Scan using \S+ on entitlements[\s\S]*?Index Cond: \(.*user_id = /);
    }
  };

  it.each(feedKinds)("a fan's feed of %s reads each followed performer's newest items through that performer's index", async (table, build) => {
    const query = build(t.ctx.db, [filler(1), filler(2), filler(3)], everyone());
    await t.ctx.db.executeQuery(query.compile());
    const plan = (await explain(query)).join('\n');
    if (engine === 'sqlite') {
      expect(plan.match(new RegExp(`SEARCH ${table} USING (COVERING )?INDEX ${table}_performer_published \\(performer_id=\\? AND status=\\?`, 'g')), plan).toHaveLength(3);
      expect(plan).not.toMatch(new RegExp(`SCAN ${table}\\b`));
    } else {
      indexedOnPg(plan, table);
    }
    heldThroughKeys(plan);
  });

  it.each(feedKinds)("a fan's feed of %s, following more performers than a merge takes, is one indexed walk", async (table, build) => {
    const many = Array.from({ length: FEED_MERGE_MAX + 1 }, (_, i) => filler(i));
    const query = build(t.ctx.db, many, everyone());
    await t.ctx.db.executeQuery(query.compile());
    const plan = (await explain(query)).join('\n');
    if (engine === 'sqlite') {
      // The page of keys walks the kind's newest-first index; its rows are then read by primary key.
      const walk = table === 'posts' ? 'posts_type_status_published' : `${table}_status_published`;
      expect(plan).toMatch(new RegExp(`SEARCH ${table} USING (COVERING )?INDEX ${walk} \\(`));
      expect(plan).toMatch(new RegExp(`SEARCH ${table} USING INDEX sqlite_autoindex_${table}_1 \\(id=\\?\\)`));
      expect(plan).not.toMatch(new RegExp(`SCAN ${table}\\b`));
    } else {
      indexedOnPg(plan, table);
    }
    heldThroughKeys(plan);
  });

  it('what a visitor holds for a page of items is one statement, each of its lookups read through its own key', async () => {
    const wanted = { performerIds: ['p1', 'p2'], objects: [{ objectType: 'video' as const, objectId: 'v1' }, { objectType: 'gallery' as const, objectId: 'g1' }] };
    const query = heldAccessQuery(t.ctx.db, heldValues(FAN, wanted, nowIso())!);
    const plan = (await explain(query)).join('\n');
    if (engine === 'sqlite') {
      // The visitor's own live subscriptions (by user, then performer or status: both read only theirs).
      expect(plan).toMatch(/SEARCH subscriptions USING (COVERING )?INDEX \S+ \(user_id=\?/);
      expect(plan.match(/SEARCH entitlements USING (COVERING )?INDEX \S+ \(user_id=\? AND object_type=\? AND object_id=\?\)/g)).toHaveLength(2);
    } else {
      expect(plan).toMatch(/Index (Only )?Scan using \S+ on subscriptions[\s\S]*?Index Cond: \(.*user_id = /);
      expect(plan.match(/Index (Only )?Scan using \S+ on entitlements/g)).toHaveLength(2);
    }
    expect(await query.execute()).toEqual([]);
    expect(heldValues(FAN, { performerIds: [], objects: [] }, nowIso())).toBeNull();
  });

  it("the plain videos list with what its viewer holds reads each row's two lookups through their own keys", async () => {
    const plan = (await explain(plainVideoQueries(t.ctx.db, { sort: 'newest', ...page }, everyone(), FAN).page)).join('\n');
    heldThroughKeys(plan);
    if (engine === 'postgres') expect(plan).not.toMatch(/Seq Scan/);
  });

  it('the main table of the newest-videos list is read through its own index', async () => {
    const plan = (await explain(publicVideoQueries(t.ctx.db, { sort: 'newest', ...page }, everyone()).page)).join('\n');
    expect(plan).toMatch(engine === 'sqlite' ? /videos USING INDEX videos_status_published/ : /videos_status_published/);
  });
});
