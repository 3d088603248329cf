import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { Logger } from 'pino';
import type { Db, DbOrTrx } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import type { JobContext, JobHandler, JobQueue } from '../../jobs/queue.js';
import { PermanentJobError } from '../../jobs/queue.js';
import type { Storage } from '../storage.js';
import { extractPoster, FfmpegError, isContainerRefusal, makeTeaser, probeFile, type MediaInfo, type RunOptions } from '../ffmpeg.js';
import { teaserLimit } from '../teaser-rule.js';
import { makeThumbnail, type ImageResult } from '../images.js';
import { PRIVATE_THUMB_VARIANT, publicThumbIsBlurred } from '../photo-thumbs.js';
import type { VideoProcessing } from './config.js';
import { withLocalFile, withTempDir } from './local-file.js';
import { enqueueAnnouncement } from '../../follows/announce.js';
import {
  childFiles,
  deleteFileRows,
  fileRow,
  getFile,
  getGalleryRow,
  getPhotoRow,
  getPostMediaRow,
  getPostRow,
  getVideoRow,
  insertFiles,
  lockGalleryRow,
  lockPostRow,
  markFileFailed,
  markFileReady,
  setFileStatus,
  setPhotoProcessed,
  setPhotoProcessingStatus,
  setPostMediaProcessed,
  setPostMediaStatus,
  setVideoProcessed,
  setVideoProcessingStatus,
  swapImageFile,
  type NewFile,
} from './pipeline.repository.js';

/**
 * The processing jobs of uploaded media. Each is idempotent: it derives new files under new keys,
 * swaps them in with one transaction (only if the row still uses the same original) and deletes what
 * they replaced, so a retry or a second run never leaves a half-processed row.
 *
 * - `video.process` {videoId}: ffprobe (duration, size), poster frame (JPEG), thumbnail (WebP, from the
 *   performer's thumbnail when given, else the poster), teaser (H.264, scaled down; the performer's teaser
 *   clip when given, else the first seconds; cut to the limit of server/media/teaser-rule.ts, none for a short
 *   video). Video ready. ffmpeg opens the files contained (server/media/ffmpeg.ts, `containedInput`).
 * - `photo.process` {photoId}: WebP thumbnail, blurred when the gallery is not free and the photo is not
 *   its cover (the thumbnail is public, the paywall must not leak); a blurred one comes with a sharp private
 *   thumbnail for those who may open the photo (server/media/photo-thumbs.ts). Photo ready.
 * - `image.process` {fileId, target, id}: product or post picture to WebP, swapped in for the upload.
 * - `post-media.process` {mediaId}: a picture or the video of a performer's post. A picture gets a public preview
 *   (thumbnail, blurred while the post is locked) and the picture shown in full (public for a free post, private
 *   behind signed URLs otherwise); a video gets its duration and a public poster (blurred while locked), and is
 *   itself played from its private upload. Media ready.
 */

export const JOB_VIDEO = 'video.process';
export const JOB_PHOTO = 'photo.process';
export const JOB_IMAGE = 'image.process';
export const JOB_POST_MEDIA = 'post-media.process';

export interface VideoJob {
  videoId: string;
}
export interface PhotoJob {
  photoId: string;
}
export interface ImageJob {
  fileId: string;
  target: 'product' | 'post';
  id: string;
}

export interface PostMediaJob {
  mediaId: string;
}

export interface PipelineDeps {
  db: Db;
  storage: Storage;
  logger: Logger;
  video: VideoProcessing;
  /** Called once an item's processing is swapped in: the watermark's stamp follows (server/media/watermark/). */
  afterProcessed?: (objectType: 'video' | 'photo' | 'post_media', objectId: string) => Promise<void>;
}

export function registerMediaJobs(queue: JobQueue, deps: PipelineDeps): void {
  queue.register<VideoJob>(JOB_VIDEO, videoHandler(deps, queue));
  queue.register<PhotoJob>(JOB_PHOTO, photoHandler(deps));
  queue.register<ImageJob>(JOB_IMAGE, imageHandler(deps));
  queue.register<PostMediaJob>(JOB_POST_MEDIA, postMediaHandler(deps));
}

