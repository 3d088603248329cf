import type { Insertable, Transaction } from 'kysely';
import type { Db } from '../db/database.js';
import { newId, nowIso } from '../db/ids.js';
import type { Database, EarningsTable, PaymentStatus } from '../db/schema.js';
import { AppError } from '../http/errors.js';
import { countCouponUse, releaseCouponUse, reserveCouponUse } from '../coupons/coupons.repository.js';
import { creditsOfPayment, insertEarnings, partialRefundsOfPayment } from '../earnings/earnings.repository.js';
import { markOrdersCancelled, markOrdersPaid, markOrdersRefunded } from '../orders/orders.repository.js';
import { addPaidPeriod, findSubscription as subscriptionOf, recountSubscribers, removePaidPeriod, startRecurring } from '../subscriptions/subscriptions.repository.js';
import { commissionRatesOf } from '../performers/performers.repository.js';
import { isSubscriptionAction, type GatewayEvent, type GatewayName, type SettlementAction } from './gateway.js';
import { applySubscriptionEvent } from './renewals.js';
import { tipPaid } from '../tips/tip-paid.js';
import type { TipReceived } from '../../common/realtime.js';
import type { MoneyMail } from './money-mail.js';
import { notifyNewSubscriber, notifySale } from './sale-notifications.js';
import { grantEntitlement, otherPaidPurchase, productsByIds, returnStock, revokeEntitlementsOf, takeStock } from './fulfilment.repository.js';
import {
  findPaymentForEvent, lockPayment, paymentItems, recordWebhookEvent, setWebhookOutcome, updatePayment, type PaymentItemRow, type PaymentRow,
} from './payments.repository.js';
import { commissionRateFor, negate, shareRefund, splitCommission, type Split } from './pricing.js';

/**
 * The payment state machine (server/payments/README.md). Every change of a payment, from a webhook, the
 * reconciliation command or an expiry sweep, goes through `transitions` in ONE transaction that also changes
 * everything the payment implies: stock, coupon uses, subscriptions, entitlements, orders, earnings, counters.
 *
 *            paid                      refunded / chargeback
 *   pending ──────▶ success ─────────────────────────────▶ refunded ──chargeback──▶ chargeback
 *      │  ▲            ▲
 *      │  └────────────┤ paid (late: stock is taken again; none left → paid and refunded at once)
 *      └──failed / cancelled──▶ failed | cancelled
 *
 * Webhooks arrive out of order and in parallel, so every transition is guarded by the current state and the
 * outcome depends only on WHICH events arrived, not their order:
 *   - a repeated event is a duplicate key in webhook_events (nothing runs);
 *   - "paid" wins over failed/cancelled (money was taken), and applies once (success is never entered twice);
 *   - a refund or chargeback that arrives before "paid" is kept on the payment (deferred_reversal) and applied in
 *     the same transaction that applies "paid";
 *   - labels only move up (cancelled < failed, refunded < chargeback); money moves once.
 *
 * A partial refund keeps the payment `success` (its access and period stay) and gives back part of its earnings; the
 * provider says how much is refunded so far, so only the growth of that total is applied, whatever the order.
 */

type Trx = Transaction<Database>;

/** Pushed to the buyer's browsers after the commit (ServerToClientEvents in common/realtime.ts). */
export type Notification =
  | { userId: string; event: 'payment/success'; payload: { paymentId: string; type: string; targetId: string | null; amount: number; currency: string } }
  | { userId: string; event: 'subscription/success'; payload: { subscriptionId: string; performerId: string; paymentId: string; expiresAt: string | null } }
  | { userId: string; event: 'tip/received'; payload: TipReceived };

