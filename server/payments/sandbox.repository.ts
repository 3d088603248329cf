import type { Insertable, Selectable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { nowIso } from '../db/ids.js';
import type { SandboxChargesTable, SandboxSubscriptionsTable } from '../db/schema.js';

/** SQL of the sandbox provider's own side: its charges (`sandbox_charges`; server/payments/sandbox.gateway.ts). */

export type SandboxCharge = Selectable<SandboxChargesTable>;
export type SandboxChargeStatus = SandboxCharge['status'];

export async function insertSandboxCharge(db: DbOrTrx, row: Insertable<SandboxChargesTable>): Promise<void> {
  await db.insertInto('sandboxCharges').values(row).execute();
}

export function findSandboxCharge(db: DbOrTrx, id: string): Promise<SandboxCharge | undefined> {
  return db.selectFrom('sandboxCharges').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Moves a charge to `to` when it is in one of `from` (and, with `notExpired`, still open); false when it was not,
 * so of two concurrent moves exactly one happens.
 */
export async function moveSandboxCharge(
  db: DbOrTrx,
  id: string,
  from: readonly SandboxChargeStatus[],
  to: SandboxChargeStatus,
  opts: { notExpired?: boolean } = {},
): Promise<boolean> {
  const now = nowIso();
  let q = db.updateTable('sandboxCharges').set({ status: to, updatedAt: now }).where('id', '=', id).where('status', 'in', [...from]);
  if (opts.notExpired) q = q.where('expiresAt', '>', now);
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * Gives back `amount` more of a paid charge, as long as something is left after it (a refund of the rest is a move
 * to `refunded`). One conditional update: two partial refunds at once cannot give back more than was taken.
 */
export async function refundSandboxChargePart(db: DbOrTrx, id: string, amount: number): Promise<boolean> {
  const res = await db
    .updateTable('sandboxCharges')
    .set((eb) => ({ refundedAmount: eb('refundedAmount', '+', amount), updatedAt: nowIso() }))
    .where('id', '=', id)
    .where('status', '=', 'paid')
    .where((eb) => eb(eb('refundedAmount', '+', amount), '<', eb.ref('amount')))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

// -----------------------------------------------------------------------------------------------------------------
// Its recurring billings (`sandbox_subscriptions`).

export type SandboxSubscription = Selectable<SandboxSubscriptionsTable>;

export async function insertSandboxSubscription(db: DbOrTrx, row: Insertable<SandboxSubscriptionsTable>): Promise<void> {
  await db.insertInto('sandboxSubscriptions').values(row).execute();
}

export function findSandboxSubscription(db: DbOrTrx, id: string): Promise<SandboxSubscription | undefined> {
  return db.selectFrom('sandboxSubscriptions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The recurring billing a checkout's charge started, if any. */
export function sandboxSubscriptionOfCharge(db: DbOrTrx, chargeId: string): Promise<SandboxSubscription | undefined> {
  return db.selectFrom('sandboxSubscriptions').selectAll().where('chargeId', '=', chargeId).executeTakeFirst();
}

/** Active billings whose next attempt is due by `by`, oldest first. */
export function dueSandboxSubscriptions(db: DbOrTrx, by: string, limit: number): Promise<SandboxSubscription[]> {
  return db.selectFrom('sandboxSubscriptions').selectAll().where('status', '=', 'active').where('nextChargeAt', '<=', by).orderBy('nextChargeAt').orderBy('id').limit(limit).execute();
}

/**
 * Claims one attempt: moves the billing on from the attempt it was due for (`nextChargeAt` as read), so two clocks
 * running at once charge a period once. False when another runner (or a cancellation) got there first.
 */
export async function advanceSandboxSubscription(
  db: DbOrTrx,
  sub: Pick<SandboxSubscription, 'id' | 'nextChargeAt'>,
  next: { nextChargeAt: string; periodEnd?: string; failRenewals?: number; renewed?: boolean },
): Promise<boolean> {
  const res = await db
    .updateTable('sandboxSubscriptions')
    .set((eb) => ({
      nextChargeAt: next.nextChargeAt,
      ...(next.periodEnd ? { periodEnd: next.periodEnd } : {}),
      ...(next.failRenewals !== undefined ? { failRenewals: next.failRenewals } : {}),
      ...(next.renewed ? { renewals: eb('renewals', '+', 1) } : {}),
      updatedAt: nowIso(),
    }))
    .where('id', '=', sub.id)
    .where('status', '=', 'active')
    .where('nextChargeAt', '=', sub.nextChargeAt)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function setSandboxSubscriptionFailures(db: DbOrTrx, id: string, failRenewals: number): Promise<boolean> {
  const res = await db.updateTable('sandboxSubscriptions').set({ failRenewals, updatedAt: nowIso() }).where('id', '=', id).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function cancelSandboxSubscription(db: DbOrTrx, id: string): Promise<boolean> {
  const res = await db.updateTable('sandboxSubscriptions').set({ status: 'cancelled', updatedAt: nowIso() }).where('id', '=', id).where('status', '=', 'active').executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Renewal charges whose webhook did not get through (sent again by the next run of the clock). */
export function unnotifiedRenewalCharges(db: DbOrTrx, limit: number): Promise<SandboxCharge[]> {
  return db.selectFrom('sandboxCharges').selectAll().where('notified', '=', 0).where('renewalOf', 'is not', null).orderBy('createdAt').limit(limit).execute();
}

export async function markSandboxChargeNotified(db: DbOrTrx, id: string): Promise<void> {
  await db.updateTable('sandboxCharges').set({ notified: 1 }).where('id', '=', id).execute();
}
