import { nowIso } from '../db/ids.js';
import type { DbOrTrx } from '../db/database.js';
import { conflict, notFound } from '../http/errors.js';
import { findJobsBySubject } from '../jobs/jobs.repository.js';
import { publicMediaUrl } from '../media/storage.js';
import { JOB_VIDEO, type VideoJob } from '../media/pipeline/processors.js';
import { childFiles, clearVideoPreviews, deleteFileRows, fileRow, getFiles, insertFiles, setFileStatus, type FileRow } from '../media/pipeline/pipeline.repository.js';
import { invalid, owned, type Actor, type StudioDeps, type Uploads } from '../studio/deps.js';
import { checkEdit, checkNotHiddenByAdmin, draftsOnly, withinQuota } from '../studio/approval.js';
import { checkCategories, linkNewItem, pricing, relinkItem, saleItemView, schedule, sentFields, startCreate } from '../studio/item-fields.js';
import { previewFiles, removeItem, withdrawPreviews } from '../studio/stored-files.js';
import * as repo from '../studio/studio.repository.js';
import type { StudioVideo, VideoInput } from '../../common/schemas/studio.js';
import { enqueueAnnouncement } from '../follows/announce.js';
import { assertPublishable } from '../consent/consent.service.js';

/**
 * The performer studio's videos (server/studio/studio.routes.ts): upload, edit, delete, process again. The upload is
 * kept at once and processed by a job (poster, thumbnail, teaser, duration).
 */

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
    ...saleItemView(row),
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
  const { drafts, now, id, tags, columns } = await startCreate(deps, actor, 'video', input);
  const when = schedule(input.scheduledAt, now, null);
  const teaser = uploads.teaser?.[0];
  const thumb = uploads.thumbnail?.[0];
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
      ...columns(input.title!, input.description),
      title: input.title!,
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
    });
    await linkNewItem(trx, 'video', id, actor.id, { tags, categoryIds: input.categoryIds });
    await deps.jobs.enqueue<VideoJob>(trx, JOB_VIDEO, { videoId: id }, { subject: `video:${id}` });
  });
  deps.jobs.wake();
  return id;
}

export async function updateVideo(deps: StudioDeps, actor: Actor, id: string, input: VideoInput): Promise<StudioVideo> {
  const row = owned(await repo.getVideo(deps.db, id), actor, 'Video');
  const { access, isSale, price } = pricing(input.visibility ?? row.access, input.price ?? (row.access === 'sale' ? row.price : undefined));
  checkEdit(await draftsOnly(deps, actor), input.status, 'active', input.scheduledAt);
  checkNotHiddenByAdmin(actor, row.status, input.status);
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
    await repo.updateVideo(trx, id, { ...sentFields(input, ['title', 'description', 'status']), ...(when ?? {}), access, isSale, price });
    await relinkItem(trx, 'video', id, input);
    // Published or scheduled only once everyone named in it confirmed (checked after the row's write, which locks it).
    if ((input.status ?? row.status) === 'active' && (input.status !== undefined || input.scheduledAt !== undefined)) await assertPublishable(trx, 'video', id);
    // A draft made active or a schedule moved: announced once public (a video still processing is announced when its
    // processing finishes instead).
    if ((input.status ?? row.status) === 'active' && row.processingStatus === 'ready') {
      await enqueueAnnouncement(deps.jobs, trx, { objectType: 'video', objectId: id, publicAt: when?.publishedAt ?? row.publishedAt });
    }
  });
  deps.jobs.wake();
  return videoView(deps.db, id);
}

/** A video's public previews: poster, thumbnail and teaser (not the performer's private source clips). */
function videoPreviewFiles(db: DbOrTrx, row: { fileId: string | null; thumbnailFileId: string | null; teaserFileId: string | null }): Promise<FileRow[]> {
  return previewFiles(db, [row.thumbnailFileId, row.teaserFileId], row.fileId ? [row.fileId] : [], ['poster', 'thumb', 'teaser']);
}

/** Deletes a video and its files; one somebody bought is only hidden (status inactive), so buyers keep it. */
export async function deleteVideo(deps: StudioDeps, actor: Actor, id: string): Promise<void> {
  const row = owned(await repo.getVideo(deps.db, id), actor, 'Video');
  await removeItem(deps, {
    paidFor: (trx) => repo.hasEntitlements(trx, 'video', id),
    hide: (trx) => repo.updateVideo(trx, id, { status: 'inactive' }),
    files: async () => [row.fileId, row.teaserFileId, row.thumbnailFileId],
    async remove(trx) {
      await repo.deleteVideoRow(trx, id);
      await repo.clearLinks(trx, 'video', [id]);
      await repo.bumpPerformerCounter(trx, row.performerId, 'videoCount', -1);
    },
  });
}

/** Processes a failed video again (a new job with fresh attempts); 409 unless it failed. */
export async function retryVideo(deps: StudioDeps, actor: Actor, id: string): Promise<StudioVideo> {
  const row = owned(await repo.getVideo(deps.db, id), actor, 'Video');
  if (!row.fileId) throw conflict('This video has no file to process');
  await deps.db.transaction().execute(async (trx) => {
    if (!(await repo.claimVideoRetry(trx, id))) {
      throw conflict(row.processingStatus === 'ready' ? 'This video is already processed' : 'This video is already being processed');
    }
    await setFileStatus(trx, row.fileId!, 'processing');
    await deps.jobs.enqueue<VideoJob>(trx, JOB_VIDEO, { videoId: id }, { subject: `video:${id}` });
  });
  deps.jobs.wake();
  return videoView(deps.db, id);
}
