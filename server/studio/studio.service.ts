import type { Logger } from 'pino';
import { POST_MAX_IMAGES } from '../../common/limits.js';
import type { Role } from '../../common/enums.js';
import type { Db, DbOrTrx } from '../db/database.js';
import { newId, nowIso } from '../db/ids.js';
import type { Access, CategoryGroup } from '../db/schema.js';
import { AppError, conflict, notFound } from '../http/errors.js';
import type { JobQueue } from '../jobs/queue.js';
import { findJobsBySubject } from '../jobs/jobs.repository.js';
import { publicMediaUrl, type Storage } from '../media/storage.js';
import type { ReceivedFile } from '../media/pipeline/upload.js';
import { JOB_IMAGE, JOB_PHOTO, JOB_POST_MEDIA, JOB_VIDEO, type ImageJob, type PhotoJob, type PostMediaJob, type VideoJob } from '../media/pipeline/processors.js';
import { childFiles, clearPhotoThumbnails, clearPostMediaFiles, clearVideoPreviews, deleteFileRows, fileRow, getFile, getFiles, insertFiles, type FileRow } from '../media/pipeline/pipeline.repository.js';
import type { SettingsService } from '../settings/settings.service.js';
import * as repo from './studio.repository.js';
import type {
  GalleryInput, PhotoInput, PostInput, ProductInput, ProfileInput, StudioGallery, StudioPhoto, StudioPost, StudioPostMedia, StudioProduct,
  StudioProfile, StudioVideo, VideoInput,
} from '../../common/schemas/studio.js';

/**
 * The performer studio's use cases: create, edit and delete one's own videos, galleries, photos,
 * products and posts, and edit the performer profile. Each change runs in one transaction together with
 * the processing jobs it enqueues; stored files that end up unused are deleted after the commit.
 * Someone else's item answers 404 (its existence is not revealed); admins may edit and delete anything.
 */

export interface StudioDeps {
  db: Db;
  storage: Storage;
  jobs: JobQueue;
  logger: Logger;
  settings: Pick<SettingsService, 'get'>;
}

export interface Actor {
  id: string;
  role: Role;
}

/** Files received with the request, by field. */
export type Uploads = Record<string, ReceivedFile[] | undefined>;

function owned<T extends { performerId: string | null }>(row: T | undefined, actor: Actor, what: string): T {
  if (!row || (row.performerId !== actor.id && actor.role !== 'admin')) throw notFound(what);
  return row;
}

function invalid(path: string, message: string): AppError {
  return new AppError(400, 'VALIDATION_FAILED', `Invalid body.${path}: ${message}`, [{ path: `body.${path}`, message }]);
}

export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return slug || 'item';
}
const uniqueSlug = (title: string, id: string) => `${slugify(title)}-${id.slice(-6)}`;

// ---------------------------------------------------------------------------------------------------------------
// Before approval. Only performers an admin approved earn: until then the studio keeps a performer's work as
// drafts (nothing can be made active, published or scheduled, so nothing is public or for sale; the catalogue
// hides an unapproved performer's items anyway) and at most `unapprovedItemQuota` items of every kind together.
// Admins editing anything are not limited.

/**
 * The item quota when the actor is a performer an admin has not approved (yet, or any more); null when not limited.
 * Read before the transaction: the settings are read on another connection, which inside it could wait forever
 * for the connection the transaction holds (SQLite has one).
 */
async function draftsOnly(deps: StudioDeps, actor: Actor): Promise<{ quota: number } | null> {
  if (actor.role === 'admin' || (await repo.performerApproved(deps.db, actor.id))) return null;
  return { quota: Math.max(0, Number(await deps.settings.get('unapprovedItemQuota'))) };
}

function notApproved(what: string): AppError {
  return new AppError(403, 'PERFORMER_NOT_APPROVED', `Until an admin approves your account you can save drafts only: ${what}`);
}

/** The status of a new item: what was asked, else published, or for an unapproved performer a draft (403 when asked to publish). */
function initialStatus<S extends string>(drafts: unknown, requested: S | undefined, published: S, draft: S): S {
  if (!drafts) return requested ?? published;
  if (requested === published) throw notApproved('publishing becomes possible once you are approved');
  return requested ?? draft;
}

/** An edit by an unapproved performer may not publish or schedule. */
function checkEdit(drafts: unknown, status: string | undefined, published: string, scheduledAt?: string | null): void {
  if (!drafts) return;
  if (status === published) throw notApproved('publishing becomes possible once you are approved');
  if (scheduledAt) throw notApproved('scheduling becomes possible once you are approved');
}

/**
 * First thing in a create transaction of an unapproved performer: their items stay within the quota. The performer
 * row is locked first, so concurrent uploads count each other and cannot pass the quota together.
 */