/** What a transition leaves for after the commit. */
export interface Effects {
  notifications: Notification[];
  /** A payment taken that cannot be fulfilled (stock gone): the provider must give the money back. */
  refundsDue: PaymentRow[];
  /** Recurring billings to stop at their provider (replaced by a new one, or lapsed after the grace period). */
  recurringToCancel: Array<{ gateway: string; ref: string }>;
  /**
   * Mails about what this transaction did (receipt, new subscriber, renewal failed, subscription ended), with the facts
   * it read and wrote; sent after the commit (money-mail.ts). A duplicate event leaves none.
   */
  mails: MoneyMail[];
  /** Users given a notification row in this transaction: their unread count is pushed after the commit. */
  notified: string[];
}

/** The settings a settlement reads, once per event. */
export interface SettlementRates {
  /** The site's commission (setting commissionBps). */
  commissionBps: number;
  /** Days a failed renewal is retried before the subscription lapses (setting renewalGraceDays). */
  graceDays: number;
}

export interface TransitionContext {
  trx: Trx;
  siteCommissionBps: number;
  graceDays: number;
  effects: Effects;
}

export interface TransitionExtra {
  intentRef?: string | null;
  /** The provider's recurring billing this payment started (first payment of a subscription). */
  subscriptionRef?: string | null;
  /** When the provider took the money (a renewal's period is dated by it); now when absent. */
  at?: Date;
  /** On a refund: what the provider has refunded of the charge so far; less than the amount is a partial refund. */
  refundedAmount?: number | null;
  /** On a refund: this refund alone (a provider without a running total); added to what the payment has refunded. */
  refundAmount?: number | null;
}

export type Transition = (tc: TransitionContext, payment: PaymentRow, extra: TransitionExtra) => Promise<string>;

export interface SettlementDeps {
  db: Db;
  /** The settings a settlement reads (commissionBps, renewalGraceDays). */
  rates(): Promise<SettlementRates>;
}

export interface SettlementResult {
  outcome: string;
  paymentId: string | null;
  effects: Effects;
}

/** The provider must retry later (answered 409, the event is not recorded): e.g. a refund naming a charge we do not know yet. */
export class RetryLater extends AppError {
  constructor(message: string) {
    super(409, 'RETRY_LATER', message);
  }
}

const rank: Record<PaymentStatus, number> = { pending: 0, cancelled: 1, failed: 2, success: 3, refunded: 4, chargeback: 5 };
const paidStates = new Set<PaymentStatus>(['success', 'refunded', 'chargeback']);

export function isSubscriptionPayment(p: Pick<PaymentRow, 'type'>): boolean {
  return p.type === 'subscription_monthly' || p.type === 'subscription_yearly';
}

