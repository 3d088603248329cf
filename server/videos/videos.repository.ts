import { sql } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { Cursor } from '../http/pagination.js';
import {
  checkCursor, countQuery, idOrSlug, inCategory, isSqlite, matches, page, runList, videoIsPublic, videoTitleCandidates, hasTag, type Audience, type SortSpec,
} from '../catalogue/catalogue.repository.js';

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
  sort: VideoSort;
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
  if (f.tag && f.sort === 'newest') {
    let base = db
      .selectFrom('contentTags as ct')
      .innerJoin('videos', 'videos.id', 'ct.objectId')
      .where('ct.tag', '=', f.tag.toLowerCase())
      .where('ct.objectType', '=', 'video')
      .where('ct.publishedAt', '<=', a.now)
      .where(videoIsPublic(a));
    if (f.performerId) base = base.where('videos.performerId', '=', f.performerId);
    if (f.categoryId) base = base.where(inCategory('video', 'videos.id', f.categoryId));
    if (f.q) base = base.where(matches('videos.title', f.q));
    const sort = byTagNewest;
    return { page: page(base.select(videoColumns), sort, 'ct.objectId', { ...f, cursor: checkCursor(f.cursor, sort) }), count: countQuery(base), sort };
  }
  let base = db.selectFrom('videos').where(videoIsPublic(a));
  if (f.performerId) base = base.where('videos.performerId', '=', f.performerId);
  if (f.tag) base = base.where(hasTag('video', 'videos.id', f.tag));
  if (f.categoryId) base = base.where(inCategory('video', 'videos.id', f.categoryId));
  const unmatched = base;
  if (f.q) {
    const candidates = isSqlite(db) ? videoTitleCandidates(f.q) : null;
    if (candidates) base = base.where(candidates);
    base = base.where(matches('videos.title', f.q));
  }
  const sort = videoSorts[f.sort];
  const cursor = checkCursor(f.cursor, sort);
  return {
    page: page(base.select(videoColumns), sort, 'videos.id', { ...f, cursor }),
    count: countQuery(base),
    sort,
    /**
     * Keyword lists: the page looked for among the first KEYWORD_WALK rows of the order (from the cursor), which is
     * exact when it finds a full page. A common word fills the page within a few dozen rows of the order's index;
     * the index of candidates (FTS5) is what helps a rare word, and costs as many rows as the word matches.
     */
    walk: f.q
      ? db
          .selectFrom(page(unmatched.select(videoColumns), sort, 'videos.id', { limit: KEYWORD_WALK, offset: 0, cursor }).as('videos'))
          .selectAll()
          .where(matches('videos.title', f.q))
          .orderBy(sql.ref(sort.column), sort.dir)
          .orderBy(sql.ref('videos.id'), sort.dir)
          .limit(f.limit)
          .offset(cursor ? 0 : f.offset)
      : undefined,
  };
}

const KEYWORD_WALK = 2000;

export async function listPublicVideos(db: DbOrTrx, f: VideoFilters, a: Audience) {
  const q = publicVideoQueries(db, f, a);
  if (q.walk && (f.cursor ? 0 : f.offset) + f.limit <= KEYWORD_WALK) {
    const rows = (await q.walk.execute()) as Awaited<ReturnType<typeof q.page.execute>>;
    if (rows.length === f.limit) return runList({ ...q, page: { execute: async () => rows } }, f.limit);
  }
  return runList(q, f.limit);
}

export type VideoRow = Awaited<ReturnType<ReturnType<typeof publicVideoQueries>['page']['execute']>>[number];

/** A video by id or slug, whatever its status, with whether it is public to `a` now (0/1 or boolean). */
export function findVideoByKey(db: DbOrTrx, key: string, a: Audience) {
  return db
    .selectFrom('videos')
    .select(videoColumns)
    .select(videoIsPublic(a).as('visible'))
    .where(idOrSlug('videos.id', 'videos.slug', key))
    .orderBy(sql`case when ${sql.ref('videos.id')} = ${key} then 0 else 1 end`)
    .orderBy('videos.id', 'desc')
    .limit(1)
    .executeTakeFirst();
}
