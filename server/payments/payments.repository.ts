import { sql, type Insertable, type Selectable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { offsetPage } from '../catalogue/catalogue.repository.js';
import { nowIso } from '../db/ids.js';
import type { PaymentItemsTable, PaymentsTable, PaymentStatus } from '../db/schema.js';

/** SQL of payments, their items and the webhook events received (the idempotency keys). */

export type PaymentRow = Selectable<PaymentsTable>;
export type PaymentItemRow = Selectable<PaymentItemsTable>;
export type PaymentType = PaymentsTable['type'];

export async function insertPayment(db: DbOrTrx, row: Insertable<PaymentsTable>, items: Array<Insertable<PaymentItemsTable>>): Promise<void> {
  await db.insertInto('payments').values(row).execute();
  if (items.length) await db.insertInto('paymentItems').values(items).execute();
}

/**
 * A renewal's payment, created when the provider's event arrives: at most one per provider charge (payments_gateway_ref_uq),
 * so two different events of one charge, even at the same moment, make one payment. Returns the payment's id.
 */
export async function insertRenewalPayment(db: DbOrTrx, row: Insertable<PaymentsTable>, item: Omit<Insertable<PaymentItemsTable>, 'paymentId'>): Promise<string> {
  const inserted = await db
    .insertInto('payments')
    .values(row)
    .onConflict((oc) => oc.columns(['gateway', 'gatewayRef']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) {
    await db.insertInto('paymentItems').values({ ...item, paymentId: inserted.id }).execute();
    return inserted.id;
  }
  const found = await db.selectFrom('payments').select('id').where('gateway', '=', row.gateway).where('gatewayRef', '=', row.gatewayRef!).executeTakeFirstOrThrow();
  return found.id;
}

export function findPayment(db: DbOrTrx, id: string) {
  return db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirst();
}

export function paymentItems(db: DbOrTrx, paymentId: string) {
  return db.selectFrom('paymentItems').selectAll().where('paymentId', '=', paymentId).orderBy('id').execute();
}

export async function setCheckout(db: DbOrTrx, paymentId: string, gatewayRef: string, checkoutUrl: string): Promise<void> {
  await db.updateTable('payments').set({ gatewayRef, checkoutUrl, updatedAt: nowIso() }).where('id', '=', paymentId).execute();
}

/** The payment an event names: by our id (same gateway), else by the provider's checkout ref, else its charge ref. */
export async function findPaymentForEvent(
  db: DbOrTrx,
  gateway: string,
  ref: { paymentId?: string | null; gatewayRef?: string | null; intentRef?: string | null },
): Promise<PaymentRow | undefined> {
  if (ref.paymentId) {
    const p = await db.selectFrom('payments').selectAll().where('id', '=', ref.paymentId).where('gateway', '=', gateway).executeTakeFirst();
    if (p) return p;
  }
  if (ref.gatewayRef) {
    const p = await db.selectFrom('payments').selectAll().where('gateway', '=', gateway).where('gatewayRef', '=', ref.gatewayRef).executeTakeFirst();
    if (p) return p;
  }
  if (ref.intentRef) {
    return db.selectFrom('payments').selectAll().where('gateway', '=', gateway).where('gatewayIntentRef', '=', ref.intentRef).executeTakeFirst();
  }
  return undefined;
}

/**
 * Locks the payment row for the rest of the transaction and returns it as it now is. A no-op UPDATE takes the
 * row lock on PostgreSQL (concurrent webhooks of one payment queue here and each sees the previous one's result);
 * SQLite has a single writer anyway. Portable, unlike SELECT … FOR UPDATE.
 */
export async function lockPayment(db: DbOrTrx, id: string): Promise<PaymentRow | undefined> {
  await db.updateTable('payments').set({ updatedAt: nowIso() }).where('id', '=', id).execute();
  return findPayment(db, id);
}

export async function updatePayment(
  db: DbOrTrx,
  id: string,
  changes: Partial<Pick<PaymentRow, 'status' | 'paidAt' | 'gatewayIntentRef' | 'stockHeld' | 'couponHeld' | 'deferredReversal' | 'reversedAt' | 'details' | 'refundedAmount'>>,
): Promise<void> {
  await db.updateTable('payments').set({ ...changes, updatedAt: nowIso() }).where('id', '=', id).execute();
}

/**
 * Records a provider event before anything else happens in the transaction. False when the (gateway, event id)
 * key already exists: a replay, or the same event being handled concurrently (PostgreSQL makes the second insert
 * wait for the first transaction and then skips it).
 */
export async function recordWebhookEvent(
  db: DbOrTrx,
  e: { gateway: string; eventId: string; type: string; payload: string; paymentId?: string | null },
): Promise<boolean> {
  const res = await db
    .insertInto('webhookEvents')
    .values({ gateway: e.gateway, eventId: e.eventId, type: e.type, payload: e.payload, paymentId: e.paymentId ?? null, outcome: null, receivedAt: nowIso() })
    .onConflict((oc) => oc.columns(['gateway', 'eventId']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function setWebhookOutcome(db: DbOrTrx, gateway: string, eventId: string, outcome: string, paymentId: string | null): Promise<void> {
  await db.updateTable('webhookEvents').set({ outcome, paymentId }).where('gateway', '=', gateway).where('eventId', '=', eventId).execute();
}

/**
 * Units of a product the buyer holds in unpaid checkouts that have not expired yet. Read in the checkout
 * transaction after the stock update has locked the product row, so concurrent checkouts of the same product
 * count each other (PostgreSQL: each statement of READ COMMITTED sees what the lock holder committed; SQLite:
 * one writer at a time).
 */
export async function unitsHeldByBuyer(db: DbOrTrx, userId: string, productId: string, now: string): Promise<number> {
  const row = await db
    .selectFrom('paymentItems')
    .innerJoin('payments', 'payments.id', 'paymentItems.paymentId')
    .select(sql<number | string | null>`sum(payment_items.quantity)`.as('n'))
    .where('payments.userId', '=', userId)
    .where('payments.status', '=', 'pending')
    .where('payments.stockHeld', '=', 1)
    .where('payments.expiresAt', '>', now)
    .where('paymentItems.objectType', '=', 'product')
    .where('paymentItems.objectId', '=', productId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Pending payments whose checkout has expired (sweep), oldest first. */
export function expiredPendingPayments(db: DbOrTrx, now: string, limit: number) {
  return db
    .selectFrom('payments')
    .select(['id', 'gateway', 'gatewayRef'])
    .where('status', '=', 'pending')
    .where('expiresAt', '<=', now)
    .orderBy('expiresAt')
    .limit(limit)
    .execute();
}

/** Pending payments older than `before` (reconciliation), oldest first. */
export function pendingPayments(db: DbOrTrx, before: string, limit: number) {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('status', '=', 'pending')
    .where('createdAt', '<=', before)
    .orderBy('createdAt')
    .limit(limit)
    .execute();
}

// -----------------------------------------------------------------------------------------------------------------
// Lists of a user's payments (transactions).

export interface TransactionFilters {
  type?: PaymentType | 'subscription';
  status?: PaymentStatus;
  from?: string;
  to?: string;
  limit: number;
  offset: number;
}

export async function listUserPayments(db: DbOrTrx, userId: string, f: TransactionFilters) {
  let base = db.selectFrom('payments').where('payments.userId', '=', userId);
  if (f.type === 'subscription') base = base.where('payments.type', 'in', ['subscription_monthly', 'subscription_yearly']);
  else if (f.type) base = base.where('payments.type', '=', f.type);
  if (f.status) base = base.where('payments.status', '=', f.status);
  if (f.from) base = base.where('payments.createdAt', '>=', f.from);
  if (f.to) base = base.where('payments.createdAt', '<', f.to);
  const { rows, total } = await offsetPage(base, f, (qb) => qb.selectAll('payments').orderBy('payments.createdAt', 'desc').orderBy('payments.id', 'desc'));
  return { rows, total };
}

export function itemsOfPayments(db: DbOrTrx, paymentIds: readonly string[]) {
  if (!paymentIds.length) return Promise.resolve([] as PaymentItemRow[]);
  return db.selectFrom('paymentItems').selectAll().where('paymentId', 'in', [...paymentIds]).orderBy('id').execute();
}

/** The currency of each payment, by id. */
export async function currenciesOfPayments(db: DbOrTrx, paymentIds: string[]): Promise<Map<string, string>> {
  if (!paymentIds.length) return new Map();
  const rows = await db.selectFrom('payments').select(['id', 'currency']).where('id', 'in', [...new Set(paymentIds)]).execute();
  return new Map(rows.map((r) => [r.id, r.currency]));
}