async function withinQuota(trx: DbOrTrx, actor: Actor, drafts: { quota: number } | null, adding: number): Promise<void> {
  if (!drafts) return;
  await repo.lockPerformer(trx, actor.id);
  const { quota } = drafts;
  const have = await repo.countOwnItems(trx, actor.id);
  if (have + adding > quota) {
    throw new AppError(
      403,
      'DRAFT_QUOTA_REACHED',
      `Until an admin approves your account you can keep at most ${quota} items (videos, galleries, photos, products and posts together); you have ${have}`,
      { quota, count: have },
    );
  }
}

/** Sale items need a price; other visibilities carry none. */
function pricing(visibility: Access, price: number | undefined): { access: Access; isSale: number; price: number } {
  if (visibility === 'sale') {
    if (!price || price < 1) throw invalid('price', 'A sale item needs a price above 0, in minor units (e.g. 999 for 9.99)');
    return { access: 'sale', isSale: 1, price };
  }
  return { access: visibility, isSale: 0, price: 0 };
}

/** A future `scheduledAt` publishes then; otherwise now (or keeps the date of something already published). */
function schedule(scheduledAt: string | null | undefined, now: string, publishedBefore: string | null): { scheduledAt: string | null; publishedAt: string } {
  if (scheduledAt && scheduledAt > now) return { scheduledAt, publishedAt: scheduledAt };
  return { scheduledAt: null, publishedAt: publishedBefore && publishedBefore <= now ? publishedBefore : now };
}

async function checkCategories(db: DbOrTrx, group: CategoryGroup, ids: string[] | undefined): Promise<void> {
  if (!ids?.length) return;
  const found = new Set(await repo.findCategoryIds(db, group, ids));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length) throw invalid('categoryIds', `Unknown ${group} categor${missing.length > 1 ? 'ies' : 'y'}: ${missing.join(', ')}`);
}

function parseTags(json: string): string[] {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}

/** A stored file and everything derived from it (so deleting an item leaves no orphan behind). */
async function fileFamily(db: DbOrTrx, ids: Array<string | null | undefined>): Promise<FileRow[]> {
  const rows = await getFiles(db, ids);
  const roots = new Set(rows.map((r) => (r.variant !== 'original' && r.parentId ? r.parentId : r.id)));
  const [rootRows, children] = await Promise.all([getFiles(db, [...roots]), childFiles(db, [...roots])]);
  const all = new Map<string, FileRow>();
  for (const r of [...rows, ...rootRows, ...children]) all.set(r.id, r);
  return [...all.values()];
}

/**
 * Deletes the public previews an item had while it was free, inside the transaction that locks it. A delete that
 * fails throws, which rolls the change back: an item never turns locked while its free-time previews are still
 * served. Their URLs may be cached or shared; the new previews get new keys, so those URLs answer 404 from now on.
 */
async function withdrawPreviews(deps: StudioDeps, keys: string[]): Promise<void> {
  await Promise.all(keys.map((k) => deps.storage.delete(k)));
}

async function deleteStored(deps: StudioDeps, keys: string[]): Promise<void> {
  await Promise.all(keys.map((k) => deps.storage.delete(k).catch((err) => deps.logger.warn({ err, key: k }, 'could not delete stored media'))));
}

function imageState(file: FileRow | undefined): { url: string | null; status: 'none' | 'processing' | 'ready' | 'failed' } {
  if (!file) return { url: null, status: 'none' };
  const url = publicMediaUrl(file.storageKey);
  if (url) return { url, status: 'ready' };
  return { url: null, status: file.status === 'failed' ? 'failed' : 'processing' };
}

// ---------------------------------------------------------------------------------------------------------------
// Videos.

