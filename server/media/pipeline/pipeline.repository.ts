import type { Insertable, Selectable } from 'kysely';
import type { DbOrTrx } from '../../db/database.js';
import { nowIso } from '../../db/ids.js';
import type { FilesTable, GalleriesTable, PhotosTable, PostMediaTable, PostsTable, VideosTable } from '../../db/schema.js';
import type { ProcessingStatus } from '../../../common/enums.js';

/** SQL of the media pipeline: `files` rows and the processing columns of the rows that use them. */

export type FileRow = Selectable<FilesTable>;
export type NewFile = Insertable<FilesTable>;

export interface FileInput {
  id: string;
  ownerId: string | null;
  parentId?: string | null;
  variant?: string;
  kind: FilesTable['kind'];
  storageKey: string;
  mime: string;
  size: number;
  width?: number | null;
  height?: number | null;
  duration?: number | null;
  originalName?: string | null;
  status: 'uploaded' | 'processing' | 'ready' | 'failed';
}

export function fileRow(f: FileInput, at = nowIso()): NewFile {
  return {
    id: f.id,
    ownerId: f.ownerId,
    parentId: f.parentId ?? null,
    variant: f.variant ?? 'original',
    kind: f.kind,
    storageKey: f.storageKey,
    mime: f.mime,
    size: f.size,
    width: f.width ?? null,
    height: f.height ?? null,
    duration: f.duration ?? null,
    originalName: f.originalName ?? null,
    status: f.status,
    error: null,
    createdAt: at,
    updatedAt: at,
  };
}

export async function insertFiles(db: DbOrTrx, rows: NewFile[]): Promise<void> {
  if (rows.length) await db.insertInto('files').values(rows).execute();
}