/**
 * Error messages end up in `files.error`, shown to the performer: ffmpeg's text without server paths or
 * demuxer addresses, e.g. "The video could not be processed: moov atom not found; Invalid data found...".
 */
async function mediaErrors<T>(paths: string[], fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof FfmpegError)) throw err;
    // Another attempt would refuse the same bytes again.
    if (isContainerRefusal(err)) throw new PermanentJobError('The video could not be processed: its format is not accepted (MP4, MOV, 3GP, WebM or MKV)');
    let text = err.message.replace(/^(ffmpeg|ffprobe) failed \(exit [^)]*\):\s*/, '');
    for (const p of paths) text = text.split(p).join('');
    text = text
      .replace(/\[[^\]]*@ 0x[0-9a-f]+\]\s*/gi, '')
      .replace(/(^|\s|\|)\/[^\s:|]+:?/g, '$1')
      .split('|')
      .map((part) => part.replace(/^[\s:]+|\s+$/g, ''))
      .filter(Boolean)
      .join('; ');
    throw new Error(`The video could not be processed: ${text || 'ffmpeg could not read it'}`);
  }
}

/** Even width no larger than the source (H.264 needs even sizes; never upscale). */
function targetWidth(source: number | null, max: number): number {
  const w = Math.min(max, source ?? max);
  return Math.max(2, w - (w % 2));
}

interface Output {
  row: NewFile;
}

/** Stores a local file or an encoded image under a new key and returns its `files` row (status ready). */
async function storeOutput(
  storage: Storage,
  input: { file: string } | { image: ImageResult },
  meta: { prefix: string; ext: string; kind: 'image' | 'video'; mime: string; ownerId: string | null; parentId: string; variant: string; width?: number | null; height?: number | null; duration?: number | null },
): Promise<Output> {
  const id = newId();
  const storageKey = `${meta.prefix}/${id}.${meta.ext}`;
  const { size } = 'file' in input ? await storage.put(storageKey, fs.createReadStream(input.file)) : await storage.put(storageKey, input.image.buffer);
  return {
    row: fileRow({
      id,
      ownerId: meta.ownerId,
      parentId: meta.parentId,
      variant: meta.variant,
      kind: meta.kind,
      storageKey,
      mime: meta.mime,
      size,
      width: meta.width ?? null,
      height: meta.height ?? null,
      duration: meta.duration ?? null,
      status: 'ready',
    }),
  };
}

async function deleteKeys(storage: Storage, keys: string[], logger: Logger): Promise<void> {
  await Promise.all(keys.map((k) => storage.delete(k).catch((err) => logger.warn({ err, key: k }, 'could not delete replaced media'))));
}

/**
 * Reads an uploaded video (refused without a video stream or a duration) and takes its poster, a frame at one second
 * at the most, into `dir` at the configured width (never wider than the video).
 */
async function probeWithPoster(input: string, dir: string, run: RunOptions, cfg: VideoProcessing) {
  const info = await probeFile(input, run);
  if (!info.hasVideo) throw new Error('The file has no video stream');
  if (!info.duration) throw new Error('The video has no readable duration');
  const posterFile = path.join(dir, 'poster.jpg');
  const posterWidth = targetWidth(info.width, cfg.posterWidth);
  await extractPoster(input, posterFile, Math.min(1, info.duration / 2), { ...run, width: posterWidth });
  return { info: { ...info, duration: info.duration }, posterFile, posterWidth }; // typed with its duration known
}

/**
 * Puts freshly stored outputs in the place of an original file's previous ones (its child files of `variants`), in
 * one transaction: unless `stillCurrent` finds the item unchanged since the job read it, nothing changes; else the
 * previous rows give way to the fresh ones and `record` writes the result. The fresh files are deleted unless the
 * swap was applied, the previous ones once it is done.
 */