export async function videoView(db: DbOrTrx, id: string): Promise<StudioVideo> {
  const row = await repo.getVideo(db, id);
  if (!row) throw notFound('Video');
  const [files, posters, categoryIds, jobs] = await Promise.all([
    getFiles(db, [row.fileId, row.thumbnailFileId, row.teaserFileId]),
    row.fileId ? childFiles(db, [row.fileId], ['poster']) : Promise.resolve([]),
    repo.getCategoryIds(db, 'video', id),
    row.processingStatus === 'processing' ? findJobsBySubject(db, `video:${id}`) : Promise.resolve([]),
  ]);
  const byId = new Map(files.map((f) => [f.id, f]));
  const original = row.fileId ? byId.get(row.fileId) : undefined;
  const latest = jobs.at(-1);
  return {
    _id: row.id,
    title: row.title,
    slug: row.slug,
    description: row.description,
    visibility: row.access,
    price: row.price,
    tags: parseTags(row.tags),
    categoryIds,
    status: row.status,
    processingStatus: row.processingStatus,
    processingError: row.processingStatus === 'failed' ? (original?.error ?? 'Processing failed') : row.processingStatus === 'processing' ? (latest?.lastError ?? null) : null,
    duration: row.duration,
    thumbnailUrl: publicMediaUrl(row.thumbnailFileId ? byId.get(row.thumbnailFileId)?.storageKey : null),
    posterUrl: publicMediaUrl(posters[0]?.storageKey),
    teaserUrl: publicMediaUrl(row.teaserFileId ? byId.get(row.teaserFileId)?.storageKey : null),
    scheduledAt: row.scheduledAt,
    publishedAt: row.publishedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export async function videoProcessingState(deps: StudioDeps, actor: Actor, id: string) {
  owned(await repo.getVideo(deps.db, id), actor, 'Video');
  const [view, jobs] = await Promise.all([videoView(deps.db, id), findJobsBySubject(deps.db, `video:${id}`)]);
  const latest = jobs.at(-1);
  return {
    _id: id,
    processingStatus: view.processingStatus,
    processingError: view.processingError,
    attempts: latest?.attempts ?? 0,
    maxAttempts: latest?.maxAttempts ?? 0,
    nextAttemptAt: latest?.status === 'queued' && latest.attempts > 0 ? latest.runAt : null,
    duration: view.duration,
    thumbnailUrl: view.thumbnailUrl,
    teaserUrl: view.teaserUrl,
  };
}

export async function createVideo(deps: StudioDeps, actor: Actor, input: VideoInput, uploads: Uploads): Promise<string> {
  const main = uploads.file?.[0];
  if (!main) throw invalid('file', 'Send the video in the "file" field');
  if (!input.title) throw invalid('title', 'Title is required');
  const { access, isSale, price } = pricing(input.visibility ?? 'subscribers', input.price);
  const drafts = await draftsOnly(deps, actor);
  const status = initialStatus(drafts, input.status, 'active', 'draft');
  if (drafts && input.scheduledAt) throw notApproved('scheduling becomes possible once you are approved');
  await checkCategories(deps.db, 'video', input.categoryIds);
  const now = nowIso();
  const id = newId();
  const when = schedule(input.scheduledAt, now, null);
  const teaser = uploads.teaser?.[0];
  const thumb = uploads.thumbnail?.[0];
  const tags = input.tags ?? [];
  await deps.db.transaction().execute(async (trx) => {
    await withinQuota(trx, actor, drafts, 1);
    await insertFiles(trx, [
      fileRow({ id: main.id, ownerId: actor.id, kind: 'video', storageKey: main.storageKey, mime: main.type.mime, size: main.size, originalName: main.originalName, status: 'processing' }, now),
      ...(teaser
        ? [fileRow({ id: teaser.id, ownerId: actor.id, parentId: main.id, variant: 'teaser-source', kind: 'video', storageKey: teaser.storageKey, mime: teaser.type.mime, size: teaser.size, originalName: teaser.originalName, status: 'processing' }, now)]
        : []),
      ...(thumb
        ? [fileRow({ id: thumb.id, ownerId: actor.id, parentId: main.id, variant: 'thumb-source', kind: 'image', storageKey: thumb.storageKey, mime: thumb.type.mime, size: thumb.size, width: thumb.width, height: thumb.height, originalName: thumb.originalName, status: 'processing' }, now)]
        : []),
    ]);
    await repo.insertVideo(trx, {
      id,
      performerId: actor.id,
      status,
      title: input.title!,
      slug: uniqueSlug(input.title!, id),
      description: input.description ?? null,
      access,
      isSale,
      price,
      fileId: main.id,
      teaserFileId: null,
      thumbnailFileId: null,
      duration: null,
      processingStatus: 'processing',
      scheduledAt: when.scheduledAt,
      publishedAt: when.publishedAt,
      tags: JSON.stringify(tags),
      createdAt: now,
      updatedAt: now,
    });
    await repo.setTags(trx, 'video', id, tags);
    await repo.setCategories(trx, 'video', id, input.categoryIds ?? []);
    await repo.bumpPerformerCounter(trx, actor.id, 'videoCount', 1);
    await deps.jobs.enqueue<VideoJob>(trx, JOB_VIDEO, { videoId: id }, { subject: `video:${id}` });
  });
  deps.jobs.wake();
  return id;
}

export async function updateVideo(deps: StudioDeps, actor: Actor, id: string, input: VideoInput): Promise<StudioVideo> {
  const row = owned(await repo.getVideo(deps.db, id), actor, 'Video');
  const { access, isSale, price } = pricing(input.visibility ?? row.access, input.price ?? (row.access === 'sale' ? row.price : undefined));
  checkEdit(await draftsOnly(deps, actor), input.status, 'active', input.scheduledAt);
  await checkCategories(deps.db, 'video', input.categoryIds);
  const now = nowIso();
  const when = input.scheduledAt !== undefined ? schedule(input.scheduledAt, now, row.publishedAt) : null;
  // Free to locked: the previews made while it was free are withdrawn at once and made again under new keys.
  const locking = row.access === 'free' && access !== 'free' && row.fileId !== null;
  await deps.db.transaction().execute(async (trx) => {
    if (locking) {
      const previews = await videoPreviewFiles(trx, row);
      await clearVideoPreviews(trx, id);
      await deleteFileRows(trx, previews.map((f) => f.id));
      await deps.jobs.enqueue<VideoJob>(trx, JOB_VIDEO, { videoId: id }, { subject: `video:${id}` });
      await withdrawPreviews(deps, previews.map((f) => f.storageKey));
    }
    await repo.updateVideo(trx, id, {
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.status !== undefined ? { status: input.status } : {}),
      ...(input.tags !== undefined ? { tags: JSON.stringify(input.tags) } : {}),
      ...(when ?? {}),
      access,
      isSale,
      price,
    });
    if (input.tags !== undefined) await repo.setTags(trx, 'video', id, input.tags);
    if (input.categoryIds !== undefined) await repo.setCategories(trx, 'video', id, input.categoryIds);
  });
  if (locking) deps.jobs.wake();
  return videoView(deps.db, id);
}

/** A video's public previews: poster, thumbnail and teaser (not the performer's private source clips). */
async function videoPreviewFiles(db: DbOrTrx, row: { fileId: string | null; thumbnailFileId: string | null; teaserFileId: string | null }): Promise<FileRow[]> {
  const [linked, children] = await Promise.all([getFiles(db, [row.thumbnailFileId, row.teaserFileId]), row.fileId ? childFiles(db, [row.fileId], ['poster', 'thumb', 'teaser']) : []]);
  return [...new Map([...linked, ...children].map((f) => [f.id, f])).values()];
}

/** Deletes a video and its files; one somebody bought is only hidden (status inactive), so buyers keep it. */
export async function deleteVideo(deps: StudioDeps, actor: Actor, id: string): Promise<void> {
  const row = owned(await repo.getVideo(deps.db, id), actor, 'Video');
  let keys: string[] = [];
  await deps.db.transaction().execute(async (trx) => {
    if (await repo.hasEntitlements(trx, 'video', id)) {
      await repo.updateVideo(trx, id, { status: 'inactive' });
      return;
    }
    const files = await fileFamily(trx, [row.fileId, row.teaserFileId, row.thumbnailFileId]);
    await repo.deleteVideoRow(trx, id);
    await repo.clearLinks(trx, 'video', [id]);
    await deleteFileRows(trx, files.map((f) => f.id));
    await repo.bumpPerformerCounter(trx, row.performerId, 'videoCount', -1);
    keys = files.map((f) => f.storageKey);
  });
  await deleteStored(deps, keys);
}

/** Processes a failed video again (a new job with fresh attempts); 409 unless it failed. */
export async function retryVideo(deps: StudioDeps, actor: Actor, id: string): Promise<StudioVideo> {
  const row = owned(await repo.getVideo(deps.db, id), actor, 'Video');
  if (!row.fileId) throw conflict('This video has no file to process');
  await deps.db.transaction().execute(async (trx) => {
    if (!(await repo.claimVideoRetry(trx, id))) {
      throw conflict(row.processingStatus === 'ready' ? 'This video is already processed' : 'This video is already being processed');
    }
    await trx.updateTable('files').set({ status: 'processing', error: null, updatedAt: nowIso() }).where('id', '=', row.fileId!).execute();
    await deps.jobs.enqueue<VideoJob>(trx, JOB_VIDEO, { videoId: id }, { subject: `video:${id}` });
  });
  deps.jobs.wake();
  return videoView(deps.db, id);
}

// ---------------------------------------------------------------------------------------------------------------
// Galleries and photos.

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
  owned(await repo.getPhoto(deps.db, id), actor, 'Photo');
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

// ---------------------------------------------------------------------------------------------------------------
// Products.

export async function productView(db: DbOrTrx, id: string): Promise<StudioProduct> {
  const row = await repo.getProduct(db, id);
  if (!row) throw notFound('Product');
  const files = await getFiles(db, [row.imageFileId, row.digitalFileId]);
  const image = imageState(files.find((f) => f.id === row.imageFileId));
  const digital = files.find((f) => f.id === row.digitalFileId);
  return {
    _id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    type: row.type,
    price: row.price,
    stock: row.stock,
    tags: parseTags(row.tags),
    categoryIds: await repo.getCategoryIds(db, 'product', id),
    status: row.status,
    imageUrl: image.url,
    imageStatus: image.status,
    digitalFile: digital ? { name: digital.originalName, size: Number(digital.size), mime: digital.mime } : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function sourceImageRow(f: ReceivedFile, ownerId: string, now: string) {
  return fileRow({ id: f.id, ownerId, kind: 'image', storageKey: f.storageKey, mime: f.type.mime, size: f.size, width: f.width, height: f.height, originalName: f.originalName, status: 'processing' }, now);
}

function digitalFileRow(f: ReceivedFile, ownerId: string, now: string) {
  return fileRow({ id: f.id, ownerId, kind: 'file', storageKey: f.storageKey, mime: f.type.mime, size: f.size, originalName: f.originalName, status: 'ready' }, now);
}

export async function createProduct(deps: StudioDeps, actor: Actor, input: ProductInput, uploads: Uploads): Promise<string> {
  if (!input.name) throw invalid('name', 'Name is required');
  if (input.price === undefined) throw invalid('price', 'Price is required, in minor units (e.g. 1999 for 19.99)');
  const type = input.type ?? 'physical';
  const image = uploads.image?.[0];
  const digital = uploads.file?.[0];
  if (type === 'digital' && !digital) throw invalid('file', 'A digital product needs its file in the "file" field');
  if (type === 'physical' && digital) throw invalid('file', 'Only digital products take a file; a physical product has stock instead');
  // A draft may carry the price it will sell at; only an approved performer's active product can be bought.
  const drafts = await draftsOnly(deps, actor);
  const status = initialStatus(drafts, input.status, 'active', 'draft');
  await checkCategories(deps.db, 'product', input.categoryIds);
  const now = nowIso();
  const id = newId();
  const tags = input.tags ?? [];
  await deps.db.transaction().execute(async (trx) => {
    await withinQuota(trx, actor, drafts, 1);
    await insertFiles(trx, [...(image ? [sourceImageRow(image, actor.id, now)] : []), ...(digital ? [digitalFileRow(digital, actor.id, now)] : [])]);
    await repo.insertProduct(trx, {
      id,
      performerId: actor.id,
      status,
      name: input.name!,
      slug: uniqueSlug(input.name!, id),
      description: input.description ?? null,
      type,
      price: input.price!,
      stock: type === 'physical' ? (input.stock ?? 0) : null,
      imageFileId: image?.id ?? null,
      digitalFileId: digital?.id ?? null,
      publishedAt: now,
      tags: JSON.stringify(tags),
      createdAt: now,
      updatedAt: now,
    });
    await repo.setTags(trx, 'product', id, tags);
    await repo.setCategories(trx, 'product', id, input.categoryIds ?? []);
    await repo.bumpPerformerCounter(trx, actor.id, 'productCount', 1);
    if (image) await deps.jobs.enqueue<ImageJob>(trx, JOB_IMAGE, { fileId: image.id, target: 'product', id }, { subject: `product:${id}` });
  });
  if (image) deps.jobs.wake();
  return id;
}

export async function updateProduct(deps: StudioDeps, actor: Actor, id: string, input: ProductInput, uploads: Uploads): Promise<string> {
  const row = owned(await repo.getProduct(deps.db, id), actor, 'Product');
  const type = input.type ?? row.type;
  const image = uploads.image?.[0];
  const digital = uploads.file?.[0];
  if (type === 'physical' && digital) throw invalid('file', 'Only digital products take a file; a physical product has stock instead');
  if (type === 'digital' && !digital && !row.digitalFileId) throw invalid('file', 'A digital product needs its file in the "file" field');
  checkEdit(await draftsOnly(deps, actor), input.status, 'active');
  await checkCategories(deps.db, 'product', input.categoryIds);
  const now = nowIso();
  let keys: string[] = [];
  await deps.db.transaction().execute(async (trx) => {
    const replaced: Array<string | null> = [];
    if (image) replaced.push(row.imageFileId);
    if (digital || type === 'physical') replaced.push(row.digitalFileId);
    const old = await fileFamily(trx, replaced);
    await insertFiles(trx, [...(image ? [sourceImageRow(image, row.performerId, now)] : []), ...(digital ? [digitalFileRow(digital, row.performerId, now)] : [])]);
    await repo.updateProduct(trx, id, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.price !== undefined ? { price: input.price } : {}),
      ...(input.status !== undefined ? { status: input.status } : {}),
      ...(input.tags !== undefined ? { tags: JSON.stringify(input.tags) } : {}),
      type,
      stock: type === 'physical' ? (input.stock ?? row.stock ?? 0) : null,
      ...(image ? { imageFileId: image.id } : {}),
      ...(digital ? { digitalFileId: digital.id } : type === 'physical' ? { digitalFileId: null } : {}),
    });
    await deleteFileRows(trx, old.map((f) => f.id));
    if (input.tags !== undefined) await repo.setTags(trx, 'product', id, input.tags);
    if (input.categoryIds !== undefined) await repo.setCategories(trx, 'product', id, input.categoryIds);
    if (image) await deps.jobs.enqueue<ImageJob>(trx, JOB_IMAGE, { fileId: image.id, target: 'product', id }, { subject: `product:${id}` });
    keys = old.map((f) => f.storageKey);
  });
  if (image) deps.jobs.wake();
  await deleteStored(deps, keys);
  return id;
}

/** Deletes a product; one that was ordered or bought is only hidden (orders and downloads keep working). */
export async function deleteProduct(deps: StudioDeps, actor: Actor, id: string): Promise<void> {
  const row = owned(await repo.getProduct(deps.db, id), actor, 'Product');
  let keys: string[] = [];
  await deps.db.transaction().execute(async (trx) => {
    if ((await repo.hasOrders(trx, id)) || (await repo.hasEntitlements(trx, 'product', id))) {
      await repo.updateProduct(trx, id, { status: 'inactive' });
      return;
    }
    const files = await fileFamily(trx, [row.imageFileId, row.digitalFileId]);
    await repo.deleteProductRow(trx, id);
    await repo.clearLinks(trx, 'product', [id]);
    await deleteFileRows(trx, files.map((f) => f.id));
    await repo.bumpPerformerCounter(trx, row.performerId, 'productCount', -1);
    keys = files.map((f) => f.storageKey);
  });
  await deleteStored(deps, keys);
}

// ---------------------------------------------------------------------------------------------------------------
// Posts.

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const unescapeHtml = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);

