import { sql, type Insertable, type Selectable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { PerformerVerificationsTable } from '../db/schema.js';
import type { VerificationStatus } from '../../common/enums.js';

/** The SQL of performers' identity and age verifications (migration 0026). */

export type VerificationRow = Selectable<PerformerVerificationsTable>;
export type NewVerification = Insertable<PerformerVerificationsTable>;

export async function insertVerification(db: DbOrTrx, row: NewVerification): Promise<void> {
  await db.insertInto('performerVerifications').values(row).execute();
}

/** The performer's newest submission: their state. */
export async function latestVerification(db: DbOrTrx, performerId: string): Promise<VerificationRow | undefined> {
  return db
    .selectFrom('performerVerifications')
    .selectAll()
    .where('performerId', '=', performerId)
    .orderBy('submittedAt', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Whether any submission of the performer was approved (the console's approval needs one). */
export async function hasApprovedVerification(db: DbOrTrx, performerId: string): Promise<boolean> {
  const row = await db
    .selectFrom('performerVerifications')
    .select('id')
    .where('performerId', '=', performerId)
    .where('status', '=', 'approved')
    .limit(1)
    .executeTakeFirst();
  return Boolean(row);
}

/** The newest submission's status of each performer that has one. */
export async function latestStatuses(db: DbOrTrx, performerIds: string[]): Promise<Map<string, VerificationStatus>> {
  const out = new Map<string, VerificationStatus>();
  if (!performerIds.length) return out;
  const rows = await db
    .selectFrom('performerVerifications')
    .select(['performerId', 'status', 'submittedAt', 'id'])
    .where('performerId', 'in', performerIds)
    .orderBy('submittedAt', 'asc')
    .orderBy('id', 'asc')
    .execute();
  // Ascending: the newest row of a performer is set last.
  for (const r of rows) out.set(r.performerId, r.status);
  return out;
}

const withPerformer = (db: DbOrTrx) =>
  db
    .selectFrom('performerVerifications as v')
    .innerJoin('users as u', 'u.id', 'v.performerId')
    .selectAll('v')
    .select(['u.username as performerUsername', 'u.name as performerName', 'u.email as performerEmail']);

export type VerificationWithPerformer = VerificationRow & { performerUsername: string; performerName: string; performerEmail: string };

export async function findVerification(db: DbOrTrx, id: string): Promise<VerificationWithPerformer | undefined> {
  return withPerformer(db).where('v.id', '=', id).executeTakeFirst();
}

/** The console's queue: pending first, then decided ones; oldest submission first within each; with the total. */
export async function listVerifications(
  db: DbOrTrx,
  q: { status?: VerificationStatus; limit: number; offset: number },
): Promise<{ rows: VerificationWithPerformer[]; total: number }> {
  let list = withPerformer(db);
  let count = db.selectFrom('performerVerifications').select(sql<number>`count(*)`.as('n'));
  if (q.status) {
    list = list.where('v.status', '=', q.status);
    count = count.where('status', '=', q.status);
  }
  const rows = await list
    .orderBy(sql`case when v.status = 'pending' then 0 else 1 end`)
    .orderBy('v.submittedAt', 'asc')
    .orderBy('v.id', 'asc')
    .limit(q.limit)
    .offset(q.offset)
    .execute();
  const total = Number((await count.executeTakeFirstOrThrow()).n);
  return { rows, total };
}

/** Decides a pending submission; false when it is not pending (any more): one decision per submission. */
export async function decideVerification(
  db: DbOrTrx,
  id: string,
  d: { status: 'approved' | 'rejected'; decidedBy: string; reason: string | null; at: string },
): Promise<boolean> {
  const res = await db
    .updateTable('performerVerifications')
    .set({ status: d.status, decidedBy: d.decidedBy, decidedAt: d.at, reason: d.reason, updatedAt: d.at })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/**
 * One of a submission's pictures, for the protected media route: only while the pictures are kept, and only a file
 * the submission names (a file id of another submission answers nothing).
 */
export async function findVerificationFile(
  db: DbOrTrx,
  verificationId: string,
  fileId: string,
): Promise<{ storageKey: string; fileStatus: string; originalName: string | null } | undefined> {
  const v = await db
    .selectFrom('performerVerifications')
    .select(['documentFrontFileId', 'documentBackFileId', 'selfieFileId'])
    .where('id', '=', verificationId)
    .where('filesDeletedAt', 'is', null)
    .executeTakeFirst();
  if (!v || ![v.documentFrontFileId, v.documentBackFileId, v.selfieFileId].includes(fileId)) return undefined;
  return db.selectFrom('files').select(['storageKey', 'status as fileStatus', 'originalName']).where('id', '=', fileId).executeTakeFirst();
}

/** Every submission of one performer (their account is being deleted). */
export async function verificationsOfPerformer(db: DbOrTrx, performerId: string): Promise<VerificationRow[]> {
  return db.selectFrom('performerVerifications').selectAll().where('performerId', '=', performerId).execute();
}

/** Decided submissions, not seeded, whose pictures are still kept and whose decision is at or before `cutoff`. */
export async function verificationsDueForDeletion(db: DbOrTrx, cutoff: string, limit: number): Promise<VerificationRow[]> {
  return db
    .selectFrom('performerVerifications')
    .selectAll()
    .where('filesDeletedAt', 'is', null)
    .where('decidedAt', 'is not', null)
    .where('decidedAt', '<=', cutoff)
    .where('seeded', '=', 0)
    .orderBy('decidedAt', 'asc')
    .limit(limit)
    .execute();
}

/** Notes that a submission's pictures were deleted (its file ids cleared); false when another run did it first. */
export async function markFilesDeleted(db: DbOrTrx, id: string, at: string): Promise<boolean> {
  const res = await db
    .updateTable('performerVerifications')
    .set({ documentFrontFileId: null, documentBackFileId: null, selfieFileId: null, filesDeletedAt: at, updatedAt: at })
    .where('id', '=', id)
    .where('filesDeletedAt', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Addresses of the active admins (a new submission is announced to each). */
export async function adminRecipients(db: DbOrTrx): Promise<Array<{ email: string; name: string }>> {
  return db.selectFrom('users').select(['email', 'name']).where('role', '=', 'admin').where('status', '=', 'active').orderBy('id').execute();
}
