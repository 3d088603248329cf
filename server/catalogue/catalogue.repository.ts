import { sql, SqliteAdapter, type AliasedSelectQueryBuilder, type CompiledQuery, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { listCounts } from './count-cache.js';
import type { DbOrTrx } from '../db/database.js';
import type { Database, FilesTable, ObjectType } from '../db/schema.js';
import { badRequest } from '../http/errors.js';
import { encodeCursor, type Cursor } from '../http/pagination.js';
import { publicMediaUrl } from '../media/storage.js';
import { audienceValues, type Audience } from './audience.js';
import { heldColumns } from '../access/access.repository.js';
import type { HeldColumns } from '../access/access.service.js';
import { prepared } from '../db/prepared.js';
import type { PerformerSummary } from '../../common/schemas/catalogue.js';
import { DEFAULT_AVATAR } from '../../common/avatar.js';

/**
 * SQL shared by the catalogue repositories (videos, galleries, photos, products, posts, categories):
 * what "public" means for each kind of item, the tag/category/keyword filters, keyset paging, and the
 * batch lookups (files, performer cards) that turn a page of rows into API items.
 *
 * Public means: the item is active (posts: published) and published at or before now, videos and photos are
 * processed, a scheduled video's time has come, a photo's gallery is itself public, and the performer is active,
 * approved and does not block the visitor's country (see `Audience`).
 * Everything here is written so that the list queries stay on an index (tests/api/explain.test.ts).
 */

export { audienceOf, everyone, type Audience } from './audience.js';

const ref = (column: string) => sql.ref(column);

/**
 * The performer `performerIdColumn` does not block the audience's country (or is the audience itself). A primary-key
 * probe of performer_blocked_countries (performer_id, country_code) per row; no clause at all for an unknown country.
 */
export function performerOpenTo(performerIdColumn: string, a: Audience): RawBuilder<SqlBool> {
  if (!a.country) return sql<SqlBool>`1 = 1`;
  const notBlocked = sql<SqlBool>`not exists (select 1 from performer_blocked_countries pbc where pbc.performer_id = ${ref(performerIdColumn)} and pbc.country_code = ${a.country})`;
  return a.selfId ? sql<SqlBool>`(${ref(performerIdColumn)} = ${a.selfId} or ${notBlocked})` : notBlocked;
}

/**
 * The item's performer exists, is active and approved, and does not block the audience's country: THE performer
 * half of every "public" rule below (a primary-key probe per row, and one more when the country is known).
 */
export function performerIsVisible(performerIdColumn: string, a: Audience): RawBuilder<SqlBool> {
  const open = a.country ? sql<SqlBool>` and ${performerOpenTo('pa.id', a)}` : sql<SqlBool>``;
  return sql<SqlBool>`exists (select 1 from performers pa where pa.id = ${ref(performerIdColumn)} and pa.status = 'active' and pa.approved = 1${open})`;
}

export function videoIsPublic(a: Audience): RawBuilder<SqlBool> {
  const { now } = a;
  return sql<SqlBool>`(${ref('videos.status')} = 'active' and ${ref('videos.processingStatus')} = 'ready' and ${ref('videos.publishedAt')} <= ${now} and (${ref('videos.scheduledAt')} is null or ${ref('videos.scheduledAt')} <= ${now}) and ${performerIsVisible('videos.performerId', a)})`;
}

export function galleryIsPublic(a: Audience): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${ref('galleries.status')} = 'active' and ${ref('galleries.publishedAt')} <= ${a.now} and ${performerIsVisible('galleries.performerId', a)})`;
}

/** A photo is public when active and processed, and either its gallery is public or (outside a gallery) it is published. */
export function photoIsPublic(a: Audience): RawBuilder<SqlBool> {
  const { now } = a;
  return sql<SqlBool>`(${ref('photos.status')} = 'active' and ${ref('photos.processingStatus')} = 'ready' and ${performerIsVisible('photos.performerId', a)} and (
    (${ref('photos.galleryId')} is null and ${ref('photos.publishedAt')} <= ${now})
    or exists (select 1 from galleries pg where pg.id = ${ref('photos.galleryId')} and pg.status = 'active' and pg.published_at <= ${now})))`;
}

export function productIsPublic(a: Audience): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${ref('products.status')} = 'active' and ${ref('products.publishedAt')} <= ${a.now} and ${performerIsVisible('products.performerId', a)})`;
}

