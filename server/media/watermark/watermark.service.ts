import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Db, DbOrTrx } from '../../db/database.js';
import { newId, nowIso } from '../../db/ids.js';
import type { JobContext, JobQueue } from '../../jobs/queue.js';
import { PermanentJobError } from '../../jobs/queue.js';
import type { Storage } from '../storage.js';
import { extractPoster, overlayMark, probeFile, type RunOptions } from '../ffmpeg.js';
import type { VideoProcessing } from '../pipeline/config.js';
import { withLocalFile, withTempDir } from '../pipeline/local-file.js';
import { childFiles, deleteFileRows, fileRow, getFile, insertFiles, type FileRow, type NewFile } from '../pipeline/pipeline.repository.js';
import type { SettingKey, SettingValue } from '../../settings/settings.defaults.js';
import { WATERMARK_POSITIONS, type WatermarkPosition } from '../../../common/enums.js';
import { MARKED_VARIANT } from './variant.js';
import { markOffset, markSignature, markText, renderMark, stampImage, type MarkSettings } from './mark.js';
import {
  advanceRun, countMarkItems, findRun, finishRun, finishRunItem, insertRun, insertRunItems, lockRun, MARK_OBJECT_TYPES, markItemIds, markItemOf, markItemUnchanged,
  markRunPaged, recentRuns, runItemCounts, runningRuns, supersedeRuns, type MarkItem, type MarkObjectType, type WatermarkRunRow,
} from './watermark.repository.js';

/**
 * Watermarks (docs/product.md, Watermarks; README.md beside this file).
 *
 * What is stamped, and where the stamp lives, so that the clean originals are always kept:
 * - a video's full file, a photo's full file, a post's video: a `files` row of variant `marked`, a child of the
 *   original upload (which stays as it was), stored private. The signed URL keeps naming the original; the protected
 *   media route serves its `marked` child when there is one (server/access/access.repository.ts), so URLs already in
 *   pages keep working across a re-stamp and across turning the mark off;
 * - a post's picture: a `marked` child of its display picture (public for a free post, private otherwise);
 * - a video's poster: made again from the original and stamped, in place of the clean one (public, a new key).
 * Thumbnails, teasers and previews are never stamped. `files.watermark` records the mark a file carries, so an item
 * that already carries the mark the settings want is skipped.
 *
 * Jobs: `watermark.page` {runId} walks the catalogue a page at a time (videos, photos, posts' media, each by id),
 * adding the page's items to the run and a `watermark.item` job each, and enqueues itself again, waiting while a page
 * is still queued; `watermark.item` {objectType, objectId, runId?} stamps (or cleans) one item from its original and
 * swaps the files in one transaction; `watermark.cleanup` {keys} deletes the replaced files once the signed URLs that
 * may still name them have expired. New uploads get a `watermark.item` without a run after processing.
 */

export const JOB_WATERMARK_PAGE = 'watermark.page';
export const JOB_WATERMARK_ITEM = 'watermark.item';
export const JOB_WATERMARK_CLEANUP = 'watermark.cleanup';
export { MARKED_VARIANT };

export interface WatermarkPageJob {
  runId: string;
}
export interface WatermarkItemJob {
  objectType: MarkObjectType;
  objectId: string;
  runId?: string;
}
export interface WatermarkCleanupJob {
  keys: string[];
}

export interface WatermarkDeps {
  db: Db;
  storage: Storage;
  logger: Logger;
  jobs: JobQueue;
  settings: { get<K extends SettingKey>(key: K): Promise<SettingValue<K>> };
  publicUrl: string;
  video: VideoProcessing;
  /** Items added to a run per page (and the most of a run's items queued at once). */
  pageSize?: number;
  /** How long replaced files stay in storage: the life of a signed URL, so a page already served keeps working. */
  keepReplacedMs: number;
}

const PAGE_SIZE = 100;
const PAGE_WAIT_MS = 1000;