async function swapOutputs(
  { db, storage, logger }: PipelineDeps,
  originalId: string,
  variants: string[],
  fresh: Output[],
  stillCurrent: (trx: DbOrTrx) => Promise<boolean>,
  record: (trx: DbOrTrx) => Promise<void>,
): Promise<void> {
  let replaced: string[] = [];
  let applied = false;
  try {
    await db.transaction().execute(async (trx) => {
      if (!(await stillCurrent(trx))) return;
      const previous = await childFiles(trx, [originalId], variants);
      // A replaced display picture takes its stamped copy with it (server/media/watermark/): made again after this.
      const old = [...previous, ...(await childFiles(trx, previous.map((f) => f.id), ['marked']))];
      await deleteFileRows(trx, old.map((f) => f.id));
      await insertFiles(trx, fresh.map((o) => o.row));
      await record(trx);
      replaced = old.map((f) => f.storageKey);
      applied = true;
    });
  } finally {
    if (!applied) await deleteKeys(storage, fresh.map((o) => o.row.storageKey), logger);
  }
  await deleteKeys(storage, replaced, logger);
}

function videoHandler(deps: PipelineDeps, queue: JobQueue): JobHandler<VideoJob> {
  const { db, storage, logger, video: cfg } = deps;
  return {
    async run({ videoId }, job: JobContext) {
      const video = await getVideoRow(db, videoId);
      if (!video?.fileId) return; // deleted meanwhile: nothing to do
      const original = await getFile(db, video.fileId);
      if (!original) throw new PermanentJobError('The uploaded video file is missing');
      const sources = await childFiles(db, [original.id], ['teaser-source', 'thumb-source']);
      const teaserSource = sources.find((f) => f.variant === 'teaser-source');
      const thumbSource = sources.find((f) => f.variant === 'thumb-source');
      const run: RunOptions = { signal: job.signal, timeoutMs: cfg.ffmpegTimeoutMs };
      const owner = original.ownerId;

      const outputs = await withTempDir((dir) =>
        withLocalFile(storage, original.storageKey, async (input) => mediaErrors([input, dir], async () => {
          const { info, posterFile, posterWidth } = await probeWithPoster(input, dir, run, cfg);

          // The teaser is public: never longer than the rule allows for this video, whatever the settings or the
          // performer's own clip say (server/media/teaser-rule.ts); none at all for a short video.
          const teaserFile = path.join(dir, 'teaser.mp4');
          const limit = teaserLimit(info.duration);
          let teaser: MediaInfo | null = null;
          if (limit !== null) {
            teaser = teaserSource
              ? await withLocalFile(storage, teaserSource.storageKey, async (src) => {
                  const t = await probeFile(src, run);
                  if (!t.hasVideo || !t.duration) throw new Error('The teaser file has no readable video');
                  return makeTeaser(src, teaserFile, Math.min(limit, cfg.teaserMaxSeconds, t.duration), { ...run, width: targetWidth(t.width, cfg.teaserWidth) });
                })
              : await makeTeaser(input, teaserFile, Math.min(limit, cfg.teaserSeconds), { ...run, width: targetWidth(info.width, cfg.teaserWidth) });
            // What ffmpeg wrote is measured, not trusted: a teaser over the limit is dropped, never published.
            if (teaser.duration === null || teaser.duration > limit + 0.001) {
              logger.warn({ videoId, limit, teaserDuration: teaser.duration }, 'teaser came out longer than allowed: dropped');
              teaser = null;
            }
          }

          const thumb = thumbSource
            ? await withLocalFile(storage, thumbSource.storageKey, (src) => makeThumbnail(src, 640, 360))
            : await makeThumbnail(posterFile, 640, 360);
          job.signal.throwIfAborted();

          const base = { ownerId: owner, parentId: original.id };
          const posterHeight = info.width && info.height ? Math.round((info.height * posterWidth) / info.width) : null;
          const poster = await storeOutput(storage, { file: posterFile }, { ...base, prefix: 'public/videos/posters', ext: 'jpg', kind: 'image', mime: 'image/jpeg', variant: 'poster', width: posterWidth, height: posterHeight });
          const thumbOut = await storeOutput(storage, { image: thumb }, { ...base, prefix: 'public/videos/thumbs', ext: thumb.ext, kind: 'image', mime: thumb.mime, variant: 'thumb', width: thumb.width, height: thumb.height });
          const teaserOut = teaser
            ? await storeOutput(storage, { file: teaserFile }, { ...base, prefix: 'public/videos/teasers', ext: 'mp4', kind: 'video', mime: 'video/mp4', variant: 'teaser', width: teaser.width, height: teaser.height, duration: teaser.duration })
            : null;
          return { info, poster, thumb: thumbOut, teaser: teaserOut };
        })),
      );

      const fresh = [outputs.poster, outputs.thumb, ...(outputs.teaser ? [outputs.teaser] : [])];
      await swapOutputs(
        deps,
        original.id,
        ['poster', 'thumb', 'teaser'],
        fresh,
        async (trx) => (await getVideoRow(trx, videoId))?.fileId === original.id,
        async (trx) => {
          await markFileReady(trx, original.id, { width: outputs.info.width, height: outputs.info.height, duration: outputs.info.duration });
          if (thumbSource) await setFileStatus(trx, thumbSource.id, 'ready');
          if (teaserSource) await setFileStatus(trx, teaserSource.id, 'ready');
          await setVideoProcessed(trx, videoId, { duration: outputs.info.duration!, teaserFileId: outputs.teaser?.row.id ?? null, thumbnailFileId: outputs.thumb.row.id });
          // Processed is the last step to public for a published video: its followers hear of it (once, whatever
          // processing again later does; server/follows/announce.ts), at its scheduled time if it has one.
          const now = await getVideoRow(trx, videoId);
          if (now?.status === 'active') await enqueueAnnouncement(queue, trx, { objectType: 'video', objectId: videoId, publicAt: now.publishedAt });
        },
      );
      queue.wake();
      await deps.afterProcessed?.('video', videoId);
    },
    async onFailed(trx, { videoId }, error) {
      const video = await getVideoRow(trx, videoId);
      if (!video) return;
      // A re-processing of a ready video (its previews were withdrawn when it was locked) keeps the video
      // playable: it stays ready, without previews, and the error stays in the job's history.
      if (video.processingStatus === 'ready') return;
      await setVideoProcessingStatus(trx, videoId, 'failed');
      if (video.fileId) await markFileFailed(trx, video.fileId, error);
    },
  };
}