/** Performer text becomes escaped HTML paragraphs (blank lines split paragraphs, single newlines become <br>): no markup gets through. */
export function textToHtml(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n{2,}/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p>${p.split('\n').map(escapeHtml).join('<br>')}</p>`)
    .join('\n');
}

export function htmlToText(html: string): string {
  return unescapeHtml(
    html
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<\/p>\s*<p>/gi, '\n\n')
      .replace(/<[^>]+>/g, ''),
  ).trim();
}

export async function postView(db: DbOrTrx, id: string): Promise<StudioPost> {
  const row = await repo.getPost(db, id);
  if (!row) throw notFound('Post');
  const media = await repo.postMedia(db, id);
  const files = new Map((await getFiles(db, [row.imageFileId, ...media.flatMap((m) => [m.fileId, m.previewFileId])])).map((f) => [f.id, f]));
  const items: StudioPostMedia[] = media.map((m) => ({
    _id: m.id,
    kind: m.kind,
    previewUrl: publicMediaUrl(m.previewFileId ? files.get(m.previewFileId)?.storageKey : null),
    processingStatus: m.processingStatus,
    processingError: m.processingStatus === 'failed' ? (files.get(m.fileId)?.error ?? 'Processing failed') : null,
    width: m.width,
    height: m.height,
    duration: m.duration,
  }));
  const first = items[0];
  const image = first
    ? { url: first.previewUrl, status: first.previewUrl ? ('ready' as const) : first.processingStatus === 'failed' ? ('failed' as const) : ('processing' as const) }
    : imageState(row.imageFileId ? files.get(row.imageFileId) : undefined);
  return {
    _id: row.id,
    title: row.title,
    slug: row.slug,
    excerpt: row.excerpt,
    content: htmlToText(row.content),
    status: row.status,
    visibility: row.access,
    price: row.price,
    media: items,
    imageUrl: image.url,
    imageStatus: image.status,
    publishedAt: row.publishedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function excerptOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 199).trimEnd()}…` : flat;
}