export async function markSettings(settings: WatermarkDeps['settings']): Promise<MarkSettings> {
  const position = String(await settings.get('watermarkPosition'));
  return {
    enabled: Boolean(await settings.get('watermarkEnabled')),
    position: (WATERMARK_POSITIONS as readonly string[]).includes(position) ? (position as WatermarkPosition) : 'bottom-right',
    opacity: Number(await settings.get('watermarkOpacity')) || 60,
  };
}

const settingsOfRun = (r: WatermarkRunRow): MarkSettings => ({ enabled: Number(r.enabled) === 1, position: r.position as WatermarkPosition, opacity: Number(r.opacity) });
const sameSettings = (a: MarkSettings, b: MarkSettings) => a.enabled === b.enabled && (!a.enabled || (a.position === b.position && a.opacity === b.opacity));

// -- runs --------------------------------------------------------------------------------------------------------

export interface RunView {
  _id: string;
  status: WatermarkRunRow['status'];
  enabled: boolean;
  position: WatermarkPosition;
  opacity: number;
  total: number;
  done: number;
  failed: number;
  queued: number;
  paged: boolean;
  startedAt: string;
  finishedAt: string | null;
}

async function views(db: DbOrTrx, rows: WatermarkRunRow[]): Promise<RunView[]> {
  const counts = await runItemCounts(db, rows.map((r) => r.id));
  return rows.map((r) => {
    const c = counts.get(r.id)!;
    const paged = Number(r.paged) === 1;
    return {
      _id: r.id, status: r.status, enabled: Number(r.enabled) === 1, position: r.position as WatermarkPosition, opacity: Number(r.opacity),
      // Until the walk ends, the total is the catalogue's size when the run started.
      total: paged ? Number(r.total) : Math.max(Number(r.total), c.queued + c.done + c.failed),
      done: c.done, failed: c.failed, queued: c.queued, paged, startedAt: r.startedAt, finishedAt: r.finishedAt,
    };
  });
}

export async function watermarkRuns(db: DbOrTrx, limit = 10): Promise<RunView[]> {
  return views(db, await recentRuns(db, limit));
}

export async function watermarkRun(db: DbOrTrx, id: string): Promise<RunView | undefined> {
  const row = await findRun(db, id);
  return row ? (await views(db, [row]))[0] : undefined;
}

/**
 * Starts a run applying the current settings to the whole catalogue, in the caller's transaction (the settings'
 * change, audited). A run already running with the same settings is answered instead (`started: false`): a second
 * click does nothing twice. A running one with other settings is superseded: its queued items are skipped, the new
 * run walks everything again (items already carrying the wanted mark are skipped, never stamped twice).
 */
export async function startWatermarkRun(deps: Pick<WatermarkDeps, 'jobs'>, trx: DbOrTrx, wanted: MarkSettings, startedBy: string | null): Promise<{ runId: string; started: boolean }> {
  const running = await runningRuns(trx);
  const same = running.find((r) => sameSettings(settingsOfRun(r), wanted));
  if (same) return { runId: same.id, started: false };
  const at = nowIso();
  await supersedeRuns(trx, running.map((r) => r.id), at);
  const id = newId();
  await insertRun(trx, { id, enabled: wanted.enabled, position: wanted.position, opacity: Math.round(wanted.opacity), total: await countMarkItems(trx), startedBy, startedAt: at });
  await deps.jobs.enqueue(trx, JOB_WATERMARK_PAGE, { runId: id } satisfies WatermarkPageJob, { subject: `watermark-run:${id}` });
  return { runId: id, started: true };
}

/** Whether a settings change calls for a run: any change while the mark is or was on. */
export function changeNeedsRun(before: MarkSettings, after: MarkSettings): boolean {
  return (before.enabled || after.enabled) && !sameSettings(before, after);
}

/** Counts a run's item as done or failed (once) and ends the run when it was the last one. */
async function completeRunItem(trx: DbOrTrx, runId: string, objectType: MarkObjectType, objectId: string, status: 'done' | 'failed', error: string | null = null): Promise<void> {
  const run = await lockRun(trx, runId);
  if (!run) return;
  if (!(await finishRunItem(trx, runId, objectType, objectId, status, error))) return;
  await endRunIfComplete(trx, run);
}

