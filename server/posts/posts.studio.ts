import { POST_MAX_IMAGES } from '../../common/limits.js';
import { newId, nowIso } from '../db/ids.js';
import type { DbOrTrx } from '../db/database.js';
import { notFound } from '../http/errors.js';
import { publicMediaUrl } from '../media/storage.js';
import type { ReceivedFile } from '../media/pipeline/upload.js';
import { JOB_POST_MEDIA, type PostMediaJob } from '../media/pipeline/processors.js';
import { childFiles, clearPostMediaFiles, deleteFileRows, fileRow, getFiles, insertFiles } from '../media/pipeline/pipeline.repository.js';
import { invalid, owned, type Actor, type StudioDeps, type Uploads } from '../studio/deps.js';
import { checkEdit, checkNotHiddenByAdmin, draftsOnly, initialStatus, withinQuota } from '../studio/approval.js';
import { pricing, uniqueSlug } from '../studio/item-fields.js';
import { deleteStored, fileFamily, imageState, removeItem, withdrawPreviews } from '../studio/stored-files.js';
import * as repo from '../studio/studio.repository.js';
import type { PostInput, StudioPost, StudioPostMedia } from '../../common/schemas/studio.js';
import { htmlToText, textToHtml } from './post-text.js';
import { enqueueAnnouncement } from '../follows/announce.js';
import { assertPublishable } from '../consent/consent.service.js';

/**
 * The performer studio's posts (server/studio/studio.routes.ts): text with up to POST_MAX_IMAGES pictures or one
 * video, free, for subscribers or for sale; its media are processed by jobs (previews blurred while it is locked).
 */

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
  const publishedAt = input.publishedAt ?? (status === 'published' ? now : null);
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
      publishedAt,
      createdAt: now,
      updatedAt: now,
    });
    await repo.insertPostMedia(trx, rows);
    await enqueuePostMedia(deps, trx, rows.map((r) => r.id));
    if (status === 'published') await enqueueAnnouncement(deps.jobs, trx, { objectType: 'post', objectId: id, publicAt: publishedAt });
  });
  deps.jobs.wake();
  return id;
}

/**
 * Edits a post: its fields, its access (free ↔ locked redoes the public previews: when it locks, the sharp public
 * ones are withdrawn in the same transaction, as for galleries), pictures or a video added, media removed.
 */
export async function updatePost(deps: StudioDeps, actor: Actor, id: string, input: PostInput, uploads: Uploads): Promise<string> {
  const row = owned(await repo.getPost(deps.db, id), actor, 'Post');
  checkEdit(await draftsOnly(deps, actor), input.status, 'published');
  checkNotHiddenByAdmin(actor, row.status, input.status);
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
    // Published or scheduled only once everyone named in it confirmed (checked after the row's write, which locks it).
    if (status === 'published' && (input.status !== undefined || input.publishedAt !== undefined)) await assertPublishable(trx, 'post', id);
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
    // A draft published now, or a post's time moved: the job announces it once it is public (and only once).
    if (status === 'published') {
      await enqueueAnnouncement(deps.jobs, trx, { objectType: 'post', objectId: id, publicAt: input.publishedAt !== undefined ? input.publishedAt : (row.publishedAt ?? now) });
    }
  });
  deps.jobs.wake();
  await deleteStored(deps, keys);
  return id;
}

/** Deletes a post and its media; one somebody bought is only hidden (as videos are). */
export async function deletePost(deps: StudioDeps, actor: Actor, id: string): Promise<void> {
  const row = owned(await repo.getPost(deps.db, id), actor, 'Post');
  await removeItem(deps, {
    paidFor: (trx) => repo.hasEntitlements(trx, 'post', id),
    hide: (trx) => repo.updatePost(trx, id, { status: 'hidden' }),
    files: async (trx) => [row.imageFileId, ...(await repo.postMedia(trx, id)).map((m) => m.fileId)],
    async remove(trx) {
      await repo.deletePostRow(trx, id);
      await repo.clearLinks(trx, 'post', [id]);
    },
  });
}