/**
 * A post carries up to POST_MAX_IMAGES pictures or one video, not both. `kept` is what it keeps of its media; the
 * uploads are added after them (a new video replaces the old one).
 */
function checkPostMedia(kept: Array<{ kind: 'image' | 'video' }>, uploads: Uploads): { images: ReceivedFile[]; video: ReceivedFile | undefined } {
  const images = uploads.file ?? [];
  const video = uploads.video?.[0];
  if (images.length && video) throw invalid('video', 'A post carries pictures or one video, not both');
  const keptImages = kept.filter((m) => m.kind === 'image').length;
  const keptVideo = kept.some((m) => m.kind === 'video');
  if (images.length && keptVideo) throw invalid('file', 'This post has a video: remove it before adding pictures');
  if (video && keptImages) throw invalid('video', 'This post has pictures: remove them before adding a video');
  if (keptImages + images.length > POST_MAX_IMAGES) throw invalid('file', `A post carries at most ${POST_MAX_IMAGES} pictures (it has ${keptImages})`);
  return { images, video };
}

/** The `files` rows of a post's uploads (originals, private) and their post_media rows, after `start`. */
function postMediaRows(postId: string, ownerId: string, media: { images: ReceivedFile[]; video: ReceivedFile | undefined }, start: number, now: string) {
  const uploads = media.video ? [media.video] : media.images;
  const files = uploads.map((f) =>
    fileRow({ id: f.id, ownerId, kind: f.type.kind === 'video' ? 'video' : 'image', storageKey: f.storageKey, mime: f.type.mime, size: f.size, width: f.width, height: f.height, originalName: f.originalName, status: 'processing' }, now),
  );
  const rows = uploads.map((f, i) => ({
    id: newId(), postId, position: start + i, kind: (media.video ? 'video' : 'image') as 'image' | 'video', fileId: f.id, displayFileId: null, previewFileId: null, thumbFileId: null,
    processingStatus: 'processing' as const, width: f.width, height: f.height, duration: null, createdAt: now, updatedAt: now,
  }));
  return { files, rows };
}