function photoHandler(deps: PipelineDeps): JobHandler<PhotoJob> {
  const { db, storage, logger } = deps;
  return {
    async run({ photoId }, job) {
      const photo = await getPhotoRow(db, photoId);
      if (!photo?.fileId) return;
      const original = await getFile(db, photo.fileId);
      if (!original) throw new PermanentJobError('The uploaded photo file is missing');
      const gallery = photo.galleryId ? await getGalleryRow(db, photo.galleryId) : undefined;
      const blur = publicThumbIsBlurred(photo.id, gallery);

      const { thumb, sharpThumb, meta } = await withLocalFile(storage, original.storageKey, async (src) => {
        const meta = await sharp(src).metadata();
        if (!meta.width || !meta.height) throw new Error('The photo could not be read as an image');
        const sharpThumb = await makeThumbnail(src, 480, 480, { fit: 'inside' });
        const thumb = blur ? await makeThumbnail(src, 480, 480, { fit: 'inside', blur: 18 }) : sharpThumb;
        return { thumb, sharpThumb: blur ? sharpThumb : null, meta };
      });
      job.signal.throwIfAborted();
      const outputs: Output[] = [];
      try {
        outputs.push(await storeOutput(storage, { image: thumb }, {
          ownerId: original.ownerId, parentId: original.id, prefix: 'public/photos/thumbs', ext: thumb.ext, kind: 'image', mime: thumb.mime, variant: 'thumb', width: thumb.width, height: thumb.height,
        }));
        // The sharp picture of a blurred thumbnail is private: only signed URLs of the photo reach it.
        if (sharpThumb) {
          outputs.push(await storeOutput(storage, { image: sharpThumb }, {
            ownerId: original.ownerId, parentId: original.id, prefix: 'private/photos/thumbs', ext: sharpThumb.ext, kind: 'image', mime: sharpThumb.mime, variant: PRIVATE_THUMB_VARIANT, width: sharpThumb.width, height: sharpThumb.height,
          }));
        }
      } catch (err) {
        await deleteKeys(storage, outputs.map((o) => o.row.storageKey), logger);
        throw err;
      }
      const out = outputs[0]!;

      await swapOutputs(
        deps,
        original.id,
        ['thumb', PRIVATE_THUMB_VARIANT],
        outputs,
        async (trx) => {
          const current = await getPhotoRow(trx, photoId);
          if (!current || current.fileId !== original.id) return false;
          // The gallery may have been locked while this ran: a thumbnail made unblurred for a free gallery must not
          // be swapped in then. Locking the gallery row orders this against the access change (which updates it
          // first and enqueues a fresh job), so one of the two always sees the other's result.
          if (current.galleryId) {
            const latest = await lockGalleryRow(trx, current.galleryId);
            if (publicThumbIsBlurred(photoId, latest) !== blur) return false;
          }
          return true;
        },
        async (trx) => {
          // EXIF orientation 5-8 swaps the sides of the displayed picture.
          const rotated = (meta.orientation ?? 1) >= 5;
          await markFileReady(trx, original.id, { width: rotated ? meta.height : meta.width, height: rotated ? meta.width : meta.height });
          await setPhotoProcessed(trx, photoId, out.row.id);
        },
      );
      await deps.afterProcessed?.('photo', photoId);
    },
    async onFailed(trx, { photoId }, error) {
      const photo = await getPhotoRow(trx, photoId);
      if (!photo) return;
      // A re-thumbnail of a ready photo (gallery access changed) keeps the photo usable: its full file stays
      // ready (a failed file would no longer open for the people who may see it), only the thumbnail is missing.
      if (photo.processingStatus === 'ready') return;
      await setPhotoProcessingStatus(trx, photoId, 'failed');
      if (photo.fileId) await markFileFailed(trx, photo.fileId, error);
    },
  };
}

