import { newId, nowIso } from '../db/ids.js';
import type { DbOrTrx } from '../db/database.js';
import { notFound } from '../http/errors.js';
import { JOB_PHOTO, type PhotoJob } from '../media/pipeline/processors.js';
import { childFiles, clearPhotoThumbnails, deleteFileRows, getFiles, type FileRow } from '../media/pipeline/pipeline.repository.js';
import { invalid, owned, type Actor, type StudioDeps } from '../studio/deps.js';
import { checkEdit, draftsOnly, initialStatus, withinQuota } from '../studio/approval.js';
import { checkCategories, parseTags, pricing, uniqueSlug } from '../studio/item-fields.js';
import { deleteStored, fileFamily, withdrawPreviews } from '../studio/stored-files.js';
import * as repo from '../studio/studio.repository.js';
import type { GalleryInput, StudioGallery } from '../studio/studio.schemas.js';

/**
 * The performer studio's galleries (server/studio/studio.routes.ts): create, edit, delete; their photos are in
 * server/photos/photos.studio.ts. A gallery's public thumbnails are blurred while it is locked.
 */

export async function galleryView(db: DbOrTrx, id: string): Promise<StudioGallery> {
  const row = await repo.getGallery(db, id);
  if (!row) throw notFound('Gallery');
  return {
    _id: row.id,
    title: row.title,
    slug: row.slug,
    description: row.description,
    visibility: row.access,
    price: row.price,
    tags: parseTags(row.tags),
    categoryIds: await repo.getCategoryIds(db, 'gallery', id),
    status: row.status,
    photoCount: row.photoCount,
    coverPhotoId: row.coverPhotoId,
    publishedAt: row.publishedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export async function createGallery(deps: StudioDeps, actor: Actor, input: GalleryInput): Promise<StudioGallery> {
  if (!input.title) throw invalid('title', 'Title is required');
  const { access, isSale, price } = pricing(input.visibility ?? 'subscribers', input.price);
  const drafts = await draftsOnly(deps, actor);
  const status = initialStatus(drafts, input.status, 'active', 'draft');
  await checkCategories(deps.db, 'gallery', input.categoryIds);
  const now = nowIso();
  const id = newId();
  const tags = input.tags ?? [];
  await deps.db.transaction().execute(async (trx) => {
    await withinQuota(trx, actor, drafts, 1);
    await repo.insertGallery(trx, {
      id,
      performerId: actor.id,
      status,
      title: input.title!,
      slug: uniqueSlug(input.title!, id),
      description: input.description ?? null,
      access,
      isSale,
      price,
      coverPhotoId: null,
      photoCount: 0,
      publishedAt: now,
      tags: JSON.stringify(tags),
      createdAt: now,
      updatedAt: now,
    });
    await repo.setTags(trx, 'gallery', id, tags);
    await repo.setCategories(trx, 'gallery', id, input.categoryIds ?? []);
    await repo.bumpPerformerCounter(trx, actor.id, 'galleryCount', 1);
  });
  return galleryView(deps.db, id);
}

export async function updateGallery(deps: StudioDeps, actor: Actor, id: string, input: GalleryInput): Promise<StudioGallery> {
  const row = owned(await repo.getGallery(deps.db, id), actor, 'Gallery');
  const { access, isSale, price } = pricing(input.visibility ?? row.access, input.price ?? (row.access === 'sale' ? row.price : undefined));
  checkEdit(await draftsOnly(deps, actor), input.status, 'active');
  await checkCategories(deps.db, 'gallery', input.categoryIds);
  // Public thumbnails are blurred while the gallery is locked: redo them when it opens or closes. When it closes,
  // the unblurred ones are withdrawn at once (the photos show none until their blurred thumbnail is made).
  const rethumb = (row.access === 'free') !== (access === 'free');
  const locking = row.access === 'free' && access !== 'free';
  await deps.db.transaction().execute(async (trx) => {
    // The gallery row first: it is the lock photo.process takes before swapping a thumbnail in.
    await repo.updateGallery(trx, id, {
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.status !== undefined ? { status: input.status } : {}),
      ...(input.tags !== undefined ? { tags: JSON.stringify(input.tags) } : {}),
      access,
      isSale,
      price,
    });
    if (input.tags !== undefined) await repo.setTags(trx, 'gallery', id, input.tags);
    if (input.categoryIds !== undefined) await repo.setCategories(trx, 'gallery', id, input.categoryIds);
    if (rethumb) {
      const photos = await repo.photosOfGallery(trx, id);
      if (locking) {
        const thumbs = await photoThumbFiles(trx, photos);
        await clearPhotoThumbnails(trx, photos.map((p) => p.id));
        await deleteFileRows(trx, thumbs.map((f) => f.id));
        await withdrawPreviews(deps, thumbs.map((f) => f.storageKey));
      }
      for (const photo of photos) {
        if (photo.fileId) await deps.jobs.enqueue<PhotoJob>(trx, JOB_PHOTO, { photoId: photo.id }, { subject: `photo:${photo.id}` });
      }
    }
  });
  if (rethumb) deps.jobs.wake();
  return galleryView(deps.db, id);
}

/** The photos' public thumbnails (what their rows point at, and what was derived from their originals). */
async function photoThumbFiles(db: DbOrTrx, photos: Array<{ fileId: string | null; thumbnailFileId: string | null }>): Promise<FileRow[]> {
  const [linked, children] = await Promise.all([
    getFiles(db, photos.map((p) => p.thumbnailFileId)),
    childFiles(db, photos.flatMap((p) => (p.fileId ? [p.fileId] : [])), ['thumb']),
  ]);
  return [...new Map([...linked, ...children].map((f) => [f.id, f])).values()];
}

export async function deleteGallery(deps: StudioDeps, actor: Actor, id: string): Promise<void> {
  const row = owned(await repo.getGallery(deps.db, id), actor, 'Gallery');
  let keys: string[] = [];
  await deps.db.transaction().execute(async (trx) => {
    if (await repo.hasEntitlements(trx, 'gallery', id)) {
      await repo.updateGallery(trx, id, { status: 'inactive' });
      return;
    }
    const photos = await repo.photosOfGallery(trx, id);
    const files = await fileFamily(trx, photos.flatMap((p) => [p.fileId, p.thumbnailFileId]));
    await repo.deletePhotoRows(trx, photos.map((p) => p.id));
    await repo.deleteGalleryRow(trx, id);
    await repo.clearLinks(trx, 'gallery', [id]);
    await deleteFileRows(trx, files.map((f) => f.id));
    await repo.bumpPerformerCounter(trx, row.performerId, 'galleryCount', -1);
    await repo.bumpPerformerCounter(trx, row.performerId, 'photoCount', -photos.length);
    keys = files.map((f) => f.storageKey);
  });
  await deleteStored(deps, keys);
}