async function enqueuePostMedia(deps: StudioDeps, trx: DbOrTrx, ids: string[]): Promise<void> {
  for (const mediaId of ids) await deps.jobs.enqueue<PostMediaJob>(trx, JOB_POST_MEDIA, { mediaId }, { subject: `post-media:${mediaId}` });
}

export async function createPost(deps: StudioDeps, actor: Actor, input: PostInput, uploads: Uploads): Promise<string> {
  if (!input.title) throw invalid('title', 'Title is required');
  if (!input.content) throw invalid('content', 'Content is required');
  const { access, price } = pricing(input.visibility ?? 'free', input.price);
  const media = checkPostMedia([], uploads);
  const now = nowIso();
  const id = newId();
  const drafts = await draftsOnly(deps, actor);
  const status = initialStatus(drafts, input.status, 'published', 'draft');
  const { files, rows } = postMediaRows(id, actor.id, media, 0, now);
  await deps.db.transaction().execute(async (trx) => {
    await withinQuota(trx, actor, drafts, 1);
    await insertFiles(trx, files);
    await repo.insertPost(trx, {
      id,
      authorId: actor.id,
      performerId: actor.id,
      type: 'post',
      title: input.title!,
      slug: uniqueSlug(input.title!, id),
      excerpt: input.excerpt ?? excerptOf(input.content!),
      content: textToHtml(input.content!),
      imageFileId: null,
      status,
      access,
      price,
      likeCount: 0,
      commentCount: 0,
      publishedAt: input.publishedAt ?? (status === 'published' ? now : null),
      createdAt: now,
      updatedAt: now,
    });
    await repo.insertPostMedia(trx, rows);
    await enqueuePostMedia(deps, trx, rows.map((r) => r.id));
  });
  if (rows.length) deps.jobs.wake();
  return id;
}

