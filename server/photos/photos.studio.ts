import { newId, nowIso } from '../db/ids.js';
import type { DbOrTrx } from '../db/database.js';
import { publicMediaUrl } from '../media/storage.js';
import { JOB_PHOTO, type PhotoJob } from '../media/pipeline/processors.js';
import { deleteFileRows, fileRow, getFiles, insertFiles } from '../media/pipeline/pipeline.repository.js';
import { invalid, owned, type Actor, type StudioDeps, type Uploads } from '../studio/deps.js';
import { checkNotHiddenByAdmin, draftsOnly, withinQuota } from '../studio/approval.js';
import { deleteStored, fileFamily } from '../studio/stored-files.js';
import * as repo from '../studio/studio.repository.js';
import type { PhotoInput, StudioPhoto } from '../../common/schemas/studio.js';

/** The performer studio's photos (server/studio/studio.routes.ts): uploaded to one of one's galleries, edited, deleted. */

export async function photoViews(db: DbOrTrx, ids: string[]): Promise<StudioPhoto[]> {
  const out: StudioPhoto[] = [];
  for (const id of ids) {
    const row = await repo.getPhoto(db, id);
    if (!row) continue;
    const files = await getFiles(db, [row.fileId, row.thumbnailFileId]);
    const original = files.find((f) => f.id === row.fileId);
    const thumb = files.find((f) => f.id === row.thumbnailFileId);
    out.push({
      _id: row.id,
      galleryId: row.galleryId,
      title: row.title,
      position: row.position,
      status: row.status,
      processingStatus: row.processingStatus,
      processingError: row.processingStatus === 'failed' ? (original?.error ?? 'Processing failed') : null,
      thumbnailUrl: publicMediaUrl(thumb?.storageKey),
      width: original?.width ?? null,
      height: original?.height ?? null,
      createdAt: row.createdAt,
    });
  }
  return out;
}

export async function uploadPhotos(deps: StudioDeps, actor: Actor, input: { galleryId: string; title?: string | null }, uploads: Uploads): Promise<string[]> {
  const files = uploads.file ?? [];
  if (!files.length) throw invalid('file', 'Send at least one photo in the "file" field');
  const gallery = owned(await repo.getGallery(deps.db, input.galleryId), actor, 'Gallery');
  const drafts = await draftsOnly(deps, actor);
  const now = nowIso();
  const ids = files.map(() => newId());
  await deps.db.transaction().execute(async (trx) => {
    await withinQuota(trx, actor, drafts, files.length);
    const start = await repo.nextPhotoPosition(trx, gallery.id);
    await insertFiles(
      trx,
      files.map((f) => fileRow({ id: f.id, ownerId: actor.id, kind: 'image', storageKey: f.storageKey, mime: f.type.mime, size: f.size, width: f.width, height: f.height, originalName: f.originalName, status: 'processing' }, now)),
    );
    await repo.insertPhotos(
      trx,
      files.map((f, i) => ({
        id: ids[i]!,
        performerId: gallery.performerId,
        status: 'active',
        galleryId: gallery.id,
        title: input.title ? (files.length > 1 ? `${input.title} ${i + 1}` : input.title) : null,
        fileId: f.id,
        thumbnailFileId: null,
        processingStatus: 'processing',
        position: start + i,
        publishedAt: now,
        createdAt: now,
        updatedAt: now,
      })),
    );
    await repo.bumpGalleryPhotoCount(trx, gallery.id, files.length);
    await repo.bumpPerformerCounter(trx, gallery.performerId, 'photoCount', files.length);
    // The first photo of an empty gallery becomes its cover (shown unblurred, see photo.process).
    if (!gallery.coverPhotoId) await repo.setGalleryCover(trx, gallery.id, ids[0]!);
    for (const id of ids) await deps.jobs.enqueue<PhotoJob>(trx, JOB_PHOTO, { photoId: id }, { subject: `photo:${id}` });
  });
  deps.jobs.wake();
  return ids;
}

export async function updatePhoto(deps: StudioDeps, actor: Actor, id: string, input: PhotoInput): Promise<StudioPhoto> {
  const row = owned(await repo.getPhoto(deps.db, id), actor, 'Photo');
  checkNotHiddenByAdmin(actor, row.status, input.status);
  await repo.updatePhoto(deps.db, id, {
    ...(input.title !== undefined ? { title: input.title } : {}),
    ...(input.position !== undefined ? { position: input.position } : {}),
    ...(input.status !== undefined ? { status: input.status } : {}),
  });
  return (await photoViews(deps.db, [id]))[0]!;
}

export async function deletePhoto(deps: StudioDeps, actor: Actor, id: string): Promise<void> {
  const row = owned(await repo.getPhoto(deps.db, id), actor, 'Photo');
  let keys: string[] = [];
  let rethumbCover = false;
  await deps.db.transaction().execute(async (trx) => {
    const files = await fileFamily(trx, [row.fileId, row.thumbnailFileId]);
    await repo.deletePhotoRows(trx, [id]);
    await deleteFileRows(trx, files.map((f) => f.id));
    await repo.bumpPerformerCounter(trx, row.performerId, 'photoCount', -1);
    if (row.galleryId) {
      await repo.bumpGalleryPhotoCount(trx, row.galleryId, -1);
      const gallery = await repo.getGallery(trx, row.galleryId);
      if (gallery?.coverPhotoId === id) {
        const next = (await repo.photosOfGallery(trx, row.galleryId))[0];
        await repo.setGalleryCover(trx, row.galleryId, next?.id ?? null);
        // The new cover of a locked gallery gets an unblurred thumbnail.
        if (next?.fileId && gallery.access !== 'free') {
          await deps.jobs.enqueue<PhotoJob>(trx, JOB_PHOTO, { photoId: next.id }, { subject: `photo:${next.id}` });
          rethumbCover = true;
        }
      }
    }
    keys = files.map((f) => f.storageKey);
  });
  if (rethumbCover) deps.jobs.wake();
  await deleteStored(deps, keys);
}
