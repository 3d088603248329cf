import type { Insertable, SelectQueryBuilder } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { CoPerformersTable, Database } from '../db/schema.js';
import { offsetPage } from '../catalogue/catalogue.repository.js';
import type { CoPerformerObjectType, CoPerformerStatus } from '../../common/enums.js';
import { nowIso } from '../db/ids.js';

/** SQL of co-performers and consent records (migration 0027; server/consent/README.md). */

const ITEM_TABLE = { video: 'videos', gallery: 'galleries', post: 'posts' } as const;
/** The status an item is public in, and the one naming somebody new takes it back to. */
export const PUBLISHED_STATUS = { video: 'active', gallery: 'active', post: 'published' } as const;

export interface ConsentItem {
  id: string;
  performerId: string | null;
  title: string;
  status: string;
}

/** A video, gallery or post by id: whose it is, its title and status. */
export async function findItem(db: DbOrTrx, type: CoPerformerObjectType, id: string): Promise<ConsentItem | undefined> {
  return db.selectFrom(ITEM_TABLE[type]).select(['id', 'performerId', 'title', 'status']).where('id', '=', id).executeTakeFirst() as Promise<ConsentItem | undefined>;
}

/** Titles of items by type and id (the requests list and the console name what a record is about). */
export async function itemTitles(db: DbOrTrx, refs: Array<{ objectType: CoPerformerObjectType; objectId: string }>): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const type of ['video', 'gallery', 'post'] as const) {
    const ids = [...new Set(refs.filter((r) => r.objectType === type).map((r) => r.objectId))];
    if (!ids.length) continue;
    const rows = await db.selectFrom(ITEM_TABLE[type]).select(['id', 'title']).where('id', 'in', ids).execute();
    for (const r of rows) out.set(`${type}:${r.id}`, r.title);
  }
  return out;
}

/**
 * Takes a public (or scheduled) item back to draft; false when it was not published. The conditional UPDATE also
 * locks the item's row, so a concurrent publish either waits for this transaction or is undone by it.
 */
