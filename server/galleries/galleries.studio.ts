import type { DbOrTrx } from '../db/database.js';
import { notFound } from '../http/errors.js';
import { JOB_PHOTO, type PhotoJob } from '../media/pipeline/processors.js';
import { clearPhotoThumbnails, deleteFileRows, type FileRow } from '../media/pipeline/pipeline.repository.js';
import { invalid, owned, type Actor, type StudioDeps } from '../studio/deps.js';
import { checkEdit, checkNotHiddenByAdmin, draftsOnly, withinQuota } from '../studio/approval.js';
import { checkCategories, linkNewItem, pricing, relinkItem, saleItemView, sentFields, startCreate } from '../studio/item-fields.js';
import { previewFiles, removeItem, withdrawPreviews } from '../studio/stored-files.js';
import * as repo from '../studio/studio.repository.js';
import type { PhotoRow } from '../studio/studio.repository.js';
import type { GalleryInput, StudioGallery } from '../../common/schemas/studio.js';
import { enqueueAnnouncement } from '../follows/announce.js';
import { assertPublishable } from '../consent/consent.service.js';

/**
 * The performer studio's galleries (server/studio/studio.routes.ts): create, edit, delete; their photos are in
 * server/photos/photos.studio.ts. A gallery's public thumbnails are blurred while it is locked.
 */

export async function galleryView(db: DbOrTrx, id: string): Promise<StudioGallery> {
  const row = await repo.getGallery(db, id);
  if (!row) throw notFound('Gallery');
  return {
    ...saleItemView(row),
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
  const { drafts, now, id, tags, columns } = await startCreate(deps, actor, 'gallery', input);
  const fields = columns(input.title!, input.description);
  await deps.db.transaction().execute(async (trx) => {
    await withinQuota(trx, actor, drafts, 1);
    await repo.insertGallery(trx, { ...fields, title: input.title!, access, isSale, price, coverPhotoId: null, photoCount: 0, publishedAt: now });
    await linkNewItem(trx, 'gallery', id, actor.id, { tags, categoryIds: input.categoryIds });
    if (fields.status === 'active') await enqueueAnnouncement(deps.jobs, trx, { objectType: 'gallery', objectId: id, publicAt: now });
  });
  deps.jobs.wake();
  return galleryView(deps.db, id);
}

export async function updateGallery(deps: StudioDeps, actor: Actor, id: string, input: GalleryInput): Promise<StudioGallery> {
  const row = owned(await repo.getGallery(deps.db, id), actor, 'Gallery');
  const { access, isSale, price } = pricing(input.visibility ?? row.access, input.price ?? (row.access === 'sale' ? row.price : undefined));
  checkEdit(await draftsOnly(deps, actor), input.status, 'active');
  checkNotHiddenByAdmin(actor, row.status, input.status);
  await checkCategories(deps.db, 'gallery', input.categoryIds);
  // Public thumbnails are blurred while the gallery is locked: redo them when it opens or closes. When it closes,
  // the unblurred ones are withdrawn at once (the photos show none until their blurred thumbnail is made).
  const rethumb = (row.access === 'free') !== (access === 'free');
  const locking = row.access === 'free' && access !== 'free';
  await deps.db.transaction().execute(async (trx) => {
    // The gallery row first: it is the lock photo.process takes before swapping a thumbnail in.
    await repo.updateGallery(trx, id, { ...sentFields(input, ['title', 'description', 'status']), access, isSale, price });
    await relinkItem(trx, 'gallery', id, input);
    // Published only once everyone named in it confirmed (checked after the row's write, which locks it).
    if (input.status === 'active') await assertPublishable(trx, 'gallery', id);
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
    // A draft made active: the job announces it if it is public and was never announced.
    if ((input.status ?? row.status) === 'active') await enqueueAnnouncement(deps.jobs, trx, { objectType: 'gallery', objectId: id, publicAt: row.publishedAt });
  });
  deps.jobs.wake();
  return galleryView(deps.db, id);
}

/** The photos' public thumbnails (what their rows point at, and what was derived from their originals). */
function photoThumbFiles(db: DbOrTrx, photos: Array<{ fileId: string | null; thumbnailFileId: string | null }>): Promise<FileRow[]> {
  return previewFiles(db, photos.map((p) => p.thumbnailFileId), photos.flatMap((p) => (p.fileId ? [p.fileId] : [])), ['thumb']);
}

export async function deleteGallery(deps: StudioDeps, actor: Actor, id: string): Promise<void> {
  const row = owned(await repo.getGallery(deps.db, id), actor, 'Gallery');
  let photos: PhotoRow[] = [];
  await removeItem(deps, {
    paidFor: (trx) => repo.hasEntitlements(trx, 'gallery', id),
    hide: (trx) => repo.updateGallery(trx, id, { status: 'inactive' }),
    async files(trx) {
      photos = await repo.photosOfGallery(trx, id);
      return photos.flatMap((p) => [p.fileId, p.thumbnailFileId]);
    },
    async remove(trx) {
      await repo.deletePhotoRows(trx, photos.map((p) => p.id));
      await repo.deleteGalleryRow(trx, id);
      await repo.clearLinks(trx, 'gallery', [id]);
      await repo.bumpPerformerCounter(trx, row.performerId, 'galleryCount', -1);
      await repo.bumpPerformerCounter(trx, row.performerId, 'photoCount', -photos.length);
    },
  });
}
