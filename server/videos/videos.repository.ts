import type { SelectQueryBuilder } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { Database } from '../db/schema.js';
import type { Cursor } from '../http/pagination.js';
import { prepared } from '../db/prepared.js';
import { audienceValues } from '../catalogue/audience.js';
import { catalogueConditions, checkCursor, countQuery, feedParts, oneByIdOrSlug, page, runList, videoIsPublic, type Audience, type SortSpec } from '../catalogue/catalogue.repository.js';
import { keywordFilter, listOrder, listQueries } from '../catalogue/search.repository.js';
import { reactedColumns } from '../reactions/reactions.repository.js';
import { heldColumns } from '../access/access.repository.js';

export type VideoSort = 'newest' | 'popular' | 'price';

/** Each order is backed by an index: videos_status_published, videos_status_popular, videos_status_price (and videos_performer_published). */
export const videoSorts: Record<VideoSort, SortSpec> = {
  newest: { column: 'videos.publishedAt', dir: 'desc', kind: 'string' },
  popular: { column: 'videos.viewCount', dir: 'desc', kind: 'number' },
  price: { column: 'videos.price', dir: 'asc', kind: 'number' },
};

/**
 * "Tagged X, newest first" walks the tag's rows in content_tags_sorted (tag, object_type, published_at, object_id):
 * `content_tags.published_at` is the video's own `published_at` (kept by triggers, migration 0007), so this is the
 * same order as `newest` (and the same cursor values), read from the tag's index instead of sorting its videos.
 */
const byTagNewest: SortSpec = { column: 'ct.publishedAt', dir: 'desc', kind: 'string' };

export interface VideoFilters {
  q?: string;
  performerId?: string;
  tag?: string;
  categoryId?: string;
  /** Unset: best match first when there is a keyword (search.repository.ts), else newest. */
  sort?: VideoSort | 'relevance';
  limit: number;
  offset: number;
  cursor?: Cursor;
}

export const videoColumns = [
  'videos.id', 'videos.slug', 'videos.title', 'videos.description', 'videos.performerId', 'videos.access', 'videos.isSale',
  'videos.price', 'videos.fileId', 'videos.teaserFileId', 'videos.thumbnailFileId', 'videos.duration', 'videos.tags',
  'videos.status', 'videos.processingStatus', 'videos.scheduledAt', 'videos.publishedAt', 'videos.createdAt',
  'videos.viewCount', 'videos.likeCount', 'videos.favouriteCount', 'videos.commentCount',
] as const;

/** The page and count queries of the public video list (exported for the EXPLAIN test). */
export function publicVideoQueries(db: DbOrTrx, f: VideoFilters, a: Audience) {
  const sort = listOrder(videoSorts, f.sort, f.q, { fallback: 'newest', tie: 'newest' });
  if (f.tag && sort === videoSorts.newest) {
    let base = db
      .selectFrom('contentTags as ct')
      .innerJoin('videos', 'videos.id', 'ct.objectId')
      .where('ct.tag', '=', f.tag.toLowerCase())
      .where('ct.objectType', '=', 'video')
      .where('ct.publishedAt', '<=', a.now)
      .where(videoIsPublic(a));
    base = catalogueConditions('videos', 'video', { ...f, tag: undefined }).reduce((q, c) => q.where(c), base);
    if (f.q) base = base.where(keywordFilter(db, 'video', f.q));
    return { page: page(base.select(videoColumns), byTagNewest, 'ct.objectId', { ...f, cursor: checkCursor(f.cursor, byTagNewest) }), count: countQuery(base), sort: byTagNewest };
  }
  const filter = (qb: SelectQueryBuilder<Database, 'videos', object>) =>
    catalogueConditions('videos', 'video', f).reduce((q, c) => q.where(c), qb.where(videoIsPublic(a)));
  return listQueries(db, 'video', filter, (qb) => qb.select(videoColumns), sort, f);
}

/**
 * A page of the public list. `holder`: a signed-in viewer's id, when the page is plain (`plainFilters`): its rows then
 * carry what that viewer holds of each (`heldColumns`, server/access/access.repository.ts), read in the page's own
 * statement instead of a second one.
 */
export function listPublicVideos(db: DbOrTrx, f: VideoFilters, a: Audience, holder?: string) {
  return plainFilters(f) ? runList(plainVideoQueries(db, f, a, holder), f.limit) : runList(publicVideoQueries(db, f, a), f.limit);
}

/**
 * The list as most requests ask for it (an order, maybe a performer, an offset; no keyword, tag, category or cursor):
 * its page and count compiled once per order and shape (server/db/prepared.ts), where building and compiling them
 * took about 40 µs of every request. The same statements as publicVideoQueries builds.
 */