async function endRunIfComplete(trx: DbOrTrx, run: WatermarkRunRow): Promise<void> {
  if (run.status !== 'running' || Number(run.paged) !== 1) return;
  const counts = (await runItemCounts(trx, [run.id])).get(run.id)!;
  if (counts.queued === 0) await finishRun(trx, run.id, nowIso());
}

async function runPage(deps: WatermarkDeps, { runId }: WatermarkPageJob): Promise<void> {
  const { db, jobs } = deps;
  const size = deps.pageSize ?? PAGE_SIZE;
  const run = await findRun(db, runId);
  if (!run || run.status !== 'running' || Number(run.paged) === 1) return;
  // Never more than a page of a run waiting in the queue: the next page waits for the worker to catch up.
  const queued = (await runItemCounts(db, [runId])).get(runId)!.queued;
  if (queued >= size) {
    await jobs.enqueue(db, JOB_WATERMARK_PAGE, { runId }, { subject: `watermark-run:${runId}`, runAt: new Date(Date.now() + PAGE_WAIT_MS) });
    return;
  }
  let typeIndex = Math.max(0, MARK_OBJECT_TYPES.indexOf((run.cursorType || 'video') as MarkObjectType));
  let after = run.cursorId;
  for (; typeIndex < MARK_OBJECT_TYPES.length; typeIndex++, after = '') {
    const objectType = MARK_OBJECT_TYPES[typeIndex]!;
    const ids = await markItemIds(db, objectType, after, size);
    if (!ids.length) continue;
    await db.transaction().execute(async (trx) => {
      const current = await lockRun(trx, runId);
      if (current?.status !== 'running') return;
      await insertRunItems(trx, runId, objectType, ids);
      for (const objectId of ids) await jobs.enqueue(trx, JOB_WATERMARK_ITEM, { objectType, objectId, runId } satisfies WatermarkItemJob, { subject: `watermark-run:${runId}` });
      await advanceRun(trx, runId, { type: objectType, id: ids.at(-1)! });
      await jobs.enqueue(trx, JOB_WATERMARK_PAGE, { runId }, { subject: `watermark-run:${runId}` });
    });
    jobs.wake();
    return;
  }
  await db.transaction().execute(async (trx) => {
    const current = await lockRun(trx, runId);
    if (current?.status !== 'running') return;
    await markRunPaged(trx, runId);
    await endRunIfComplete(trx, (await findRun(trx, runId))!);
  });
}

// -- one item ----------------------------------------------------------------------------------------------------

/** Enqueues the stamp of a freshly processed item when watermarks are on (the pipeline calls it after its swap). */
export async function watermarkAfterProcessing(deps: Pick<WatermarkDeps, 'jobs' | 'db' | 'settings'>, objectType: MarkObjectType, objectId: string): Promise<void> {
  if (!(await deps.settings.get('watermarkEnabled'))) return;
  await deps.jobs.enqueue(deps.db, JOB_WATERMARK_ITEM, { objectType, objectId } satisfies WatermarkItemJob, { subject: `${objectType}:${objectId}` });
}

const evenWidth = (source: number | null, max: number) => {
  const w = Math.min(max, source ?? max);
  return Math.max(2, w - (w % 2));
};

async function put(storage: Storage, prefix: string, ext: string, body: Buffer | string, meta: Omit<Parameters<typeof fileRow>[0], 'id' | 'storageKey' | 'size' | 'status'>, watermark: string | null): Promise<NewFile> {
  const id = newId();
  const storageKey = `${prefix}/${id}.${ext}`;
  const { size } = await storage.put(storageKey, typeof body === 'string' ? await fsp.readFile(body) : body);
  return { ...fileRow({ ...meta, id, storageKey, size, status: 'ready' }), watermark };
}