/** Posts and pages: published, and when written by a performer, that performer is visible. */
export function postIsPublic(a: Audience): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${ref('posts.status')} = 'published' and ${ref('posts.publishedAt')} <= ${a.now} and (${ref('posts.performerId')} is null or ${performerIsVisible('posts.performerId', a)}))`;
}

/** A performer (the performers table itself) is listed and shown: active, approved, and open to the audience. */
export function performerIsPublic(a: Audience): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${ref('performers.status')} = 'active' and ${ref('performers.approved')} = 1 and ${performerOpenTo('performers.id', a)})`;
}

/** Tags are stored lower-case in content_tags (tag, object_type, object_id is its primary key). */
export function hasTag(objectType: ObjectType, idColumn: string, tag: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${ref(idColumn)} in (select ct.object_id from content_tags ct where ct.tag = ${tag.toLowerCase()} and ct.object_type = ${objectType})`;
}

/** content_categories (category_id, object_type, object_id) is its primary key. */
export function inCategory(objectType: ObjectType, idColumn: string, categoryId: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${ref(idColumn)} in (select cc.object_id from content_categories cc where cc.category_id = ${categoryId} and cc.object_type = ${objectType})`;
}

/** The filters every catalogue list takes; a photo list is filtered by its gallery's tags and categories. */
export interface CatalogueFilters {
  performerId?: string;
  tag?: string;
  categoryId?: string;
}

/**
 * The conditions of those filters on `table`: its performer, a tag, a category. Tags and categories are kept under
 * `objectType` and the id in `idColumn` (a photo: its gallery's).
 */
export function catalogueConditions(
  table: 'videos' | 'galleries' | 'products' | 'posts' | 'photos',
  objectType: ObjectType,
  f: CatalogueFilters,
  opts: { idColumn?: string } = {},
): RawBuilder<SqlBool>[] {
  const performerColumn = `${table}.performerId`;
  const idColumn = opts.idColumn ?? `${table}.id`;
  const conditions: RawBuilder<SqlBool>[] = [];
  if (f.performerId) conditions.push(sql<SqlBool>`${ref(performerColumn)} = ${f.performerId}`);
  if (f.tag) conditions.push(hasTag(objectType, idColumn, f.tag));
  if (f.categoryId) conditions.push(inCategory(objectType, idColumn, f.categoryId));
  return conditions;
}

