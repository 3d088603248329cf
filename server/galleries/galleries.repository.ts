import type { SelectQueryBuilder } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { Database } from '../db/schema.js';
import type { Cursor } from '../http/pagination.js';
import { catalogueConditions, feedParts, galleryIsPublic, oneByIdOrSlug, runList, type Audience, type SortSpec } from '../catalogue/catalogue.repository.js';
import { listOrder, listQueries } from '../catalogue/search.repository.js';

export type GallerySort = 'newest' | 'popular' | 'price';

/** Backed by galleries_status_published, galleries_status_popular, galleries_status_price (and galleries_performer_published). */
export const gallerySorts: Record<GallerySort, SortSpec> = {
  newest: { column: 'galleries.publishedAt', dir: 'desc', kind: 'string' },
  popular: { column: 'galleries.viewCount', dir: 'desc', kind: 'number' },
  price: { column: 'galleries.price', dir: 'asc', kind: 'number' },
};

export interface GalleryFilters {
  q?: string;
  performerId?: string;
  tag?: string;
  categoryId?: string;
  /** Unset: best match first when there is a keyword (search.repository.ts), else newest. */
  sort?: GallerySort | 'relevance';
  limit: number;
  offset: number;
  cursor?: Cursor;
}

const galleryColumns = [
  'galleries.id', 'galleries.slug', 'galleries.title', 'galleries.description', 'galleries.performerId', 'galleries.access',
  'galleries.isSale', 'galleries.price', 'galleries.coverPhotoId', 'galleries.photoCount', 'galleries.tags', 'galleries.status',
  'galleries.publishedAt', 'galleries.createdAt', 'galleries.viewCount', 'galleries.likeCount', 'galleries.favouriteCount',
  'galleries.commentCount',
] as const;

/** The page and count queries of the public gallery list (exported for the EXPLAIN test). */
export function publicGalleryQueries(db: DbOrTrx, f: GalleryFilters, a: Audience) {
  const filter = (qb: SelectQueryBuilder<Database, 'galleries', object>) =>
    catalogueConditions('galleries', 'gallery', f).reduce((q, c) => q.where(c), qb.where(galleryIsPublic(a)));
  const sort = listOrder(gallerySorts, f.sort, f.q, { fallback: 'newest', tie: 'newest' });
  return listQueries(db, 'gallery', filter, (qb) => qb.select(galleryColumns), sort, f);
}

export function listPublicGalleries(db: DbOrTrx, f: GalleryFilters, a: Audience) {
  return runList(publicGalleryQueries(db, f, a), f.limit);
}

/** A fan's feed's galleries: the parts of its page of the newest public galleries of the performers followed (see feedRows). */
export function feedGalleryQueries(db: DbOrTrx, a: Audience) {
  return feedParts<GalleryRow>({
    sort: gallerySorts.newest,
    objectType: 'gallery',
    keys: (performers) => db.selectFrom('galleries').select(['galleries.id', 'galleries.publishedAt']).where(galleryIsPublic(a)).where('galleries.performerId', 'in', performers),
    rows: (keys) => db.selectFrom(keys).innerJoin('galleries', 'galleries.id', 'page.id').select(galleryColumns),
  });
}

export type GalleryRow = Awaited<ReturnType<typeof listPublicGalleries>>['rows'][number];

/** A gallery by id or slug, whatever its status, with whether it is public to `a` now. */
export function findGalleryByKey(db: DbOrTrx, key: string, a: Audience) {
  const query = db
    .selectFrom('galleries')
    .select(galleryColumns)
    .select(galleryIsPublic(a).as('visible'));
  return oneByIdOrSlug(query, 'galleries', key).executeTakeFirst();
}

/** Thumbnail file ids of cover photos, by photo id. */
export async function coverThumbnailIds(db: DbOrTrx, photoIds: ReadonlyArray<string | null>): Promise<Map<string, string>> {
  const ids = [...new Set(photoIds.filter((x): x is string => !!x))];
  if (!ids.length) return new Map();
  const rows = await db.selectFrom('photos').select(['id', 'thumbnailFileId']).where('id', 'in', ids).execute();
  return new Map(rows.filter((r) => r.thumbnailFileId).map((r) => [r.id, r.thumbnailFileId!]));
}