/**
 * Brings one item to the wanted mark: stamps a fresh copy from its clean source (or, when the mark is off, takes the
 * stamped copy away), then swaps files in one transaction that also runs `done` (the run's progress). Skips the work
 * when the item already carries the wanted mark. The replaced files are deleted later (`watermark.cleanup`).
 */
export async function stampItem(deps: WatermarkDeps, objectType: MarkObjectType, objectId: string, wanted: MarkSettings, signal: AbortSignal, done: (trx: DbOrTrx) => Promise<void>): Promise<'stamped' | 'skipped'> {
  const { db, storage, video: cfg } = deps;
  const item = await markItemOf(db, objectType, objectId);
  const finishOnly = async () => {
    await db.transaction().execute(done);
    return 'skipped' as const;
  };
  if (!item) return finishOnly(); // deleted or not processed: its own processing will ask for its stamp
  const text = markText(deps.publicUrl, item.username);
  const sig = markSignature(wanted, text);
  const sourceId = item.objectType === 'post_media' && item.kind === 'image' ? item.displayFileId : item.fileId;
  if (!sourceId) return finishOnly();
  const source = await getFile(db, sourceId);
  if (!source) throw new PermanentJobError('The file to stamp is missing');
  const marked = await childFiles(db, [sourceId], [MARKED_VARIANT]);
  const posters = item.objectType === 'video' ? await childFiles(db, [item.fileId], ['poster']) : [];
  const markedOk = sig ? marked.length === 1 && marked[0]!.watermark === sig : marked.length === 0;
  const postersOk = posters.every((p) => (p.watermark ?? null) === sig);
  if (markedOk && postersOk) return finishOnly();

  const fresh: NewFile[] = [];
  const owner = { ownerId: source.ownerId, parentId: source.id, variant: MARKED_VARIANT };
  const run: RunOptions = { signal, timeoutMs: cfg.ffmpegTimeoutMs };
  try {
    if (!markedOk && sig) {
      if (item.kind === 'image') {
        const isPublic = source.storageKey.startsWith('public/');
        const format = source.mime === 'image/webp' ? 'webp' : 'jpeg';
        const image = await withLocalFile(storage, source.storageKey, (src) => stampImage(src, text, wanted, format));
        const prefix = `${isPublic ? 'public' : 'private'}/${item.objectType === 'photo' ? 'photos' : 'posts'}/marked`;
        fresh.push(await put(storage, prefix, image.ext, image.buffer, { ...owner, kind: 'image', mime: image.mime, width: image.width, height: image.height }, sig));
      } else {
        const out = await withTempDir((dir) =>
          withLocalFile(storage, source.storageKey, async (input) => {
            const info = await probeFile(input, run);
            if (!info.hasVideo || !info.width || !info.height) throw new PermanentJobError('The video has no readable picture');
            const mark = await renderMark(text, info.width, wanted.opacity);
            const markFile = path.join(dir, 'mark.png');
            await fsp.writeFile(markFile, mark.png);
            const outFile = path.join(dir, 'marked.mp4');
            const made = await overlayMark(input, markFile, outFile, { ...run, ...markOffset(wanted.position, { width: info.width, height: info.height }, mark) });
            signal.throwIfAborted();
            const prefix = item.objectType === 'video' ? 'private/videos/marked' : 'private/posts/marked';
            return put(storage, prefix, 'mp4', outFile, { ...owner, kind: 'video', mime: 'video/mp4', width: made.width, height: made.height, duration: made.duration }, sig);
          }),
        );
        fresh.push(out);
      }
    }
    if (!postersOk) {
      // The poster is made again from the original (never from a stamped one), then stamped when the mark is on.
      const poster = await withTempDir((dir) =>
        withLocalFile(storage, source.storageKey, async (input) => {
          const file = path.join(dir, 'poster.jpg');
          const width = evenWidth(source.width, cfg.posterWidth);
          await extractPoster(input, file, Math.min(1, (source.duration ?? 2) / 2), { ...run, width });
          const image = sig ? await stampImage(file, text, wanted, 'jpeg', 85) : null;
          const height = source.width && source.height ? Math.round((source.height * width) / source.width) : null;
          return put(storage, 'public/videos/posters', 'jpg', image ? image.buffer : file,
            { ownerId: source.ownerId, parentId: source.id, variant: 'poster', kind: 'image', mime: 'image/jpeg', width: image?.width ?? width, height: image?.height ?? height }, sig);
        }),
      );
      fresh.push(poster);
    }
  } catch (err) {
    await deleteKeys(deps, fresh.map((f) => f.storageKey));
    throw err;
  }

  let replaced: FileRow[] = [];
  let applied = false;
  try {
    await db.transaction().execute(async (trx) => {
      if (!(await markItemUnchanged(trx, item))) return;
      replaced = [
        ...(markedOk ? [] : await childFiles(trx, [sourceId], [MARKED_VARIANT])),
        ...(postersOk ? [] : await childFiles(trx, [item.fileId], ['poster'])),
      ];
      await deleteFileRows(trx, replaced.map((f) => f.id));
      await insertFiles(trx, fresh);
      await done(trx);
      applied = true;
    });
  } finally {
    if (!applied) await deleteKeys(deps, fresh.map((f) => f.storageKey));
  }
  if (!applied) return finishOnly(); // the item changed meanwhile: its processing asks for a fresh stamp
  await deleteLater(deps, replaced.map((f) => f.storageKey));
  return 'stamped';
}