export async function takeItemToDraft(db: DbOrTrx, type: CoPerformerObjectType, id: string): Promise<boolean> {
  const res = await db
    .updateTable(ITEM_TABLE[type])
    .set({ status: 'draft', updatedAt: nowIso() })
    .where('id', '=', id)
    .where('status', '=', PUBLISHED_STATUS[type])
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

/** A performer an admin approved, active and not suspended, by username. */
export async function findApprovedPerformer(db: DbOrTrx, username: string) {
  return db
    .selectFrom('users')
    .innerJoin('performers', 'performers.id', 'users.id')
    .select(['users.id', 'users.username', 'users.name'])
    .where('users.username', '=', username)
    .where('users.role', '=', 'performer')
    .where('users.status', '=', 'active')
    .where('performers.approved', '=', 1)
    .where('performers.status', '=', 'active')
    .executeTakeFirst();
}

export async function insertCoPerformer(db: DbOrTrx, row: Insertable<CoPerformersTable>): Promise<void> {
  await db.insertInto('coPerformers').values(row).execute();
}

const recordColumns = [
  'coPerformers.id', 'coPerformers.objectType', 'coPerformers.objectId', 'coPerformers.ownerId', 'coPerformers.kind', 'coPerformers.performerId',
  'coPerformers.legalName', 'coPerformers.releaseFileId', 'coPerformers.idFileId', 'coPerformers.status', 'coPerformers.createdAt',
  'coPerformers.updatedAt', 'coPerformers.respondedAt',
] as const;

/** Records with the named performer's and the uploader's names. */
function recordsQuery(db: DbOrTrx) {
  return withNames(db.selectFrom('coPerformers'));
}

/** The record columns of `qb` with the named performer's and the uploader's names. */
function withNames(qb: SelectQueryBuilder<Database, 'coPerformers', object>) {
  return qb
    .leftJoin('users as named', 'named.id', 'coPerformers.performerId')
    .leftJoin('users as owner', 'owner.id', 'coPerformers.ownerId')
    .select([...recordColumns, 'named.username as performerUsername', 'named.name as performerName', 'owner.username as ownerUsername', 'owner.name as ownerName']);
}
export type CoPerformerRecord = Awaited<ReturnType<ReturnType<typeof recordsQuery>['executeTakeFirstOrThrow']>>;

/** An item's people, in the order they were named. */
export function recordsOfItem(db: DbOrTrx, type: CoPerformerObjectType, id: string): Promise<CoPerformerRecord[]> {
  return recordsQuery(db).where('coPerformers.objectType', '=', type).where('coPerformers.objectId', '=', id).orderBy('coPerformers.createdAt').orderBy('coPerformers.id').execute();
}

export function findRecord(db: DbOrTrx, id: string): Promise<CoPerformerRecord | undefined> {
  return recordsQuery(db).where('coPerformers.id', '=', id).executeTakeFirst();
}

/** The requests a performer was named in, newest first. */
export function requestsOf(db: DbOrTrx, performerId: string, limit = 100): Promise<CoPerformerRecord[]> {
  return recordsQuery(db).where('coPerformers.performerId', '=', performerId).orderBy('coPerformers.createdAt', 'desc').orderBy('coPerformers.id', 'desc').limit(limit).execute();
}

/** How many people of an item have not confirmed (pending or declined): anything above 0 keeps it unpublished. */
export async function countUnconfirmed(db: DbOrTrx, type: CoPerformerObjectType, id: string): Promise<number> {
  const row = await db
    .selectFrom('coPerformers')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('objectType', '=', type)
    .where('objectId', '=', id)
    .where('status', '!=', 'confirmed')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function countOfItem(db: DbOrTrx, type: CoPerformerObjectType, id: string): Promise<number> {
  const row = await db
    .selectFrom('coPerformers')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('objectType', '=', type)
    .where('objectId', '=', id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Answers a pending request; false when it was answered already (or is not theirs). */
export async function answerRequest(db: DbOrTrx, id: string, performerId: string, status: Exclude<CoPerformerStatus, 'pending'>, at: string): Promise<boolean> {
  const res = await db
    .updateTable('coPerformers')
    .set({ status, respondedAt: at, updatedAt: at })
    .where('id', '=', id)
    .where('performerId', '=', performerId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

/** An admin refuses a record (a release form that does not hold): it counts as declined. */
export async function refuseRecord(db: DbOrTrx, id: string, at: string): Promise<boolean> {
  const res = await db.updateTable('coPerformers').set({ status: 'declined', updatedAt: at }).where('id', '=', id).where('status', '!=', 'declined').executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

export async function deleteRecord(db: DbOrTrx, id: string): Promise<void> {
  await db.deleteFrom('coPerformers').where('id', '=', id).execute();
}

/** The console's list: every record or one item's, newest first, and the total. */
export async function consentRecords(db: DbOrTrx, q: { objectType?: CoPerformerObjectType; objectId?: string; status?: CoPerformerStatus; limit: number; offset: number }) {
  let base = db.selectFrom('coPerformers');
  if (q.objectType) base = base.where('coPerformers.objectType', '=', q.objectType);
  if (q.objectId) base = base.where('coPerformers.objectId', '=', q.objectId);
  if (q.status) base = base.where('coPerformers.status', '=', q.status);
  const { rows, total } = await offsetPage(base, q, (qb) => withNames(qb).orderBy('coPerformers.createdAt', 'desc').orderBy('coPerformers.id', 'desc'));
  return { items: rows, total };
}

/** A consent file of a record, for the protected media route: only the record's own release form or identity document. */
export async function findConsentFile(db: DbOrTrx, recordId: string, fileId: string) {
  return db
    .selectFrom('coPerformers')
    .innerJoin('files', 'files.id', 'coPerformers.releaseFileId')
    .select(['files.storageKey', 'files.status as fileStatus', 'files.originalName'])
    .where('coPerformers.id', '=', recordId)
    .where('coPerformers.releaseFileId', '=', fileId)
    .unionAll(
      db
        .selectFrom('coPerformers')
        .innerJoin('files', 'files.id', 'coPerformers.idFileId')
        .select(['files.storageKey', 'files.status as fileStatus', 'files.originalName'])
        .where('coPerformers.id', '=', recordId)
        .where('coPerformers.idFileId', '=', fileId),
    )
    .executeTakeFirst();
}

/** The mime types of files (the console says what a link opens). */
export async function fileMimes(db: DbOrTrx, ids: string[]): Promise<Map<string, { mime: string; originalName: string | null }>> {
  if (!ids.length) return new Map();
  const rows = await db.selectFrom('files').select(['id', 'mime', 'originalName']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, { mime: r.mime, originalName: r.originalName }]));
}

/** A user's display name (who named somebody, in the notification). */
export async function userName(db: DbOrTrx, id: string): Promise<string | undefined> {
  return (await db.selectFrom('users').select('name').where('id', '=', id).executeTakeFirst())?.name;
}
