import type { Selectable } from 'kysely';
import type { DbOrTrx } from '../../db/database.js';
import { nowIso } from '../../db/ids.js';
import type { WatermarkItemsTable, WatermarkRunsTable } from '../../db/schema.js';

/** SQL of watermarks: the items a run walks, its rows and its items' progress, the stamped files of an item. */

export type WatermarkRunRow = Selectable<WatermarkRunsTable>;
export type MarkObjectType = WatermarkItemsTable['objectType'];
/** The order a run walks the catalogue in: all videos, then photos, then posts' media, each by id. */
export const MARK_OBJECT_TYPES: readonly MarkObjectType[] = ['video', 'photo', 'post_media'];

/** What a stamp of one item needs: the file it starts from, who it belongs to, and (post media) its display picture. */
export interface MarkItem {
  objectType: MarkObjectType;
  id: string;
  username: string;
  /** The original upload (videos, photos, a post's video) the served file is made from. */
  fileId: string;
  kind: 'image' | 'video';
  /** A post picture's full-size picture: the file stamped and served in full. */
  displayFileId: string | null;
}

export async function markItemOf(db: DbOrTrx, objectType: MarkObjectType, id: string): Promise<MarkItem | undefined> {
  if (objectType === 'video') {
    const r = await db.selectFrom('videos').innerJoin('performers', 'performers.id', 'videos.performerId')
      .select(['videos.id', 'videos.fileId', 'performers.username']).where('videos.id', '=', id).where('videos.processingStatus', '=', 'ready').executeTakeFirst();
    return r?.fileId ? { objectType, id: r.id, username: r.username, fileId: r.fileId, kind: 'video', displayFileId: null } : undefined;
  }
  if (objectType === 'photo') {
    const r = await db.selectFrom('photos').innerJoin('performers', 'performers.id', 'photos.performerId')
      .select(['photos.id', 'photos.fileId', 'performers.username']).where('photos.id', '=', id).where('photos.processingStatus', '=', 'ready').executeTakeFirst();
    return r?.fileId ? { objectType, id: r.id, username: r.username, fileId: r.fileId, kind: 'image', displayFileId: null } : undefined;
  }
  const r = await db.selectFrom('postMedia').innerJoin('posts', 'posts.id', 'postMedia.postId').innerJoin('performers', 'performers.id', 'posts.performerId')
    .select(['postMedia.id', 'postMedia.fileId', 'postMedia.kind', 'postMedia.displayFileId', 'performers.username'])
    .where('postMedia.id', '=', id).where('postMedia.processingStatus', '=', 'ready').executeTakeFirst();
  return r ? { objectType, id: r.id, username: r.username, fileId: r.fileId, kind: r.kind, displayFileId: r.displayFileId } : undefined;
}

/** Whether the item still serves from the same files the stamp was made from (checked in the swap's transaction). */
export async function markItemUnchanged(db: DbOrTrx, item: MarkItem): Promise<boolean> {
  const now = await markItemOf(db, item.objectType, item.id);
  return !!now && now.fileId === item.fileId && now.displayFileId === item.displayFileId;
}

/** The next ids of one kind of item after `afterId`, those a run stamps (processed, of a performer). */
export async function markItemIds(db: DbOrTrx, objectType: MarkObjectType, afterId: string, limit: number): Promise<string[]> {
  if (objectType === 'video') {
    const rows = await db.selectFrom('videos').select('id').where('fileId', 'is not', null).where('processingStatus', '=', 'ready').where('id', '>', afterId).orderBy('id').limit(limit).execute();
    return rows.map((r) => r.id);
  }
  if (objectType === 'photo') {
    const rows = await db.selectFrom('photos').select('id').where('fileId', 'is not', null).where('processingStatus', '=', 'ready').where('id', '>', afterId).orderBy('id').limit(limit).execute();
    return rows.map((r) => r.id);
  }
  const rows = await db.selectFrom('postMedia').innerJoin('posts', 'posts.id', 'postMedia.postId').select('postMedia.id')
    .where('posts.performerId', 'is not', null).where('postMedia.processingStatus', '=', 'ready').where('postMedia.id', '>', afterId).orderBy('postMedia.id').limit(limit).execute();
  return rows.map((r) => r.id);
}

/** How many items a run over the catalogue now would stamp. */
export async function countMarkItems(db: DbOrTrx): Promise<number> {
  const n = (r: { n: number | string | bigint } | undefined) => Number(r?.n ?? 0);
  const [v, p, m] = await Promise.all([
    db.selectFrom('videos').select((eb) => eb.fn.countAll<number>().as('n')).where('fileId', 'is not', null).where('processingStatus', '=', 'ready').executeTakeFirst(),
    db.selectFrom('photos').select((eb) => eb.fn.countAll<number>().as('n')).where('fileId', 'is not', null).where('processingStatus', '=', 'ready').executeTakeFirst(),
    db.selectFrom('postMedia').innerJoin('posts', 'posts.id', 'postMedia.postId').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('posts.performerId', 'is not', null).where('postMedia.processingStatus', '=', 'ready').executeTakeFirst(),
  ]);
  return n(v) + n(p) + n(m);
}