async function deleteKeys({ storage, logger }: Pick<WatermarkDeps, 'storage' | 'logger'>, keys: string[]): Promise<void> {
  await Promise.all(keys.map((k) => storage.delete(k).catch((err) => logger.warn({ err, key: k }, 'could not delete a replaced file'))));
}

/** Replaced files stay until every signed URL that may name them expired, so pages already served keep working. */
async function deleteLater(deps: WatermarkDeps, keys: string[]): Promise<void> {
  if (!keys.length) return;
  await deps.jobs.enqueue(deps.db, JOB_WATERMARK_CLEANUP, { keys } satisfies WatermarkCleanupJob, { runAt: new Date(Date.now() + deps.keepReplacedMs) });
}

export function registerWatermarkJobs(queue: JobQueue, deps: WatermarkDeps): void {
  queue.register<WatermarkPageJob>(JOB_WATERMARK_PAGE, { run: (payload) => runPage(deps, payload) });
  queue.register<WatermarkItemJob>(JOB_WATERMARK_ITEM, {
    async run({ objectType, objectId, runId }, job: JobContext) {
      let wanted: MarkSettings;
      if (runId) {
        const run = await findRun(deps.db, runId);
        // A superseded run's remaining items are left to the run that replaced it.
        if (!run || run.status !== 'running') return;
        wanted = settingsOfRun(run);
      } else {
        wanted = await markSettings(deps.settings);
      }
      await stampItem(deps, objectType, objectId, wanted, job.signal, async (trx) => {
        if (runId) await completeRunItem(trx, runId, objectType, objectId, 'done');
      });
    },
    async onFailed(trx, { objectType, objectId, runId }, error) {
      if (runId) await completeRunItem(trx, runId, objectType, objectId, 'failed', error.slice(0, 500));
    },
  });
  queue.register<WatermarkCleanupJob>(JOB_WATERMARK_CLEANUP, { run: ({ keys }) => deleteKeys(deps, keys) });
}

export type { MarkItem };

/** What the console shows (GET /admin/watermarks and src/pages/admin/watermarks.astro). */
export async function watermarkOverview(ctx: { db: DbOrTrx; settings: WatermarkDeps['settings'] }) {
  const s = await markSettings(ctx.settings);
  return {
    settings: { watermarkEnabled: s.enabled, watermarkPosition: s.position, watermarkOpacity: s.opacity },
    runs: await watermarkRuns(ctx.db, 10),
  };
}