function imageHandler({ db, storage, logger }: PipelineDeps): JobHandler<ImageJob> {
  return {
    async run({ fileId, target, id }, job) {
      const source = await getFile(db, fileId);
      if (!source) return;
      const image = await withLocalFile(storage, source.storageKey, (src) =>
        target === 'product' ? makeThumbnail(src, 800, 800, { fit: 'inside' }) : makeThumbnail(src, 1200, 1200, { fit: 'inside' }),
      );
      job.signal.throwIfAborted();
      const out = await storeOutput(storage, { image }, {
        ownerId: source.ownerId, parentId: source.id, prefix: target === 'product' ? 'public/products' : 'public/posts', ext: image.ext, kind: 'image', mime: image.mime, variant: 'display', width: image.width, height: image.height,
      });
      let applied = false;
      try {
        await db.transaction().execute(async (trx) => {
          if (!(await swapImageFile(trx, target, id, fileId, out.row.id))) return;
          await insertFiles(trx, [out.row]);
          await markFileReady(trx, fileId, { width: source.width, height: source.height });
          applied = true;
        });
      } finally {
        if (!applied) await deleteKeys(storage, [out.row.storageKey], logger);
      }
    },
    async onFailed(trx, { fileId }, error) {
      await markFileFailed(trx, fileId, error);
    },
  };
}

/** A square box no larger than the picture's longer side: `fit: 'inside'` then never enlarges it. */
const boxOf = (width: number, height: number, max: number) => Math.max(1, Math.min(max, Math.max(width, height)));