export function paymentDetails(p: Pick<PaymentRow, 'details'>): { durationDays?: number; description?: string; reason?: string; [k: string]: unknown } {
  try {
    const v = JSON.parse(p.details || '{}');
    return v && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
}

/** Earning source of a payment item. */
function sourceType(item: PaymentItemRow): string {
  return item.objectType === 'performer' ? 'subscription' : item.objectType;
}

// -----------------------------------------------------------------------------------------------------------------
// Effects shared by the transitions.

async function physicalLines(trx: Trx, items: PaymentItemRow[]) {
  const products = await productsByIds(trx, items.filter((i) => i.objectType === 'product').map((i) => i.objectId));
  const physical = new Set(products.filter((p) => p.type === 'physical').map((p) => p.id));
  // Sorted by product id: concurrent transactions lock product rows in the same order (no deadlocks).
  return items
    .filter((i) => i.objectType === 'product' && physical.has(i.objectId))
    .map((i) => ({ productId: i.objectId, quantity: i.quantity }))
    .sort((a, b) => (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0));
}

/** Takes the stock of every line or none: false when some product has too few left. */
export async function takeAllStock(trx: Trx | Db, lines: Array<{ productId: string; quantity: number }>): Promise<{ ok: true } | { ok: false; productId: string }> {
  const taken: typeof lines = [];
  for (const line of lines) {
    if (await takeStock(trx, line.productId, line.quantity)) {
      taken.push(line);
      continue;
    }
    for (const t of taken) await returnStock(trx, t.productId, t.quantity);
    return { ok: false, productId: line.productId };
  }
  return { ok: true };
}

async function creditEarnings(tc: TransitionContext, p: PaymentRow, items: PaymentItemRow[]): Promise<void> {
  const performerIds = [...new Set(items.map((i) => i.performerId).filter((x): x is string => !!x))];
  if (!performerIds.length) return;
  const rates = await commissionRatesOf(tc.trx, performerIds);
  const now = nowIso();
  const rows: Array<Insertable<EarningsTable>> = [];
  for (const item of items) {
    if (!item.performerId) continue;
    const bps = commissionRateFor(rates.get(item.performerId), tc.siteCommissionBps);
    const split = splitCommission(item.unitPrice * item.quantity - item.discount, bps);
    rows.push({
      id: newId(), paymentId: p.id, paymentItemId: item.id, entry: 'credit', performerId: item.performerId, userId: p.userId, sourceType: sourceType(item),
      // Money the sandbox "took" was approved by the buyer themselves: it is test money and never paid out.
      ...split, commissionBps: bps, isPaid: 0, testMoney: p.gateway === 'sandbox' ? 1 : 0, createdAt: now,
    });
  }
  await insertEarnings(tc.trx, rows);
}

/** What is left of each credit of a payment once its partial refunds are taken off, in the credits' order. */
async function remainingCredits(tc: TransitionContext, p: PaymentRow) {
  const credits = await creditsOfPayment(tc.trx, p.id);
  const refunded = await partialRefundsOfPayment(tc.trx, p.id);
  return credits.map((c) => {
    const r = refunded.get(c.paymentItemId ?? '');
    const left: Split = r ? { gross: c.gross + r.gross, commission: c.commission + r.commission, net: c.net + r.net } : { gross: c.gross, commission: c.commission, net: c.net };
    return { credit: c, left };
  });
}

/** The whole refund or chargeback: each item gives back what its partial refunds left of its credit. */
async function reverseEarnings(tc: TransitionContext, p: PaymentRow): Promise<void> {
  const now = nowIso();
  await insertEarnings(
    tc.trx,
    (await remainingCredits(tc, p)).map(({ credit: c, left }) => ({
      id: newId(), paymentId: p.id, paymentItemId: c.paymentItemId, entry: 'reversal' as const, performerId: c.performerId, userId: c.userId,
      sourceType: c.sourceType, ...negate(left), commissionBps: c.commissionBps, isPaid: 0, testMoney: c.testMoney, createdAt: now,
    })),
  );
}

/**
 * A partial refund: the refunded total grows to `refundedTo` (less than the amount). The growth is shared over the
 * items' remaining earnings (pricing.ts shareRefund); access, period and orders stay as paid.
 */
async function refundPart(tc: TransitionContext, p: PaymentRow, refundedTo: number): Promise<string> {
  if (p.status === 'refunded' || p.status === 'chargeback') return 'ignored';
  // The provider refunds only what it took: a partial refund of a payment we have not settled comes again later.
  if (p.status !== 'success') throw new RetryLater('A partial refund of a payment that is not settled yet; retry later');
  if (refundedTo <= p.refundedAmount) return 'ignored';
  const remaining = await remainingCredits(tc, p);
  const shares = shareRefund(refundedTo - p.refundedAmount, remaining.map((r) => r.left));
  const now = nowIso();
  await insertEarnings(
    tc.trx,
    remaining.map(({ credit: c }, i) => ({
      id: newId(), paymentId: p.id, paymentItemId: c.paymentItemId, entry: 'partial_refund' as const, refundedTo, performerId: c.performerId, userId: c.userId,
      sourceType: c.sourceType, ...negate(shares[i]!), commissionBps: c.commissionBps, isPaid: 0, testMoney: c.testMoney, createdAt: now,
    })).filter((row) => row.gross !== 0),
  );
  await updatePayment(tc.trx, p.id, { refundedAmount: refundedTo });
  return 'partially_refunded';
}

async function grantAll(tc: TransitionContext, p: PaymentRow, items: PaymentItemRow[]): Promise<void> {
  const products = new Map((await productsByIds(tc.trx, items.filter((i) => i.objectType === 'product').map((i) => i.objectId))).map((r) => [r.id, r]));
  for (const item of items) {
    const opens =
      item.objectType === 'video' || item.objectType === 'gallery' || item.objectType === 'post' || item.objectType === 'message' ||
      (item.objectType === 'product' && products.get(item.objectId)?.type === 'digital');
    // A tip opens nothing: it is money given, not an object bought.
    if (opens && item.objectType !== 'tip') await grantEntitlement(tc.trx, p.userId, item.objectType, item.objectId, p.id);
  }
}

async function revokeAll(tc: TransitionContext, p: PaymentRow): Promise<void> {
  for (const e of await revokeEntitlementsOf(tc.trx, p.id)) {
    // The same object bought again by another payment stays open through that one.
    const other = await otherPaidPurchase(tc.trx, e.userId, e.objectType, e.objectId, p.id);
    if (other) await grantEntitlement(tc.trx, e.userId, e.objectType, e.objectId, other);
  }
}

// -----------------------------------------------------------------------------------------------------------------
// Transitions, dispatched by action.

const settlePaid: Transition = async (tc, p, extra) => {
  if (paidStates.has(p.status)) return 'already_paid';
  const items = await paymentItems(tc.trx, p.id);
  // A pending payment holds its stock since checkout; a failed or expired one gave it back and must take it again.
  let outOfStock = false;
  let stockHeld = p.stockHeld;
  if (!p.stockHeld) {
    const lines = await physicalLines(tc.trx, items);
    if (lines.length) {
      const taken = await takeAllStock(tc.trx, lines);
      outOfStock = !taken.ok;
      stockHeld = taken.ok ? 1 : 0;
    }
  }
  // Lock order in every transition: payment → products → coupon → subscription → entitlements → orders → earnings → performer.
  // A pending payment holds its coupon use since checkout; one that failed or expired gave it back and takes it
  // again. If none is left by then the use is still counted: the buyer paid the price they were quoted.
  if (p.couponId && !p.couponHeld && !(await reserveCouponUse(tc.trx, p.couponId))) {
    await countCouponUse(tc.trx, p.couponId);
    p = { ...p, details: JSON.stringify({ ...paymentDetails(p), couponOverLimit: true }) };
  }
  const couponHeld = p.couponId ? 1 : 0;
  // One instant for the payment and the period it pays: the provider's time of a renewal, else now.
  const paidAt = extra.at ?? new Date();
  const paid: PaymentRow = { ...p, status: 'success', paidAt: paidAt.toISOString(), gatewayIntentRef: extra.intentRef ?? p.gatewayIntentRef, stockHeld, couponHeld };
  await updatePayment(tc.trx, p.id, { status: 'success', paidAt: paid.paidAt, gatewayIntentRef: paid.gatewayIntentRef, stockHeld, couponHeld, details: p.details });

  const details = paymentDetails(p);
  let subscription: Extract<MoneyMail, { kind: 'receipt' }>['subscription'] = null;
  if (isSubscriptionPayment(p) && p.performerId) {
    const days = details.durationDays ?? (p.type === 'subscription_yearly' ? 365 : 30);
    const before = extra.subscriptionRef ? await subscriptionOf(tc.trx, p.userId, p.performerId) : undefined;
    const { subscription: sub, extended } = await addPaidPeriod(tc.trx, {
      userId: p.userId, performerId: p.performerId, type: p.type === 'subscription_yearly' ? 'yearly' : 'monthly', paymentId: p.id, gateway: p.gateway,
      paidAt: paid.paidAt!, renewal: details.renewal === true,
    });
    if (extra.subscriptionRef) {
      // A fan who subscribes again while an older billing still runs (two checkouts paid at once) is charged by one only.
      if (before?.autoRenew === 1 && before.gatewaySubscriptionId && before.gatewaySubscriptionId !== extra.subscriptionRef) {
        tc.effects.recurringToCancel.push({ gateway: before.gateway ?? p.gateway, ref: before.gatewaySubscriptionId });
      }
      const renewalAmount = typeof details.renewalAmount === 'number' ? details.renewalAmount : p.amount;
      // A free trial's first period (durationDays) is not the renewals' period (periodDays).
      const periodDays = typeof details.periodDays === 'number' && details.periodDays > 0 ? details.periodDays : days;
      await startRecurring(tc.trx, sub.id, { ref: extra.subscriptionRef, renewalAmount, currency: p.currency, periodDays });
    }
    tc.effects.notifications.push({
      userId: p.userId, event: 'subscription/success', payload: { subscriptionId: sub.id, performerId: p.performerId, paymentId: p.id, expiresAt: sub.expiresAt },
    });
    const type = sub.type === 'yearly' ? 'yearly' : 'monthly';
    const renewal = details.renewal === true;
    subscription = { type, expiresAt: sub.expiresAt, renews: !!extra.subscriptionRef || sub.autoRenew === 1, renewal };
    // A renewal, or a payment that lengthened a running subscription (paid again before its end), brings nobody new;
    // nor does one whose refund arrived first (its period is taken back below).
    if (!renewal && !extended && !p.deferredReversal) {
      tc.effects.mails.push({ kind: 'new-subscriber', performerId: p.performerId, fanId: p.userId, type, amount: p.amount, currency: p.currency });
      await notifyNewSubscriber(tc.trx, p, p.performerId, sub.id);
      tc.effects.notified.push(p.performerId);
    }
  }
  await grantAll(tc, paid, items);
  await markOrdersPaid(tc.trx, p.id);
  await creditEarnings(tc, paid, items);
  if (isSubscriptionPayment(p) && p.performerId) await recountSubscribers(tc.trx, p.performerId);
  // A tip tells its performer, here where it is paid (so once, whatever the provider repeats); not one whose refund
  // or chargeback came first: that money is already back with the fan.
  if (p.type === 'tip' && !p.deferredReversal) {
    const pushes = await tipPaid(tc.trx, p);
    tc.effects.notifications.push(...pushes);
    tc.effects.notified.push(...pushes.map((n) => n.userId));
  }
  if (!isSubscriptionPayment(p) && !outOfStock && !p.deferredReversal) {
    tc.effects.notified.push(...(await notifySale(tc.trx, paid, items, typeof details.description === 'string' ? details.description : p.type)));
  }

  tc.effects.notifications.push({
    userId: p.userId, event: 'payment/success', payload: { paymentId: p.id, type: p.type, targetId: p.targetId, amount: p.amount, currency: p.currency },
  });
  tc.effects.mails.push({
    kind: 'receipt', userId: p.userId, paymentId: p.id, paymentType: p.type, performerId: p.performerId, paidAt: paid.paidAt!, amount: p.amount,
    originalPrice: p.originalPrice, discount: p.discount, currency: p.currency, subscription,
    description: typeof details.description === 'string' ? details.description : p.type,
    couponCode: typeof details.couponCode === 'string' ? details.couponCode : null,
    // Paid and given back in this same transaction (below): the receipt says so.
    reversal: outOfStock ? 'out_of_stock' : (p.deferredReversal ?? null),
  });

  if (outOfStock) {
    // Paid after the reservation ended and the stock is gone: never oversell; the money goes back.
    await updatePayment(tc.trx, p.id, { details: JSON.stringify({ ...paymentDetails(p), reason: 'out_of_stock' }) });
    // A refund or chargeback that came first already gave it back at the provider: that one is applied below (the
    // same end as in the other order), and no refund is asked for.
    if (!p.deferredReversal) {
      await reverse('refunded')(tc, paid, extra);
      tc.effects.refundsDue.push(paid);
      return 'paid_out_of_stock_refunded';
    }
  }
  if (p.deferredReversal) {
    const outcome = await reverse(p.deferredReversal)(tc, paid, extra);
    return `paid_then_${outcome}`;
  }
  return 'paid';
};

function unpaid(status: 'failed' | 'cancelled'): Transition {
  return async (tc, p) => {
    if (p.status === 'pending') {
      if (p.stockHeld) {
        for (const line of await physicalLines(tc.trx, await paymentItems(tc.trx, p.id))) await returnStock(tc.trx, line.productId, line.quantity);
      }
      if (p.couponHeld && p.couponId) await releaseCouponUse(tc.trx, p.couponId);
      await updatePayment(tc.trx, p.id, { status, stockHeld: 0, couponHeld: 0 });
      await markOrdersCancelled(tc.trx, p.id);
      return status;
    }
    if ((p.status === 'cancelled' || p.status === 'failed') && rank[status] > rank[p.status]) {
      await updatePayment(tc.trx, p.id, { status });
      return 'relabelled';
    }
    return 'ignored';
  };
}

function reverse(kind: 'refunded' | 'chargeback'): Transition {
  return async (tc, p, extra) => {
    const refundedTo = extra.refundedAmount ?? (extra.refundAmount != null ? p.refundedAmount + extra.refundAmount : null);
    if (kind === 'refunded' && refundedTo != null && refundedTo < p.amount) return refundPart(tc, p, refundedTo);
    if (p.status === 'success') {
      await updatePayment(tc.trx, p.id, { status: kind, reversedAt: nowIso(), deferredReversal: null });
      if (isSubscriptionPayment(p) && p.performerId) {
        await removePaidPeriod(tc.trx, { userId: p.userId, performerId: p.performerId });
      }
      await revokeAll(tc, p);
      await markOrdersRefunded(tc.trx, p.id);
      await reverseEarnings(tc, p);
      if (isSubscriptionPayment(p) && p.performerId) await recountSubscribers(tc.trx, p.performerId);
      return kind;
    }
    if (p.status === 'refunded' || p.status === 'chargeback') {
      if (rank[kind] > rank[p.status]) {
        await updatePayment(tc.trx, p.id, { status: kind });
        return 'relabelled';
      }
      return 'ignored';
    }
    // Not paid (yet): remember it; "paid" applies it in the same transaction.
    const next = p.deferredReversal && rank[p.deferredReversal] >= rank[kind] ? p.deferredReversal : kind;
    if (next !== p.deferredReversal) await updatePayment(tc.trx, p.id, { deferredReversal: next });
    return 'deferred';
  };
}

export const transitions: Record<SettlementAction, Transition> = {
  paid: settlePaid,
  failed: unpaid('failed'),
  cancelled: unpaid('cancelled'),
  refunded: reverse('refunded'),
  chargeback: reverse('chargeback'),
};

// -----------------------------------------------------------------------------------------------------------------
// Entry points.

const RETRYABLE = new Set(['40P01', '40001', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_LOCKED']);

/** A transaction retried on deadlock / serialization failure / busy database (its work is all-or-nothing). */
export async function inTransaction<T>(db: Db, fn: (trx: Trx) => Promise<T>, attempts = 6): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await db.transaction().execute(fn);
    } catch (err) {
      const code = (err as { code?: string } | null)?.code;
      if (i >= attempts || !code || !RETRYABLE.has(code)) throw err;
      await new Promise((r) => setTimeout(r, 5 * i + Math.random() * 20));
    }
  }
}

