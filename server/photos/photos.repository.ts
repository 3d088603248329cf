import type { DbOrTrx } from '../db/database.js';
import type { Access } from '../db/schema.js';
import type { Cursor } from '../http/pagination.js';
import { catalogueConditions, checkCursor, countQuery, matches, page, photoIsPublic, runList, type Audience, type SortSpec } from '../catalogue/catalogue.repository.js';

export type PhotoSort = 'position' | 'newest';

/** Backed by photos_gallery_position (in a gallery) and photos_performer_published (by performer). */
export const photoSorts: Record<PhotoSort, SortSpec> = {
  position: { column: 'photos.position', dir: 'asc', kind: 'number' },
  newest: { column: 'photos.publishedAt', dir: 'desc', kind: 'string' },
};

export interface PhotoFilters {
  galleryId?: string;
  performerId?: string;
  q?: string;
  /** Photos whose gallery has this tag / is in this category. */
  tag?: string;
  categoryId?: string;
  sort: PhotoSort;
  limit: number;
  offset: number;
  cursor?: Cursor;
  /** The gallery's performer or an admin: every photo of the gallery, whatever its state. */
  includeUnpublished?: boolean;
}

const photoColumns = [
  'photos.id', 'photos.galleryId', 'photos.performerId', 'photos.title', 'photos.position', 'photos.fileId', 'photos.thumbnailFileId',
  'photos.status', 'photos.processingStatus', 'photos.publishedAt', 'photos.createdAt',
] as const;

/** The page and count queries of a photo list; needs `galleryId` or `performerId` (exported for the EXPLAIN test). */
export function photoQueries(db: DbOrTrx, f: PhotoFilters, a: Audience) {
  let base = db.selectFrom('photos');
  if (!(f.includeUnpublished && f.galleryId)) base = base.where(photoIsPublic(a));
  if (f.galleryId) base = base.where('photos.galleryId', '=', f.galleryId);
  base = catalogueConditions('photos', 'gallery', f, { idColumn: 'photos.galleryId' }).reduce((q, c) => q.where(c), base);
  if (f.q) base = base.where(matches('photos.title', f.q));
  const sort = photoSorts[f.sort];
  return { page: page(base.select(photoColumns), sort, 'photos.id', { ...f, cursor: checkCursor(f.cursor, sort) }), count: countQuery(base), sort };
}

export function listPhotos(db: DbOrTrx, f: PhotoFilters, a: Audience) {
  return runList(photoQueries(db, f, a), f.limit, { cacheTotal: !f.includeUnpublished });
}

export type PhotoRow = Awaited<ReturnType<typeof listPhotos>>['rows'][number];

/** Access level and price of galleries, by id (photos follow their gallery). */
export async function galleryTerms(db: DbOrTrx, ids: ReadonlyArray<string | null>): Promise<Map<string, { access: Access; price: number; coverPhotoId: string | null }>> {
  const wanted = [...new Set(ids.filter((x): x is string => !!x))];
  if (!wanted.length) return new Map();
  const rows = await db.selectFrom('galleries').select(['id', 'access', 'price', 'coverPhotoId']).where('id', 'in', wanted).execute();
  return new Map(rows.map((r) => [r.id, { access: r.access, price: r.price, coverPhotoId: r.coverPhotoId }]));
}