/**
 * Edits a post: its fields, its access (free ↔ locked redoes the public previews: when it locks, the sharp public
 * ones are withdrawn in the same transaction, as for galleries), pictures or a video added, media removed.
 */
export async function updatePost(deps: StudioDeps, actor: Actor, id: string, input: PostInput, uploads: Uploads): Promise<string> {
  const row = owned(await repo.getPost(deps.db, id), actor, 'Post');
  checkEdit(await draftsOnly(deps, actor), input.status, 'published');
  const { access, price } = pricing(input.visibility ?? row.access, input.price ?? (row.access === 'sale' ? row.price : undefined));
  const current = await repo.postMedia(deps.db, id);
  const unknown = (input.removeMedia ?? []).filter((m) => !current.some((c) => c.id === m));
  if (unknown.length) throw invalid('removeMedia', `Not media of this post: ${unknown.join(', ')}`);
  const removing = new Set(input.removeMedia ?? []);
  // A new video replaces the old one.
  if (uploads.video?.length) for (const m of current) if (m.kind === 'video') removing.add(m.id);
  const kept = current.filter((m) => !removing.has(m.id));
  const media = checkPostMedia(kept, uploads);
  const now = nowIso();
  const added = postMediaRows(id, row.performerId ?? actor.id, media, (current.at(-1)?.position ?? -1) + 1, now);
  const relock = (row.access === 'free') !== (access === 'free');
  const locking = row.access === 'free' && access !== 'free';
  let keys: string[] = [];
  await deps.db.transaction().execute(async (trx) => {
    const status = input.status ?? row.status;
    // The post row first: it is the lock post-media.process takes before swapping previews in.
    await repo.updatePost(trx, id, {
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.excerpt !== undefined ? { excerpt: input.excerpt } : {}),
      ...(input.content !== undefined ? { content: textToHtml(input.content) } : {}),
      ...(input.status !== undefined ? { status } : {}),
      ...(input.publishedAt !== undefined ? { publishedAt: input.publishedAt } : status === 'published' && !row.publishedAt ? { publishedAt: now } : {}),
      access,
      price,
    });
    const gone = current.filter((m) => removing.has(m.id));
    const goneFiles = await fileFamily(trx, gone.map((m) => m.fileId));
    await repo.deletePostMediaRows(trx, gone.map((m) => m.id));
    await deleteFileRows(trx, goneFiles.map((f) => f.id));
    keys = goneFiles.map((f) => f.storageKey);
    if (locking) {
      // What was public while the post was free (sharp previews, pictures in full) goes at once.
      const derived = (await childFiles(trx, kept.map((m) => m.fileId), ['preview', 'thumb', 'display'])).filter((f) => f.storageKey.startsWith('public/'));
      await clearPostMediaFiles(trx, kept.map((m) => m.id));
      await deleteFileRows(trx, derived.map((f) => f.id));
      await withdrawPreviews(deps, derived.map((f) => f.storageKey));
    }
    await insertFiles(trx, added.files);
    await repo.insertPostMedia(trx, added.rows);
    await enqueuePostMedia(deps, trx, [...(relock ? kept.map((m) => m.id) : []), ...added.rows.map((r) => r.id)]);
  });
  if (relock || added.rows.length) deps.jobs.wake();
  await deleteStored(deps, keys);
  return id;
}