// -- runs --------------------------------------------------------------------------------------------------------

export async function insertRun(db: DbOrTrx, row: { id: string; enabled: boolean; position: string; opacity: number; total: number; startedBy: string | null; startedAt: string }): Promise<void> {
  await db.insertInto('watermarkRuns').values({ ...row, enabled: row.enabled ? 1 : 0, status: 'running', finishedAt: null }).execute();
}

export async function findRun(db: DbOrTrx, id: string): Promise<WatermarkRunRow | undefined> {
  return db.selectFrom('watermarkRuns').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function runningRuns(db: DbOrTrx): Promise<WatermarkRunRow[]> {
  return db.selectFrom('watermarkRuns').selectAll().where('status', '=', 'running').orderBy('startedAt', 'desc').orderBy('id', 'desc').execute();
}

export async function recentRuns(db: DbOrTrx, limit: number): Promise<WatermarkRunRow[]> {
  return db.selectFrom('watermarkRuns').selectAll().orderBy('startedAt', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** A newer run takes over: the older ones stop where they are (their queued items are skipped). */
export async function supersedeRuns(db: DbOrTrx, ids: string[], at: string): Promise<void> {
  if (ids.length) await db.updateTable('watermarkRuns').set({ status: 'superseded', finishedAt: at }).where('id', 'in', ids).where('status', '=', 'running').execute();
}

/**
 * Locks a run's row for the rest of the transaction (a no-op UPDATE, as lockGalleryRow) and returns it: the items
 * finishing at once then see each other's counts, so exactly one of them ends the run.
 */
export async function lockRun(db: DbOrTrx, id: string): Promise<WatermarkRunRow | undefined> {
  await db.updateTable('watermarkRuns').set((eb) => ({ status: eb.ref('status') })).where('id', '=', id).execute();
  return findRun(db, id);
}

export async function advanceRun(db: DbOrTrx, id: string, cursor: { type: string; id: string }): Promise<void> {
  await db.updateTable('watermarkRuns').set({ cursorType: cursor.type, cursorId: cursor.id }).where('id', '=', id).execute();
}

/** The run has walked the whole catalogue: its total becomes the number of items it enqueued. */
export async function markRunPaged(db: DbOrTrx, id: string): Promise<void> {
  const row = await db.selectFrom('watermarkItems').select((eb) => eb.fn.countAll<number>().as('n')).where('runId', '=', id).executeTakeFirst();
  await db.updateTable('watermarkRuns').set({ paged: 1, total: Number(row?.n ?? 0) }).where('id', '=', id).execute();
}

export async function finishRun(db: DbOrTrx, id: string, at: string): Promise<void> {
  await db.updateTable('watermarkRuns').set({ status: 'done', finishedAt: at }).where('id', '=', id).where('status', '=', 'running').execute();
}

/** Adds a page of items to a run; an item already there (the page job ran twice) is left as it is. Answers how many were new. */
export async function insertRunItems(db: DbOrTrx, runId: string, objectType: MarkObjectType, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  const at = nowIso();
  const res = await db.insertInto('watermarkItems')
    .values(ids.map((objectId) => ({ runId, objectType, objectId, status: 'queued' as const, error: null, updatedAt: at })))
    .onConflict((oc) => oc.columns(['runId', 'objectType', 'objectId']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n);
}

/** Marks a run's item done or failed, once: answers false when it was no longer queued (a second delivery of its job). */
export async function finishRunItem(db: DbOrTrx, runId: string, objectType: MarkObjectType, objectId: string, status: 'done' | 'failed', error: string | null = null): Promise<boolean> {
  const res = await db.updateTable('watermarkItems').set({ status, error, updatedAt: nowIso() })
    .where('runId', '=', runId).where('objectType', '=', objectType).where('objectId', '=', objectId).where('status', '=', 'queued')
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

/** A run's items by status: queued, done and failed. */
export async function runItemCounts(db: DbOrTrx, runIds: string[]): Promise<Map<string, { queued: number; done: number; failed: number }>> {
  const out = new Map<string, { queued: number; done: number; failed: number }>();
  if (!runIds.length) return out;
  const rows = await db.selectFrom('watermarkItems').select(['runId', 'status']).select((eb) => eb.fn.countAll<number>().as('n'))
    .where('runId', 'in', runIds).groupBy(['runId', 'status']).execute();
  for (const id of runIds) out.set(id, { queued: 0, done: 0, failed: 0 });
  for (const r of rows) out.get(r.runId)![r.status] = Number(r.n);
  return out;
}

// -- stamped files -----------------------------------------------------------------------------------------------

export async function setFileWatermark(db: DbOrTrx, ids: string[], watermark: string | null): Promise<void> {
  if (ids.length) await db.updateTable('files').set({ watermark }).where('id', 'in', ids).execute();
}