/** The LIKE pattern of a case-insensitive substring test for `q` (compare with lower(column)): wildcards in it are literal. */
export function likePattern(q: string): string {
  return `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** `lower(column) like pattern` with the escape character likePattern uses. */
export function likeTest(column: string, pattern: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`lower(${ref(column)}) like ${pattern} escape '\\'`;
}

/**
 * Case-insensitive substring match of one column, LIKE wildcards in the keyword taken literally. The keyword search of
 * the searchable kinds (performers, videos, galleries, products, posts) is `keywordFilter` in search.repository.ts.
 */
export function matches(column: string, q: string): RawBuilder<SqlBool> {
  return likeTest(column, likePattern(q));
}

/** The database handle is SQLite (some indexes differ per engine: FTS5 there, pg_trgm on PostgreSQL). */
export function isSqlite(db: DbOrTrx): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter;
}

/**
 * The row of `table` whose id is `key`, else the newest (by id) whose `alt` column (a slug, a username) is `altKey`:
 * detail endpoints accept both, and a slug might spell another row's id. Each is one index lookup; the plain
 * `(id = ? or slug = ?) order by (id = ?), id desc` made SQLite sort its matches in a temporary b-tree on every call
 * (54 µs against 16 µs measured alone, several times that inside a page).
 */
export function idElseAlt(table: 'videos' | 'galleries' | 'products' | 'posts' | 'performers', alt: 'slug' | 'username', key: string, altKey = key): RawBuilder<SqlBool> {
  const t = sql.table(table);
  return sql<SqlBool>`${ref(`${table}.id`)} = coalesce((select k.id from ${t} as k where k.id = ${key}), (select k.id from ${t} as k where ${ref(`k.${alt}`)} = ${altKey} order by k.id desc limit 1))`;
}

/** One item of a content table by id, else by slug (`idElseAlt`). */
export function oneByIdOrSlug<T extends 'videos' | 'galleries' | 'products' | 'posts', O>(qb: SelectQueryBuilder<Database, T, O>, table: T, key: string) {
  return qb.where(idElseAlt(table, 'slug', key)).limit(1);
}

// ---------------------------------------------------------------------------------------------------------------
// Sorting and keyset paging.

/**
 * A named order of a list: one column plus the id as tie-breaker, in the same direction. `relevance`: a keyword
 * list's best-match order, the row's rank first (ascending; search.repository.ts `keywordRank`), then this column and
 * the id; its cursors carry the rank.
 */
export interface SortSpec {
  column: string;
  dir: 'asc' | 'desc';
  kind: 'string' | 'number';
  relevance?: boolean;
}

/** Rejects a cursor whose value does not fit the sort (e.g. a text value for a price order), before any SQL. */
export function checkCursor(cursor: Cursor | undefined, sort: SortSpec): Cursor | undefined {
  if (!cursor) return undefined;
  if (typeof cursor.v !== sort.kind || !/^[A-Za-z0-9_.-]{1,100}$/.test(cursor.id)) throw badRequest('Invalid cursor');
  // A rank belongs to a relevance order's cursor and only there (a cursor of another order would skip rows).
  if (Boolean(sort.relevance) !== (cursor.r !== undefined)) throw badRequest('Invalid cursor');
  // Every numeric sort column is a 32-bit `integer`: PostgreSQL refuses a fraction or a larger number as a 500.
  if (typeof cursor.v === 'number' && !(Number.isInteger(cursor.v) && Math.abs(cursor.v) <= 2_147_483_647)) throw badRequest('Invalid cursor');
  return cursor;
}

/**
 * Applies the order, the cursor (which replaces the offset) and the page size. A relevance order needs `rank`, the
 * rank expression of its keyword: rows of a lower rank come first, and a cursor resumes within its rank.
 */
export function page<DB, TB extends keyof DB, O>(
  qb: SelectQueryBuilder<DB, TB, O>,
  sort: SortSpec,
  idColumn: string,
  p: { limit: number; offset: number; cursor?: Cursor },
  rank?: RawBuilder<number>,
): SelectQueryBuilder<DB, TB, O> {
  if (Boolean(sort.relevance) !== Boolean(rank)) throw new Error('A relevance order needs its rank expression, and only it');
  let q = qb;
  if (p.cursor) {
    const op = sql.raw(sort.dir === 'desc' ? '<' : '>');
    const { v, id, r } = p.cursor;
    const keyset = sql<SqlBool>`(${ref(sort.column)} ${op} ${v} or (${ref(sort.column)} = ${v} and ${ref(idColumn)} ${op} ${id}))`;
    q = q.where(rank ? sql<SqlBool>`(${rank} > ${r ?? 0} or (${rank} = ${r ?? 0} and ${keyset}))` : keyset);
  }
  if (rank) q = q.orderBy(rank, 'asc');
  return q
    .orderBy(ref(sort.column), sort.dir)
    .orderBy(ref(idColumn), sort.dir)
    .limit(p.limit)
    .offset(p.cursor ? 0 : p.offset);
}

/** The count of a filtered list (the same filters as its page, without order or paging). */
export function countQuery<DB, TB extends keyof DB, O>(qb: SelectQueryBuilder<DB, TB, O>) {
  return qb.select(sql<number | string>`count(*)`.as('n'));
}

/**
 * An offset page (the console's and the account's lists): the rows `select` makes of `base` at `p`, and how many rows
 * `base` matches, read side by side.
 */
export async function offsetPage<DB, TB extends keyof DB, O, R>(
  base: SelectQueryBuilder<DB, TB, O>,
  p: { limit: number; offset: number },
  select: (qb: SelectQueryBuilder<DB, TB, O>) => SelectQueryBuilder<DB, TB, R>,
): Promise<{ rows: R[]; total: number }> {
  const [rows, counted] = await Promise.all([
    select(base).limit(p.limit).offset(p.offset).execute(),
    countQuery(base).executeTakeFirst() as Promise<{ n: number | string } | undefined>,
  ]);
  return { rows: rows as R[], total: Number(counted?.n ?? 0) };
}

/**
 * Keyword lists with at most `minMatches` matches skip the walk (search.repository.ts): measured on 100k videos
 * (SQLite, tests/bench/explain.ts), a rare word's page from the index took 0.6 ms and a walk that found nothing 7.6 ms;
 * 8,333 matches took 135 ms to sort and a walk found their first page in 0.6 ms. (Tests lower it to exercise the walk.)
 */
export const keywordWalk = { minMatches: 500 };

/** A list's count query, as it comes from its `…Queries` function. */
export interface CountOf {
  executeTakeFirst(): Promise<{ n: number | string } | undefined>;
  compile(): CompiledQuery;
}

/** Runs a public list's count query through the count cache (count-cache.ts): the `total` that list answers. */
export function cachedTotal(count: CountOf): Promise<number> {
  return listCounts.get(count.compile(), async () => Number((await count.executeTakeFirst())?.n ?? 0));
}

/**
 * Runs a list's page and count queries; the next cursor is the last row's sort value (the field named like the
 * sort column) and id, or null when this page was the last.
 */
export async function runList<R extends { id: string }>(
  q: {
    page: { execute(): Promise<R[]> };
    count: CountOf;
    sort: SortSpec;
    /**
     * Keyword lists: the same page looked for in a bounded walk of the order's index (search.repository.ts
     * `keywordListQueries`), used when it finds a full page; otherwise `page` answers.
     */
    walk?: { execute(): Promise<R[]> };
  },
  limit: number,
  /** Public lists reuse their total briefly (see count-cache.ts); an owner's own list is always counted. */
  opts: { cacheTotal?: boolean } = {},
): Promise<{ rows: R[]; total: number; nextCursor: string | null }> {
  const counted = opts.cacheTotal === false ? q.count.executeTakeFirst().then((r) => Number(r?.n ?? 0)) : cachedTotal(q.count);
  const rowsOf = async () => {
    // The walk pays off for many matches only (usually a cached total): a few are cheaper to sort than to look for.
    const walked = q.walk && (await counted) > keywordWalk.minMatches ? await q.walk.execute() : [];
    return walked.length === limit ? walked : q.page.execute();
  };
  const [rows, total] = await Promise.all([rowsOf(), counted]);
  return { rows, total, nextCursor: nextCursorOf(rows, q.sort, limit) };
}

/** The cursor of the page after `rows`: the last row's sort value (the field named like the sort column), id and rank; null after a short page. */
function nextCursorOf<R extends { id: string }>(rows: R[], sort: SortSpec, limit: number): string | null {
  const field = sort.column.slice(sort.column.indexOf('.') + 1) as keyof R;
  const last = rows.at(-1) as (R & { searchRank?: number | string }) | undefined;
  const r = sort.relevance ? Number(last?.searchRank) : undefined;
  return last && rows.length === limit ? encodeCursor({ v: last[field] as Cursor['v'], id: last.id, ...(r === undefined ? {} : { r }) }) : null;
}

/** A page of a fan's feed: its size and where it resumes. */
export type FeedPage = { limit: number; cursor?: Cursor };

/** On SQLite, up to this many performers a feed's page merges each one's own page (see feedRows). */
export const FEED_MERGE_MAX = 20;

/**
 * A fan's feed, one kind of item (server/follows/feed.service.ts): the newest public items of `performerIds`, keyset
 * paged newest first, without a total (counting a fan's whole feed on every page would read every item of everyone
 * they follow). `keys(performers)` is the kind's public items of those performers, selecting only the id and the sort
 * column (paged here, as `page` pages any list); `rows(page)` joins the page of keys kept (aliased `page`) to the
 * kind's rows by primary key: the merge then handles only keys, not whole rows.
 *
 * The kind's rows narrowed to the performers, newest first, is the page on PostgreSQL: its statistics choose the plan
 * (a walk of the newest-first index, or the performers' own index and a sort). SQLite plans without statistics and
 * always walks the newest-first index, keeping the performers' rows: about `limit ÷ their share of the newest items`
 * rows read, 13,000 for a fan following 10 of 10,000 performers. So on SQLite, up to FEED_MERGE_MAX performers, each
 * one's page is read through their own index (`<kind>_performer_published`: performer, status, published time, id)
 * and the pages are merged: at most `limit` keys a performer. Measured at 100,000 videos by 10,000 performers
 * (docs/deploy.md): 10 followed, the walk 4.95 ms and the merge 1.27; 50 followed, the walk 0.98 and the merge 4.59
 * (each page costs its own); on PostgreSQL the merge cost more at both sizes (2.89 and 10.76 ms, against 1.30 and 1.35).
 */
export async function feedRows<R extends { id: string }>(db: DbOrTrx, performerIds: readonly string[], kind: FeedKind<R>, a: Audience, p: FeedPage, holder: string): Promise<{ rows: Array<R & HeldColumns>; nextCursor: string | null }> {
  if (!performerIds.length) return { rows: [], nextCursor: null };
  const { sort } = kind(db, a);
  const cursor = checkCursor(p.cursor, sort);
  const rows = await feedStatement(kind)(db, { performers: performerIds, ...audienceValues(a), holder, limit: p.limit, cursorV: cursor?.v, cursorId: cursor?.id });
  return { rows, nextCursor: nextCursorOf(rows, sort, p.limit) };
}

/** A kind's feed parts for an audience (`feedVideoQueries` in server/videos/videos.repository.ts and its siblings). */
export type FeedKind<R> = (db: DbOrTrx, a: Audience) => FeedQueries<R>;

type FeedValues = Audience & { performers: readonly string[]; holder: string; limit: number; cursorV: Cursor['v'] | undefined; cursorId: string | undefined };

type FeedStatement<R> = (db: DbOrTrx, v: FeedValues) => Promise<Array<R & HeldColumns>>;

// A fan's feed is asked with every view of their home page: each kind's statement is compiled once per shape (the
// number of performers, a first page or a next one; server/db/prepared.ts).
const feedStatements = new WeakMap<FeedKind<never>, FeedStatement<never>>();

function feedStatement<R>(kind: FeedKind<R>): FeedStatement<R> {
  let statement = feedStatements.get(kind as FeedKind<never>) as FeedStatement<R> | undefined;
  if (!statement) {
    statement = prepared(['performers', 'now', 'country', 'selfId', 'holder', 'limit', 'cursorV', 'cursorId'], (db, v: FeedValues) =>
      feedQuery(db, v.performers, kind(db, v), { limit: v.limit, cursor: v.cursorId === undefined ? undefined : { v: v.cursorV ?? null, id: v.cursorId } }, { holder: v.holder, now: v.now }),
    );
    feedStatements.set(kind as FeedKind<never>, statement as FeedStatement<never>);
  }
  return statement;
}

/** A kind's parts of a feed page (see feedRows): its order, its items' type, its page of keys, its rows. */
export interface FeedQueries<R> {
  sort: SortSpec;
  objectType: ObjectType;
  keys(performers: readonly string[]): FeedIds;
  rows(page: AliasedSelectQueryBuilder<{ id: string }, 'page'>): SelectQueryBuilder<Database, keyof Database, R>;
}

/** A kind's feed parts, typed for feedRows (Kysely's own builder types name their tables; these only their rows). */
export function feedParts<R>(q: { sort: SortSpec; objectType: ObjectType; keys: (performers: readonly string[]) => unknown; rows: (page: AliasedSelectQueryBuilder<{ id: string }, 'page'>) => unknown }): FeedQueries<R> {
  return q as FeedQueries<R>;
}

type FeedIds = SelectQueryBuilder<Database, keyof Database, { id: string }>;

/**
 * The statement of feedRows, for one performer or more and a cursor feedRows has checked (exported for the EXPLAIN
 * test). Each row carries what `held.holder` holds of its item (`heldColumns`, server/access/access.repository.ts):
 * the feed's viewer, so that the page needs no statement of its own for it.
 */
export function feedQuery<R>(db: DbOrTrx, performerIds: readonly string[], q: FeedQueries<R>, p: FeedPage, held: { holder: string; now: string }) {
  const { sort } = q;
  const table = sort.column.slice(0, sort.column.indexOf('.'));
  const column = sort.column.slice(table.length + 1);
  const pageOf = (performers: readonly string[]) => page(q.keys(performers), sort, `${table}.id`, { limit: p.limit, offset: 0, cursor: p.cursor });
  let keys: FeedIds;
  if (isSqlite(db) && performerIds.length <= FEED_MERGE_MAX) {
    const pages = performerIds.map((id) => db.selectFrom(pageOf([id]).as('arm')).selectAll() as unknown as FeedIds);
    keys = pages.slice(1).reduce((m, one) => m.unionAll(one), pages[0]!).orderBy(ref(column), sort.dir).orderBy(ref('id'), sort.dir).limit(p.limit);
  } else {
    keys = pageOf(performerIds);
  }
  // Joined, not `id in (…)`: PostgreSQL answered that by walking the whole table's primary key against the page.
  return q
    .rows(keys.as('page'))
    .select(heldColumns(db, held.holder, held.now, q.objectType, table))
    .orderBy(ref(`page.${column}`), sort.dir)
    .orderBy(ref('page.id'), sort.dir);
}

// ---------------------------------------------------------------------------------------------------------------
// Batch lookups for a page of rows.

export type MediaFile = Pick<FilesTable, 'id' | 'storageKey' | 'mime' | 'width' | 'height' | 'duration' | 'originalName' | 'parentId' | 'variant'> & {
  size: number;
  status: string;
};

const fileColumns = ['id', 'storageKey', 'mime', 'size', 'width', 'height', 'duration', 'originalName', 'parentId', 'variant', 'status'] as const;

function toMediaFile(r: Record<(typeof fileColumns)[number], unknown>): MediaFile {
  return { ...(r as unknown as MediaFile), size: Number(r.size) };
}

/** Files by id (nulls and duplicates ignored). */
export async function loadFiles(db: DbOrTrx, ids: ReadonlyArray<string | null | undefined>): Promise<Map<string, MediaFile>> {
  const wanted = [...new Set(ids.filter((x): x is string => !!x))];
  if (!wanted.length) return new Map();
  const rows = await db.selectFrom('files').select(fileColumns).where('id', 'in', wanted).execute();
  return new Map(rows.map((r) => [r.id, toMediaFile(r)]));
}

/** Derived files of a variant (e.g. the video 'poster') by their parent's id (index files_parent). */
export async function loadVariants(db: DbOrTrx, parentIds: ReadonlyArray<string | null | undefined>, variant: string): Promise<Map<string, MediaFile>> {
  const wanted = [...new Set(parentIds.filter((x): x is string => !!x))];
  if (!wanted.length) return new Map();
  const rows = await db
    .selectFrom('files')
    .select(fileColumns)
    .where('parentId', 'in', wanted)
    .where('variant', '=', variant)
    .where('status', '=', 'ready')
    .orderBy('id')
    .execute();
  const map = new Map<string, MediaFile>();
  for (const r of rows) if (r.parentId && !map.has(r.parentId)) map.set(r.parentId, toMediaFile(r));
  return map;
}

/** URL of a preview file (thumbnail, poster, teaser, product image) when it is stored under `public/`, else null. */
export function previewUrl(file: MediaFile | undefined): string | null {
  if (!file || file.status !== 'ready') return null;
  return file.storageKey.startsWith('public/') ? publicMediaUrl(file.storageKey) : null;
}

export async function loadPerformerSummaries(db: DbOrTrx, ids: readonly string[]): Promise<Map<string, PerformerSummary>> {
  const wanted = [...new Set(ids)];
  if (!wanted.length) return new Map();
  const rows = await db
    .selectFrom('performers')
    .innerJoin('users', 'users.id', 'performers.id')
    .select(['performers.id', 'performers.username', 'performers.displayName', 'users.avatarPath'])
    .where('performers.id', 'in', wanted)
    .execute();
  return new Map(rows.map((r) => [r.id, { _id: r.id, username: r.username, name: r.displayName, avatar: publicMediaUrl(r.avatarPath) ?? DEFAULT_AVATAR }]));
}

/** The JSON array kept in the `tags` column of videos, galleries and products. */
export function parseTags(raw: string | null | undefined): string[] {
  if (!raw) return [];
  try {
    const value = JSON.parse(raw);
    return Array.isArray(value) ? value.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}