/** Deletes a post and its media; one somebody bought is only hidden (as videos are). */
export async function deletePost(deps: StudioDeps, actor: Actor, id: string): Promise<void> {
  const row = owned(await repo.getPost(deps.db, id), actor, 'Post');
  let keys: string[] = [];
  await deps.db.transaction().execute(async (trx) => {
    if (await repo.hasEntitlements(trx, 'post', id)) {
      await repo.updatePost(trx, id, { status: 'hidden' });
      return;
    }
    const media = await repo.postMedia(trx, id);
    const files = await fileFamily(trx, [row.imageFileId, ...media.map((m) => m.fileId)]);
    await repo.deletePostRow(trx, id);
    await repo.clearLinks(trx, 'post', [id]);
    await deleteFileRows(trx, files.map((f) => f.id));
    keys = files.map((f) => f.storageKey);
  });
  await deleteStored(deps, keys);
}

// ---------------------------------------------------------------------------------------------------------------
// Performer profile.

export async function profileView(db: DbOrTrx, performerId: string): Promise<StudioProfile> {
  const row = await repo.getPerformerRow(db, performerId);
  if (!row) throw notFound('Performer');
  return {
    _id: row.id,
    username: row.username,
    name: row.displayName,
    bio: row.bio,
    monthlyPrice: row.monthlyPrice,
    yearlyPrice: row.yearlyPrice,
    blockedCountries: await repo.getBlockedCountries(db, performerId),
  };
}

export async function updateProfile(deps: StudioDeps, actor: Actor, input: ProfileInput): Promise<StudioProfile> {
  const current = await repo.getPerformerRow(deps.db, actor.id);
  if (!current) throw notFound('Performer');
  await deps.db.transaction().execute(async (trx) => {
    const changes = {
      ...(input.bio !== undefined ? { bio: input.bio } : {}),
      ...(input.monthlyPrice !== undefined ? { monthlyPrice: input.monthlyPrice } : {}),
      ...(input.yearlyPrice !== undefined ? { yearlyPrice: input.yearlyPrice } : {}),
    };
    if (Object.keys(changes).length) await repo.updatePerformerProfile(trx, actor.id, changes);
    if (input.blockedCountries !== undefined) await repo.setBlockedCountries(trx, actor.id, input.blockedCountries);
  });
  return profileView(deps.db, actor.id);
}

// ---------------------------------------------------------------------------------------------------------------
// Own listings (the studio's tables): every state, newest first.

/** A performer's own videos, galleries or posts as the studio shows them (an admin may name any performer). */
export async function listOwn<T>(
  db: DbOrTrx,
  actor: Actor,
  table: repo.OwnListTable,
  page: { limit: number; offset: number; performerId?: string },
  view: (db: DbOrTrx, id: string) => Promise<T>,
): Promise<{ items: T[]; total: number }> {
  const performerId = actor.role === 'admin' && page.performerId ? page.performerId : actor.id;
  const { ids, total } = await repo.listOwnIds(db, table, performerId, page);
  const items = await Promise.all(ids.map((id) => view(db, id)));
  return { items, total };
}