export function plainFilters(f: VideoFilters): boolean {
  // An empty performer id leaves the filter out when built (`if (f.performerId)`): such a request is built too.
  return f.q === undefined && f.tag === undefined && f.categoryId === undefined && f.cursor === undefined && f.performerId !== '';
}

type PlainValues = Audience & { performerId: string | undefined; limit: number; offset: number };

const plainPage = (sort: VideoSort) =>
  prepared(['now', 'country', 'selfId', 'performerId', 'limit', 'offset'], (db, v: PlainValues) => publicVideoQueries(db, { ...v, sort }, v).page);
/** One prepared statement per order (an order shapes the SQL). */
const bySort = <S>(make: (sort: VideoSort) => S) => Object.fromEntries((Object.keys(videoSorts) as VideoSort[]).map((sort) => [sort, make(sort)])) as Record<VideoSort, S>;
const plainPages = bySort(plainPage);
const plainHeldPage = (sort: VideoSort) =>
  prepared(['now', 'country', 'selfId', 'performerId', 'limit', 'offset', 'holder'], (db, v: PlainValues & { holder: string }) =>
    // Plain filters never take the tag's branch: the page is the videos table's own.
    (publicVideoQueries(db, { ...v, sort }, v).page as unknown as SelectQueryBuilder<Database, 'videos', VideoRow>).select(heldColumns(db, v.holder, v.now, 'video', 'videos')),
  );
const plainHeldPages = bySort(plainHeldPage);
const plainCount = prepared(['now', 'country', 'selfId', 'performerId'], (db, v: Omit<PlainValues, 'limit' | 'offset'>) =>
  publicVideoQueries(db, { performerId: v.performerId, limit: 0, offset: 0 }, v).count,
);

/**
 * publicVideoQueries for plain filters, compiled once (exported for the test that compares the two); with `holder`, the
 * page's rows also carry what that viewer holds (listPublicVideos).
 */
export function plainVideoQueries(db: DbOrTrx, f: VideoFilters, a: Audience, holder?: string) {
  // Without a keyword, relevance is the newest first (listOrder).
  const sort = f.sort === undefined || f.sort === 'relevance' ? 'newest' : f.sort;
  const audience = audienceValues(a);
  const values = { ...audience, performerId: f.performerId, limit: f.limit, offset: f.offset };
  const count = plainCount.compiled(db, { ...audience, performerId: f.performerId });
  const page =
    holder === undefined
      ? { execute: () => plainPages[sort](db, values), compile: () => plainPages[sort].compiled(db, values) }
      : { execute: () => plainHeldPages[sort](db, { ...values, holder }), compile: () => plainHeldPages[sort].compiled(db, { ...values, holder }) };
  return {
    page,
    count: { compile: () => count, executeTakeFirst: async () => (await db.executeQuery(count)).rows[0] },
    sort: videoSorts[sort],
  };
}

/** A fan's feed's videos: the parts of its page of the newest public videos of the performers followed (see feedRows). */
export function feedVideoQueries(db: DbOrTrx, a: Audience) {
  return feedParts<VideoRow>({
    sort: videoSorts.newest,
    objectType: 'video',
    keys: (performers) => db.selectFrom('videos').select(['videos.id', 'videos.publishedAt']).where(videoIsPublic(a)).where('videos.performerId', 'in', performers),
    rows: (keys) => db.selectFrom(keys).innerJoin('videos', 'videos.id', 'page.id').select(videoColumns),
  });
}

export type VideoRow = Awaited<ReturnType<ReturnType<typeof publicVideoQueries>['page']['execute']>>[number];

/** A video by id or slug, whatever its status, with whether it is public to `a` now (0/1 or boolean). */
export async function findVideoByKey(db: DbOrTrx, key: string, a: Audience) {
  const [row] = await videoByKey(db, { key, ...audienceValues(a) });
  return row;
}

// A video's page, its details, a view, a tip and a checkout on it start here: compiled once (server/db/prepared.ts).
const videoByKey = prepared(['key', 'now', 'country', 'selfId'], (db, v: Audience & { key: string }) => oneByIdOrSlug(videoLookup(db, v), 'videos', v.key));

/** A video's columns and whether the audience may see it now. */
const videoLookup = (db: DbOrTrx, a: Audience) => db.selectFrom('videos').select(videoColumns).select(videoIsPublic(a).as('visible'));

/** The same with what `viewerId` reacted to it (the header's state on a video's page), in the one statement. */
export async function findVideoForViewer(db: DbOrTrx, key: string, a: Audience, viewerId: string) {
  const [row] = await videoForViewer(db, { key, ...audienceValues(a), viewerId });
  return row;
}

const videoForViewer = prepared(['key', 'now', 'country', 'selfId', 'viewerId'], (db, v: Audience & { key: string; viewerId: string }) =>
  oneByIdOrSlug(videoLookup(db, v).select(reactedColumns(v.viewerId, 'video', 'videos.id')), 'videos', v.key),
);
