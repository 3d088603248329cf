import { sql } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { Cursor } from '../http/pagination.js';
import { checkCursor, countQuery, hasTag, idOrSlug, inCategory, matches, page, runList, videoIsPublic, type SortSpec } from '../catalogue/catalogue.repository.js';

export type VideoSort = 'newest' | 'popular' | 'price';

/** Each order is backed by an index: videos_status_published, videos_status_popular, videos_status_price (and videos_performer_published). */
export const videoSorts: Record<VideoSort, SortSpec> = {
  newest: { column: 'videos.publishedAt', dir: 'desc', kind: 'string' },
  popular: { column: 'videos.viewCount', dir: 'desc', kind: 'number' },
  price: { column: 'videos.price', dir: 'asc', kind: 'number' },
};

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
export function publicVideoQueries(db: DbOrTrx, f: VideoFilters, now: string) {
  let base = db.selectFrom('videos').where(videoIsPublic(now));
  if (f.performerId) base = base.where('videos.performerId', '=', f.performerId);
  if (f.tag) base = base.where(hasTag('video', 'videos.id', f.tag));
  if (f.categoryId) base = base.where(inCategory('video', 'videos.id', f.categoryId));
  if (f.q) base = base.where(matches('videos.title', f.q));
  const sort = videoSorts[f.sort];
  return { page: page(base.select(videoColumns), sort, 'videos.id', { ...f, cursor: checkCursor(f.cursor, sort) }), count: countQuery(base), sort };
}

export function listPublicVideos(db: DbOrTrx, f: VideoFilters, now: string) {
  return runList(publicVideoQueries(db, f, now), f.limit);
}

export type VideoRow = Awaited<ReturnType<typeof listPublicVideos>>['rows'][number];

/** A video by id or slug, whatever its status, with whether it is public now (0/1 or boolean). */
export function findVideoByKey(db: DbOrTrx, key: string, now: string) {
  return db
    .selectFrom('videos')
    .select(videoColumns)
    .select(videoIsPublic(now).as('visible'))
    .where(idOrSlug('videos.id', 'videos.slug', key))
    .orderBy(sql`case when ${sql.ref('videos.id')} = ${key} then 0 else 1 end`)
    .orderBy('videos.id', 'desc')
    .limit(1)
    .executeTakeFirst();
}