function postMediaHandler(deps: PipelineDeps): JobHandler<PostMediaJob> {
  const { db, storage, video: cfg } = deps;
  return {
    async run({ mediaId }, job) {
      const media = await getPostMediaRow(db, mediaId);
      if (!media) return; // deleted meanwhile
      const post = await getPostRow(db, media.postId);
      if (!post) return;
      const original = await getFile(db, media.fileId);
      if (!original) throw new PermanentJobError('The uploaded file is missing');
      // What is public must not give a locked post away: previews are blurred, and the full picture stays private.
      const locked = post.access !== 'free';
      const base = { ownerId: original.ownerId, parentId: original.id };

      let fresh: Output[];
      let values: { previewFileId: string | null; thumbFileId: string | null; displayFileId: string | null; width: number | null; height: number | null; duration: number | null };
      const store = (image: ImageResult, variant: 'preview' | 'thumb' | 'display', isPublic: boolean) =>
        storeOutput(storage, { image }, {
          ...base, prefix: isPublic ? `public/posts/${variant}s` : `private/posts/${variant}s`, ext: image.ext, kind: 'image', mime: image.mime, variant, width: image.width, height: image.height,
        });
      if (media.kind === 'image') {
        const made = await withLocalFile(storage, original.storageKey, async (src) => {
          const meta = await sharp(src).metadata();
          if (!meta.width || !meta.height) throw new PermanentJobError('The picture could not be read as an image');
          // EXIF orientation 5-8 swaps the sides of the displayed picture.
          const rotated = (meta.orientation ?? 1) >= 5;
          const [width, height] = rotated ? [meta.height, meta.width] : [meta.width, meta.height];
          const small = boxOf(width, height, 480);
          const preview = await makeThumbnail(src, small, small, { fit: 'inside', ...(locked ? { blur: 18 } : {}) });
          const thumb = locked ? await makeThumbnail(src, small, small, { fit: 'inside' }) : null;
          const large = boxOf(width, height, 1600);
          const display = await makeThumbnail(src, large, large, { fit: 'inside', quality: 85 });
          return { width, height, preview, thumb, display };
        });
        job.signal.throwIfAborted();
        const preview = await store(made.preview, 'preview', true);
        const thumb = made.thumb ? await store(made.thumb, 'thumb', false) : null;
        const display = await store(made.display, 'display', !locked);
        fresh = [preview, ...(thumb ? [thumb] : []), display];
        values = { previewFileId: preview.row.id, thumbFileId: thumb?.row.id ?? null, displayFileId: display.row.id, width: made.width, height: made.height, duration: null };
      } else {
        const run: RunOptions = { signal: job.signal, timeoutMs: cfg.ffmpegTimeoutMs };
        const made = await withTempDir((dir) =>
          withLocalFile(storage, original.storageKey, async (input) => mediaErrors([input, dir], async () => {
            const { info, posterFile, posterWidth } = await probeWithPoster(input, dir, run, cfg);
            const preview = await makeThumbnail(posterFile, posterWidth, posterWidth, { fit: 'inside', ...(locked ? { blur: 18 } : {}) });
            const thumb = locked ? await makeThumbnail(posterFile, posterWidth, posterWidth, { fit: 'inside' }) : null;
            return { info, preview, thumb };
          })),
        );
        job.signal.throwIfAborted();
        const preview = await store(made.preview, 'preview', true);
        const thumb = made.thumb ? await store(made.thumb, 'thumb', false) : null;
        fresh = [preview, ...(thumb ? [thumb] : [])];
        values = { previewFileId: preview.row.id, thumbFileId: thumb?.row.id ?? null, displayFileId: null, width: made.info.width, height: made.info.height, duration: made.info.duration };
      }

      await swapOutputs(
        deps,
        original.id,
        ['preview', 'thumb', 'display'],
        fresh,
        async (trx) => {
          // The post row first: a change of access locks it before withdrawing previews and queueing a fresh job, so
          // one of the two always sees the other's result (as photo.process does with the gallery).
          const latest = await lockPostRow(trx, media.postId);
          const current = await getPostMediaRow(trx, mediaId);
          if (!latest || !current || current.fileId !== original.id) return false;
          return (latest.access !== 'free') === locked;
        },
        async (trx) => {
          await markFileReady(trx, original.id, { width: values.width, height: values.height, duration: values.duration });
          await setPostMediaProcessed(trx, mediaId, values);
        },
      );
      await deps.afterProcessed?.('post_media', mediaId);
    },
    async onFailed(trx, { mediaId }, error) {
      const media = await getPostMediaRow(trx, mediaId);
      if (!media) return;
      // A re-processing after the post's access changed keeps the media usable: only its previews are missing.
      if (media.processingStatus === 'ready') return;
      await setPostMediaStatus(trx, mediaId, 'failed');
      await markFileFailed(trx, media.fileId, error);
    },
  };
}