export async function getFile(db: DbOrTrx, id: string): Promise<FileRow | undefined> {
  return db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function getFiles(db: DbOrTrx, ids: Array<string | null | undefined>): Promise<FileRow[]> {
  const wanted = ids.filter((id): id is string => Boolean(id));
  if (!wanted.length) return [];
  return db.selectFrom('files').selectAll().where('id', 'in', wanted).execute();
}

/** Derived files of an original (index files_parent). */
export async function childFiles(db: DbOrTrx, parentIds: string[], variants?: string[]): Promise<FileRow[]> {
  if (!parentIds.length) return [];
  let q = db.selectFrom('files').selectAll().where('parentId', 'in', parentIds);
  if (variants) q = q.where('variant', 'in', variants);
  return q.execute();
}

export async function deleteFileRows(db: DbOrTrx, ids: string[]): Promise<void> {
  if (ids.length) await db.deleteFrom('files').where('id', 'in', ids).execute();
}

/** Removes a file row; answers its storage key so the caller deletes the bytes after the commit. */
export async function deleteFileRow(db: DbOrTrx, fileId: string): Promise<string | undefined> {
  const row = await db.deleteFrom('files').where('id', '=', fileId).returning('storageKey').executeTakeFirst();
  return row?.storageKey;
}

/** Which of these storage keys a `files` row names (the orphan sweep keeps those: server/media/orphans.ts). */
export async function knownStorageKeys(db: DbOrTrx, keys: string[]): Promise<Set<string>> {
  if (!keys.length) return new Set();
  const rows = await db.selectFrom('files').select('storageKey').where('storageKey', 'in', keys).execute();
  return new Set(rows.map((r) => r.storageKey));
}

export async function markFileReady(db: DbOrTrx, id: string, info: { width?: number | null; height?: number | null; duration?: number | null }): Promise<void> {
  await db
    .updateTable('files')
    .set({ status: 'ready', error: null, width: info.width ?? null, height: info.height ?? null, duration: info.duration ?? null, updatedAt: nowIso() })
    .where('id', '=', id)
    .execute();
}

export async function markFileFailed(db: DbOrTrx, id: string, error: string): Promise<void> {
  await db.updateTable('files').set({ status: 'failed', error, updatedAt: nowIso() }).where('id', '=', id).execute();
}

export async function setFileStatus(db: DbOrTrx, id: string, status: FileRow['status']): Promise<void> {
  await db.updateTable('files').set({ status, error: null, updatedAt: nowIso() }).where('id', '=', id).execute();
}

export async function getVideoRow(db: DbOrTrx, id: string): Promise<Selectable<VideosTable> | undefined> {
  return db.selectFrom('videos').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function setVideoProcessed(
  db: DbOrTrx,
  id: string,
  values: { duration: number; teaserFileId: string | null; thumbnailFileId: string },
): Promise<void> {
  await db
    .updateTable('videos')
    .set({ ...values, processingStatus: 'ready', updatedAt: nowIso() })
    .where('id', '=', id)
    .execute();
}

export async function setVideoProcessingStatus(db: DbOrTrx, id: string, status: ProcessingStatus): Promise<void> {
  await db.updateTable('videos').set({ processingStatus: status, updatedAt: nowIso() }).where('id', '=', id).execute();
}

export async function getPhotoRow(db: DbOrTrx, id: string): Promise<Selectable<PhotosTable> | undefined> {
  return db.selectFrom('photos').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function getGalleryRow(db: DbOrTrx, id: string): Promise<Selectable<GalleriesTable> | undefined> {
  return db.selectFrom('galleries').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Locks a gallery row for the rest of the transaction and returns it as it now is. A no-op UPDATE takes the row lock
 * on PostgreSQL (portable, unlike SELECT … FOR UPDATE); SQLite has a single writer anyway.
 */
export async function lockGalleryRow(db: DbOrTrx, id: string): Promise<Selectable<GalleriesTable> | undefined> {
  await db.updateTable('galleries').set((eb) => ({ access: eb.ref('access') })).where('id', '=', id).execute();
  return getGalleryRow(db, id);
}

/** Takes the public previews away from videos (they show none until processed again). */
export async function clearVideoPreviews(db: DbOrTrx, id: string): Promise<void> {
  await db.updateTable('videos').set({ teaserFileId: null, thumbnailFileId: null, updatedAt: nowIso() }).where('id', '=', id).execute();
}

/** Takes the public thumbnails away from photos (they show none until processed again). */
export async function clearPhotoThumbnails(db: DbOrTrx, ids: string[]): Promise<void> {
  if (ids.length) await db.updateTable('photos').set({ thumbnailFileId: null, updatedAt: nowIso() }).where('id', 'in', ids).execute();
}

export async function setPhotoProcessed(db: DbOrTrx, id: string, thumbnailFileId: string): Promise<void> {
  await db.updateTable('photos').set({ thumbnailFileId, processingStatus: 'ready', updatedAt: nowIso() }).where('id', '=', id).execute();
}

export async function setPhotoProcessingStatus(db: DbOrTrx, id: string, status: ProcessingStatus): Promise<void> {
  await db.updateTable('photos').set({ processingStatus: status, updatedAt: nowIso() }).where('id', '=', id).execute();
}

/** Points a product's or post's picture at the processed file, unless it was replaced meanwhile. */
export async function swapImageFile(db: DbOrTrx, target: 'product' | 'post', id: string, from: string, to: string): Promise<boolean> {
  const table = target === 'product' ? 'products' : 'posts';
  const res = await db
    .updateTable(table)
    .set({ imageFileId: to, updatedAt: nowIso() })
    .where('id', '=', id)
    .where('imageFileId', '=', from)
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

// -- a post's pictures and video ----------------------------------------------------------------------------------

export async function getPostMediaRow(db: DbOrTrx, id: string): Promise<Selectable<PostMediaTable> | undefined> {
  return db.selectFrom('postMedia').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function getPostRow(db: DbOrTrx, id: string): Promise<Selectable<PostsTable> | undefined> {
  return db.selectFrom('posts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Locks a post row for the rest of the transaction (as `lockGalleryRow`) and returns it as it now is. */
export async function lockPostRow(db: DbOrTrx, id: string): Promise<Selectable<PostsTable> | undefined> {
  await db.updateTable('posts').set((eb) => ({ access: eb.ref('access') })).where('id', '=', id).execute();
  return getPostRow(db, id);
}

export async function setPostMediaProcessed(
  db: DbOrTrx,
  id: string,
  values: { previewFileId: string | null; thumbFileId: string | null; displayFileId: string | null; width: number | null; height: number | null; duration: number | null },
): Promise<void> {
  await db.updateTable('postMedia').set({ ...values, processingStatus: 'ready', updatedAt: nowIso() }).where('id', '=', id).execute();
}

export async function setPostMediaStatus(db: DbOrTrx, id: string, status: ProcessingStatus): Promise<void> {
  await db.updateTable('postMedia').set({ processingStatus: status, updatedAt: nowIso() }).where('id', '=', id).execute();
}

/** Takes the derived files (preview, display picture) away from a post's media: they show none until processed again. */
export async function clearPostMediaFiles(db: DbOrTrx, ids: string[]): Promise<void> {
  if (ids.length) await db.updateTable('postMedia').set({ previewFileId: null, thumbFileId: null, displayFileId: null, updatedAt: nowIso() }).where('id', 'in', ids).execute();
}
