import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { nowIso } from '../db/ids.js';
import type {
  CategoryGroup,
  GalleriesTable,
  ObjectType,
  PhotosTable,
  PostMediaTable,
  PostsTable,
  ProductsTable,
  VideosTable,
} from '../db/schema.js';

/** Every SQL statement of the performer studio (the write side of the catalogue). */

export type VideoRow = Selectable<VideosTable>;
export type GalleryRow = Selectable<GalleriesTable>;
export type PhotoRow = Selectable<PhotosTable>;
export type ProductRow = Selectable<ProductsTable>;
export type PostRow = Selectable<PostsTable>;

// -- generic ------------------------------------------------------------------------------------------------------

export async function getVideo(db: DbOrTrx, id: string): Promise<VideoRow | undefined> {
  return db.selectFrom('videos').selectAll().where('id', '=', id).executeTakeFirst();
}
export async function getGallery(db: DbOrTrx, id: string): Promise<GalleryRow | undefined> {
  return db.selectFrom('galleries').selectAll().where('id', '=', id).executeTakeFirst();
}
export async function getPhoto(db: DbOrTrx, id: string): Promise<PhotoRow | undefined> {
  return db.selectFrom('photos').selectAll().where('id', '=', id).executeTakeFirst();
}
export async function getProduct(db: DbOrTrx, id: string): Promise<ProductRow | undefined> {
  return db.selectFrom('products').selectAll().where('id', '=', id).executeTakeFirst();
}
export async function getPost(db: DbOrTrx, id: string): Promise<PostRow | undefined> {
  return db.selectFrom('posts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Active categories of a group among `ids` (to reject unknown ones). */
export async function findCategoryIds(db: DbOrTrx, group: CategoryGroup, ids: string[]): Promise<string[]> {
  if (!ids.length) return [];
  const rows = await db.selectFrom('categories').select('id').where('group', '=', group).where('status', '=', 'active').where('id', 'in', ids).execute();
  return rows.map((r) => r.id);
}

export async function setCategories(db: DbOrTrx, objectType: ObjectType, objectId: string, categoryIds: string[]): Promise<void> {
  await db.deleteFrom('contentCategories').where('objectType', '=', objectType).where('objectId', '=', objectId).execute();
  if (categoryIds.length) {
    await db.insertInto('contentCategories').values(categoryIds.map((categoryId) => ({ categoryId, objectType, objectId }))).execute();
  }
}

export async function setTags(db: DbOrTrx, objectType: ObjectType, objectId: string, tags: string[]): Promise<void> {
  await db.deleteFrom('contentTags').where('objectType', '=', objectType).where('objectId', '=', objectId).execute();
  if (tags.length) await db.insertInto('contentTags').values(tags.map((tag) => ({ tag, objectType, objectId }))).execute();
}

export async function getCategoryIds(db: DbOrTrx, objectType: ObjectType, objectId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('contentCategories')
    .select('categoryId')
    .where('objectType', '=', objectType)
    .where('objectId', '=', objectId)
    .orderBy('categoryId')
    .execute();
  return rows.map((r) => r.categoryId);
}

export async function clearLinks(db: DbOrTrx, objectType: ObjectType, objectIds: string[]): Promise<void> {
  if (!objectIds.length) return;
  await db.deleteFrom('contentCategories').where('objectType', '=', objectType).where('objectId', 'in', objectIds).execute();
  await db.deleteFrom('contentTags').where('objectType', '=', objectType).where('objectId', 'in', objectIds).execute();
}

type Counter = 'videoCount' | 'photoCount' | 'galleryCount' | 'productCount';
export async function bumpPerformerCounter(db: DbOrTrx, performerId: string, counter: Counter, delta: number): Promise<void> {
  if (!delta) return;
  await db
    .updateTable('performers')
    .set((eb) => ({ [counter]: eb(counter, '+', delta) }) as Record<Counter, never>)
    .where('id', '=', performerId)
    .execute();
}

/** Whether anyone paid for the object (then deleting it only hides it: buyers keep what they bought). */
export async function hasEntitlements(db: DbOrTrx, objectType: ObjectType, objectId: string): Promise<boolean> {
  const row = await db.selectFrom('entitlements').select('userId').where('objectType', '=', objectType).where('objectId', '=', objectId).limit(1).executeTakeFirst();
  return Boolean(row);
}

export async function hasOrders(db: DbOrTrx, productId: string): Promise<boolean> {
  const row = await db.selectFrom('orderItems').select('id').where('productId', '=', productId).limit(1).executeTakeFirst();
  return Boolean(row);
}

// -- videos -------------------------------------------------------------------------------------------------------

export async function insertVideo(db: DbOrTrx, row: Insertable<VideosTable>): Promise<void> {
  await db.insertInto('videos').values(row).execute();
}
export async function updateVideo(db: DbOrTrx, id: string, changes: Updateable<VideosTable>): Promise<void> {
  await db.updateTable('videos').set({ ...changes, updatedAt: nowIso() }).where('id', '=', id).execute();
}
export async function deleteVideoRow(db: DbOrTrx, id: string): Promise<void> {
  await db.deleteFrom('videos').where('id', '=', id).execute();
}
/** Flips a failed video back to processing; false when it was not failed (someone else retried first). */
export async function claimVideoRetry(db: DbOrTrx, id: string): Promise<boolean> {
  const res = await db
    .updateTable('videos')
    .set({ processingStatus: 'processing', updatedAt: nowIso() })
    .where('id', '=', id)
    .where('processingStatus', '=', 'failed')
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

// -- galleries and photos -----------------------------------------------------------------------------------------

export async function insertGallery(db: DbOrTrx, row: Insertable<GalleriesTable>): Promise<void> {
  await db.insertInto('galleries').values(row).execute();
}
export async function updateGallery(db: DbOrTrx, id: string, changes: Updateable<GalleriesTable>): Promise<void> {
  await db.updateTable('galleries').set({ ...changes, updatedAt: nowIso() }).where('id', '=', id).execute();
}
export async function deleteGalleryRow(db: DbOrTrx, id: string): Promise<void> {
  await db.deleteFrom('galleries').where('id', '=', id).execute();
}
export async function bumpGalleryPhotoCount(db: DbOrTrx, galleryId: string, delta: number): Promise<void> {
  await db
    .updateTable('galleries')
    .set((eb) => ({ photoCount: eb('photoCount', '+', delta), updatedAt: nowIso() }))
    .where('id', '=', galleryId)
    .execute();
}
export async function setGalleryCover(db: DbOrTrx, galleryId: string, photoId: string | null): Promise<void> {
  await db.updateTable('galleries').set({ coverPhotoId: photoId, updatedAt: nowIso() }).where('id', '=', galleryId).execute();
}

export async function photosOfGallery(db: DbOrTrx, galleryId: string): Promise<PhotoRow[]> {
  return db.selectFrom('photos').selectAll().where('galleryId', '=', galleryId).orderBy('position').orderBy('id').execute();
}
export async function nextPhotoPosition(db: DbOrTrx, galleryId: string): Promise<number> {
  const row = await db
    .selectFrom('photos')
    .select((eb) => eb.fn.max('position').as('max'))
    .where('galleryId', '=', galleryId)
    .executeTakeFirst();
  return row?.max === null || row?.max === undefined ? 0 : Number(row.max) + 1;
}
export async function insertPhotos(db: DbOrTrx, rows: Array<Insertable<PhotosTable>>): Promise<void> {
  if (rows.length) await db.insertInto('photos').values(rows).execute();
}
export async function updatePhoto(db: DbOrTrx, id: string, changes: Updateable<PhotosTable>): Promise<void> {
  await db.updateTable('photos').set({ ...changes, updatedAt: nowIso() }).where('id', '=', id).execute();
}
export async function deletePhotoRows(db: DbOrTrx, ids: string[]): Promise<void> {
  if (ids.length) await db.deleteFrom('photos').where('id', 'in', ids).execute();
}

// -- products -----------------------------------------------------------------------------------------------------

export async function insertProduct(db: DbOrTrx, row: Insertable<ProductsTable>): Promise<void> {
  await db.insertInto('products').values(row).execute();
}
export async function updateProduct(db: DbOrTrx, id: string, changes: Updateable<ProductsTable>): Promise<void> {
  await db.updateTable('products').set({ ...changes, updatedAt: nowIso() }).where('id', '=', id).execute();
}
export async function deleteProductRow(db: DbOrTrx, id: string): Promise<void> {
  await db.deleteFrom('products').where('id', '=', id).execute();
}

// -- posts --------------------------------------------------------------------------------------------------------

export async function insertPost(db: DbOrTrx, row: Insertable<PostsTable>): Promise<void> {
  await db.insertInto('posts').values(row).execute();
}
export async function updatePost(db: DbOrTrx, id: string, changes: Updateable<PostsTable>): Promise<void> {
  await db.updateTable('posts').set({ ...changes, updatedAt: nowIso() }).where('id', '=', id).execute();
}
export async function deletePostRow(db: DbOrTrx, id: string): Promise<void> {
  await db.deleteFrom('postMedia').where('postId', '=', id).execute();
  await db.deleteFrom('posts').where('id', '=', id).execute();
}
export type PostMediaRow = Selectable<PostMediaTable>;
/** A post's pictures or video, in order. */
export async function postMedia(db: DbOrTrx, postId: string): Promise<PostMediaRow[]> {
  return db.selectFrom('postMedia').selectAll().where('postId', '=', postId).orderBy('position').orderBy('id').execute();
}
export async function insertPostMedia(db: DbOrTrx, rows: Array<Insertable<PostMediaTable>>): Promise<void> {
  if (rows.length) await db.insertInto('postMedia').values(rows).execute();
}
export async function deletePostMediaRows(db: DbOrTrx, ids: string[]): Promise<void> {
  if (ids.length) await db.deleteFrom('postMedia').where('id', 'in', ids).execute();
}

// -- performer profile --------------------------------------------------------------------------------------------

export async function getPerformerRow(db: DbOrTrx, id: string) {
  return db.selectFrom('performers').select(['id', 'username', 'displayName', 'bio', 'monthlyPrice', 'yearlyPrice', 'trialDays', 'bundle3Bps', 'bundle6Bps', 'bundle12Bps'])
    .where('id', '=', id)
    .executeTakeFirst();
}
/** What the studio's overview counts: subscribers, videos, photos, galleries, products. */
export function performerCounts(db: DbOrTrx, id: string) {
  return db.selectFrom('performers').select(['videoCount', 'photoCount', 'galleryCount', 'productCount', 'subscriberCount']).where('id', '=', id).executeTakeFirst();
}
export async function updatePerformerProfile(db: DbOrTrx, id: string, changes: { bio?: string | null; monthlyPrice?: number; yearlyPrice?: number; trialDays?: number; bundle3Bps?: number; bundle6Bps?: number; bundle12Bps?: number }): Promise<void> {
  await db.updateTable('performers').set({ ...changes, updatedAt: nowIso() }).where('id', '=', id).execute();
}
export async function getBlockedCountries(db: DbOrTrx, performerId: string): Promise<string[]> {
  const rows = await db.selectFrom('performerBlockedCountries').select('countryCode').where('performerId', '=', performerId).orderBy('countryCode').execute();
  return rows.map((r) => r.countryCode);
}
export async function setBlockedCountries(db: DbOrTrx, performerId: string, codes: string[]): Promise<void> {
  await db.deleteFrom('performerBlockedCountries').where('performerId', '=', performerId).execute();
  if (codes.length) await db.insertInto('performerBlockedCountries').values(codes.map((countryCode) => ({ performerId, countryCode }))).execute();
}

// -- own lists (studio listings, newest first; performer_id-led indexes) ------------------------------------------

export type OwnListTable = 'videos' | 'galleries' | 'posts';

/** Ids of a performer's own videos, galleries or posts in every state, newest first, and their count. */
export async function listOwnIds(db: DbOrTrx, table: OwnListTable, performerId: string, page: { limit: number; offset: number }): Promise<{ ids: string[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom(table)
      .select(['id'])
      .where('performerId', '=', performerId)
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('performerId', '=', performerId)
      .executeTakeFirstOrThrow(),
  ]);
  return { ids: rows.map((r) => r.id), total: Number(count.n) };
}

/** Whether an admin approved the performer (the studio keeps an unapproved performer to drafts within a quota). */
export async function performerApproved(db: DbOrTrx, id: string): Promise<boolean> {
  const row = await db.selectFrom('performers').select('approved').where('id', '=', id).executeTakeFirst();
  return row?.approved === 1;
}

/**
 * Locks the performer row for the rest of the transaction (a no-op UPDATE, portable where SELECT … FOR UPDATE is
 * not): concurrent creations of one performer then count each other's items.
 */
export async function lockPerformer(db: DbOrTrx, id: string): Promise<void> {
  await db.updateTable('performers').set({ updatedAt: sql<string>`updated_at` }).where('id', '=', id).execute();
}

/** Everything a performer keeps in the studio: videos, galleries, photos, products and posts, in any state. */
export async function countOwnItems(db: DbOrTrx, performerId: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select
      (select count(*) from videos where performer_id = ${performerId})
    + (select count(*) from galleries where performer_id = ${performerId})
    + (select count(*) from photos where performer_id = ${performerId})
    + (select count(*) from products where performer_id = ${performerId})
    + (select count(*) from posts where performer_id = ${performerId}) as n`.execute(db);
  return Number(rows[0]?.n ?? 0);
}
