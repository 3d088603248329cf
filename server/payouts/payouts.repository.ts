import type { Insertable, Selectable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { offsetPage } from '../catalogue/catalogue.repository.js';
import type { PayoutDetailsTable, PayoutsTable } from '../db/schema.js';
import { OPEN_PAYOUT_STATUSES, type PayoutStatus } from '../../common/enums.js';

/**
 * SQL of payouts (table `payouts`, 0006 and 0016) and of performers' payout details (`payout_details`). The earnings a
 * payout claims, releases or pays are written by server/earnings/earnings.repository.ts.
 */

export type PayoutRow = Selectable<PayoutsTable>;
export type PayoutDetailsRow = Selectable<PayoutDetailsTable>;
/** A payout with its performer's names (null when the performer is gone). */
export type NamedPayoutRow = PayoutRow & { username: string | null; displayName: string | null };

export function findPayoutDetails(db: DbOrTrx, performerId: string): Promise<PayoutDetailsRow | undefined> {
  return db.selectFrom('payoutDetails').selectAll().where('performerId', '=', performerId).executeTakeFirst();
}

/** One row per performer: a new one, or the existing one replaced. */
export async function upsertPayoutDetails(db: DbOrTrx, row: Pick<PayoutDetailsRow, 'performerId' | 'method' | 'detailsEnc'>, now: string): Promise<void> {
  await db
    .insertInto('payoutDetails')
    .values({ ...row, createdAt: now, updatedAt: now })
    .onConflict((oc) => oc.column('performerId').doUpdateSet({ method: row.method, detailsEnc: row.detailsEnc, updatedAt: now }))
    .execute();
}

export async function insertPayout(db: DbOrTrx, row: Insertable<PayoutsTable>): Promise<void> {
  await db.insertInto('payouts').values(row).execute();
}

/** The amount and number of earnings a request claimed. */
export async function setPayoutAmount(db: DbOrTrx, id: string, amount: number, earningsCount: number): Promise<void> {
  await db.updateTable('payouts').set({ amount, earningsCount }).where('id', '=', id).execute();
}

function named(db: DbOrTrx) {
  return db.selectFrom('payouts').leftJoin('performers', 'performers.id', 'payouts.performerId').selectAll('payouts').select(['performers.username', 'performers.displayName']);
}

export function findPayout(db: DbOrTrx, id: string): Promise<NamedPayoutRow | undefined> {
  return named(db).where('payouts.id', '=', id).executeTakeFirst();
}

/** The performer's payout still being handled (requested or approved), if any: there is at most one. */
export function findOpenPayout(db: DbOrTrx, performerId: string): Promise<PayoutRow | undefined> {
  return db.selectFrom('payouts').selectAll().where('performerId', '=', performerId).where('status', 'in', OPEN_PAYOUT_STATUSES).executeTakeFirst();
}

/**
 * Moves a payout from one of the `from` statuses to another, with the changes that go with it; false when the payout
 * was not in one of them (another admin acted first, or it was never open). The status test in the UPDATE makes two
 * concurrent actions on one payout exclusive: the second finds the status changed and updates nothing.
 */
export async function transitionPayout(
  db: DbOrTrx,
  id: string,
  from: readonly PayoutStatus[],
  changes: Partial<Pick<PayoutRow, 'status' | 'reference' | 'reason' | 'approvedAt' | 'paidAt' | 'rejectedAt' | 'detailsEnc' | 'actorId'>> & { updatedAt: string },
): Promise<boolean> {
  const res = await db.updateTable('payouts').set(changes).where('id', '=', id).where('status', 'in', from).executeTakeFirst();
  return Number(res.numUpdatedRows ?? 0) === 1;
}

/** A performer's payouts, newest first. */
export async function listPerformerPayouts(db: DbOrTrx, performerId: string, p: { limit: number; offset: number }) {
  const base = db.selectFrom('payouts').where('performerId', '=', performerId);
  const { rows, total } = await offsetPage(base, p, (qb) => qb.selectAll().orderBy('createdAt', 'desc').orderBy('id', 'desc'));
  return { rows, total };
}

export interface PayoutQueueFilters {
  /** 'open': requested or approved. */
  status?: 'open' | PayoutStatus;
  performerId?: string;
  limit: number;
  offset: number;
}

/** The console's payout queue: open requests oldest first (the longest waiting on top); any other filter newest first. */
export async function listPayoutQueue(db: DbOrTrx, f: PayoutQueueFilters) {
  let base = db.selectFrom('payouts');
  if (f.status === 'open') base = base.where('payouts.status', 'in', OPEN_PAYOUT_STATUSES);
  else if (f.status) base = base.where('payouts.status', '=', f.status);
  if (f.performerId) base = base.where('payouts.performerId', '=', f.performerId);
  const direction = f.status === 'open' || f.status === 'requested' || f.status === 'approved' ? 'asc' : 'desc';
  const { rows, total } = await offsetPage(base, f, (qb) =>
    qb
      .leftJoin('performers', 'performers.id', 'payouts.performerId')
      .selectAll('payouts')
      .select(['performers.username', 'performers.displayName'])
      .orderBy('payouts.createdAt', direction)
      .orderBy('payouts.id', direction)
  );
  return { rows, total };
}

/** Whom a payout's news goes to: the performer's names and email. */
export function payoutRecipient(db: DbOrTrx, performerId: string) {
  return db
    .selectFrom('performers')
    .innerJoin('users', 'users.id', 'performers.id')
    .select(['performers.id', 'performers.username', 'performers.displayName', 'users.email'])
    .where('performers.id', '=', performerId)
    .executeTakeFirst();
}