const noEffects = (): Effects => ({ notifications: [], refundsDue: [], recurringToCancel: [], mails: [], notified: [] });

/**
 * A verified provider event: recorded under its unique (gateway, event id) first, then applied, all in one
 * transaction. A duplicate changes nothing; an event for a payment we cannot match yet rolls back (RetryLater).
 */
export async function applyGatewayEvent(deps: SettlementDeps, gateway: GatewayName, event: GatewayEvent, payload: string): Promise<SettlementResult> {
  const rates = await deps.rates();
  return inTransaction(deps.db, (trx) => applyGatewayEventIn(trx, rates, gateway, event, payload));
}

/**
 * The body of `applyGatewayEvent`, inside a transaction the caller owns. The demo seed settles its demo fans'
 * subscriptions through it, in the seed's one transaction, so their payments, periods, earnings and subscriber counts
 * are what a real webhook would have written.
 */
export async function applyGatewayEventIn(trx: Trx, rates: SettlementRates, gateway: GatewayName, event: GatewayEvent, payload: string): Promise<SettlementResult> {
  const effects = noEffects();
  const tc: TransitionContext = { trx, siteCommissionBps: rates.commissionBps, graceDays: rates.graceDays, effects };
  const fresh = await recordWebhookEvent(trx, { gateway, eventId: event.id, type: event.type, payload });
  if (!fresh) return { outcome: 'duplicate', paymentId: null, effects };
  const done = async (outcome: string, paymentId: string | null) => {
    await setWebhookOutcome(trx, gateway, event.id, outcome, paymentId);
    return { outcome, paymentId, effects };
  };
  if (!event.action) return done('ignored_type', null);
  if (isSubscriptionAction(event.action)) {
    const r = await applySubscriptionEvent(tc, gateway, { ...event, action: event.action }, transitions.paid);
    if (r.outcome === 'retry_later') throw new RetryLater('The subscription of this renewal is not known yet; retry later');
    return done(r.outcome, r.paymentId);
  }
  const found = await findPaymentForEvent(trx, gateway, event);
  if (!found) {
    if (!event.paymentId && event.intentRef && (event.action === 'refunded' || event.action === 'chargeback')) {
      throw new RetryLater('The charge of this event is not known yet; retry later');
    }
    return done('unknown_payment', null);
  }
  const payment = (await lockPayment(trx, found.id))!;
  if (event.gatewayRef && payment.gatewayRef && event.gatewayRef !== payment.gatewayRef) {
    return done('reference_mismatch', payment.id);
  }
  if (event.action === 'paid' && ((event.amount != null && event.amount !== payment.amount) || (event.currency && event.currency !== payment.currency))) {
    return done('amount_mismatch', payment.id);
  }
  // A first payment's period starts when we settle it, whatever time the provider writes on its event.
  // A refund's amount in another currency than the payment's cannot be a part of it: the refund is taken as whole.
  const sameCurrency = !event.currency || event.currency === payment.currency;
  const outcome = await transitions[event.action](tc, payment, {
    intentRef: event.intentRef, subscriptionRef: event.subscriptionRef,
    refundedAmount: sameCurrency ? event.refundedAmount : null, refundAmount: sameCurrency ? event.refundAmount : null,
  });
  return done(outcome, payment.id);
}

/** A transition decided by us rather than a provider (checkout expired, the gateway refused to create a checkout). */
export async function applyInternal(deps: SettlementDeps, paymentId: string, action: SettlementAction, reason: string): Promise<SettlementResult> {
  const rates = await deps.rates();
  return inTransaction(deps.db, async (trx) => {
    const effects = noEffects();
    const payment = await lockPayment(trx, paymentId);
    if (!payment) return { outcome: 'unknown_payment', paymentId: null, effects };
    const outcome = await transitions[action]({ trx, siteCommissionBps: rates.commissionBps, graceDays: rates.graceDays, effects }, payment, {});
    if (outcome === action) await updatePayment(trx, paymentId, { details: JSON.stringify({ ...paymentDetails(payment), reason }) });
    return { outcome, paymentId, effects };
  });
}
