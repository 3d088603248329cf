import { sql, type Selectable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { newId, nowIso } from '../db/ids.js';
import type { SubscriptionsTable } from '../db/schema.js';
import { idElseAlt, performerOpenTo, type Audience } from '../catalogue/catalogue.repository.js';
import { liveSubscription } from '../access/access.repository.js';
import type { SubscriptionType } from '../../common/enums.js';
import { DAY_MS } from '../../common/time.js';

/**
 * SQL of subscriptions. One row per (user, performer) (subscriptions_user_performer). What the paywall reads
 * (server/access/access.repository.ts): a subscription is live while status = 'active' AND expires_at > now. A
 * cancellation keeps status 'active' with cancel_at_period_end = 1, so access lasts until expires_at.
 */

export type SubscriptionRow = Selectable<SubscriptionsTable>;

export function findSubscription(db: DbOrTrx, userId: string, performerId: string) {
  return db.selectFrom('subscriptions').selectAll().where('userId', '=', userId).where('performerId', '=', performerId).executeTakeFirst();
}

export function findSubscriptionById(db: DbOrTrx, id: string) {
  return db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The (user, performer) row, created 'pending' at checkout when the user never subscribed before. */
export async function ensureSubscriptionRow(db: DbOrTrx, userId: string, performerId: string, type: SubscriptionType, gateway: string): Promise<void> {
  const now = nowIso();
  await db
    .insertInto('subscriptions')
    .values({ id: newId(), userId, performerId, type, status: 'pending', gateway, createdAt: now, updatedAt: now })
    .onConflict((oc) => oc.columns(['userId', 'performerId']).doNothing())
    .execute();
}

/** Locks the row (see lockPayment) and returns it. */
async function lockSubscription(db: DbOrTrx, userId: string, performerId: string): Promise<SubscriptionRow | undefined> {
  await db.updateTable('subscriptions').set({ updatedAt: nowIso() }).where('userId', '=', userId).where('performerId', '=', performerId).execute();
  return findSubscription(db, userId, performerId);
}

/**
 * Whether the fan ever subscribed to the performer, for the offers made to new subscribers only (a trial, a
 * promotion): a subscription that ever started, or a subscription payment that was paid (refunded or charged back
 * since, too: the offer was used) or is still open (an unpaid checkout whose time has not run out; a failed,
 * cancelled or expired one does not count, so a fan who gave up on the provider's page can take the offer again).
 */
export async function everSubscribed(db: DbOrTrx, userId: string, performerId: string, now = nowIso()): Promise<boolean> {
  // One statement: a fan who never subscribed (most who see a paywall) took two before.
  const row = await db
    .selectNoFrom((eb) =>
      eb
        .or([
          eb.exists(eb.selectFrom('subscriptions').select('id').where('userId', '=', userId).where('performerId', '=', performerId).where('startedAt', 'is not', null)),
          eb.exists(
            eb
              .selectFrom('payments')
              .select('id')
              .where('userId', '=', userId)
              .where('performerId', '=', performerId)
              .where('type', 'in', ['subscription_monthly', 'subscription_yearly'])
              .where((p) => p.or([p('status', 'in', ['success', 'refunded', 'chargeback']), p.and([p('status', '=', 'pending'), p('expiresAt', '>', now)])])),
          ),
        ])
        .as('returning'),
    )
    .executeTakeFirstOrThrow();
  // SQLite answers 0 or 1, PostgreSQL a boolean: Number() makes both 0 or 1.
  return Number(row.returning) === 1;
}

/**
 * The checkout of a new subscriber's offer holds the (user, performer) row for the rest of its transaction, so two
 * checkouts of one fan decide one after the other: the second one's `everSubscribed` sees the first one's payment
 * (on PostgreSQL the UPDATE waits for the first to commit, and the next statement reads what it committed).
 */
export async function holdSubscriptionRow(db: DbOrTrx, userId: string, performerId: string, type: SubscriptionType, gateway: string): Promise<void> {
  await ensureSubscriptionRow(db, userId, performerId, type, gateway);
  await lockSubscription(db, userId, performerId);
}

export function isLive(s: Pick<SubscriptionRow, 'status' | 'expiresAt'>, now = nowIso()): boolean {
  return s.status === 'active' && !!s.expiresAt && s.expiresAt > now;
}

/**
 * The paid periods of a (user, performer), from its subscription payments that are paid and not reversed, in the
 * order the money was taken (`paid_at`: the settlement's time, or the provider's time of a renewal): each one extends
 * the running period from its end, or starts a new one at its own time when the previous had already ended (a
 * renewal recovered after its period ran out, a subscription bought again). Derived from the set of payments, never
 * from the row as it happens to be, so the end is the same whatever order the provider's events arrived in (a later
 * cycle's renewal delivered before an earlier one, a refund overtaking its renewal).
 */
async function paidPeriods(db: DbOrTrx, userId: string, performerId: string): Promise<{ start: number; end: number } | null> {
  const paid = await db
    .selectFrom('payments')
    .select(['type', 'paidAt', 'details'])
    .where('userId', '=', userId)
    .where('performerId', '=', performerId)
    .where('type', 'in', ['subscription_monthly', 'subscription_yearly'])
    .where('status', '=', 'success')
    .where('paidAt', 'is not', null)
    .orderBy('paidAt')
    .orderBy('id')
    .execute();
  let run: { start: number; end: number } | null = null;
  for (const p of paid) {
    const at = Date.parse(p.paidAt!);
    const days = periodDaysOf(p);
    run = run && run.end >= at ? { start: run.start, end: run.end + days * DAY_MS } : { start: at, end: at + days * DAY_MS };
  }
  return run;
}

function periodDaysOf(p: { type: string; details: string }): number {
  try {
    const d = JSON.parse(p.details || '{}') as { durationDays?: unknown };
    if (typeof d.durationDays === 'number' && d.durationDays > 0) return d.durationDays;
  } catch {
    // an unreadable detail falls back to the type's length
  }
  return p.type === 'subscription_yearly' ? 365 : 30;
}

/**
 * A payment of the subscription was paid (its row already says so): the period is what the paid payments add up to
 * (`paidPeriods`). A new checkout's payment also withdraws an earlier cancellation (the user subscribed again); a
 * renewal does not (a cancellation that crossed the provider's charge still stands, whichever arrived first). Either
 * clears a failed renewal and the reminder of the period before. `extended`: the period this payment joins started
 * before it (a running subscription was extended), so it did not bring a new subscriber.
 */
export async function addPaidPeriod(
  db: DbOrTrx,
  p: { userId: string; performerId: string; type: SubscriptionType; paymentId: string; gateway: string; paidAt: string; renewal?: boolean },
): Promise<{ subscription: SubscriptionRow; extended: boolean }> {
  let row = await lockSubscription(db, p.userId, p.performerId);
  if (!row) {
    await ensureSubscriptionRow(db, p.userId, p.performerId, p.type, p.gateway);
    row = (await lockSubscription(db, p.userId, p.performerId))!;
  }
  const run = (await paidPeriods(db, p.userId, p.performerId))!;
  await db
    .updateTable('subscriptions')
    .set({
      status: 'active', type: p.type, startedAt: new Date(run.start).toISOString(), expiresAt: new Date(run.end).toISOString(),
      ...(p.renewal ? {} : { cancelAtPeriodEnd: 0, cancelledAt: null }),
      gateway: p.gateway, lastPaymentId: p.paymentId, renewalFailedAt: null, graceUntil: null, renewalRemindedAt: null, updatedAt: nowIso(),
    })
    .where('id', '=', row.id)
    .execute();
  return { subscription: (await findSubscriptionById(db, row.id))!, extended: run.start < Date.parse(p.paidAt) };
}

/**
 * A payment of the subscription was refunded or charged back (its row already says so): its period is no longer
 * paid for, so the end is what the remaining paid payments add up to. When that end has passed (or nothing paid is
 * left), the subscription closes at once (status 'cancelled', expires_at no later than now).
 */
export async function removePaidPeriod(db: DbOrTrx, p: { userId: string; performerId: string }): Promise<SubscriptionRow | undefined> {
  const row = await lockSubscription(db, p.userId, p.performerId);
  if (!row || !row.expiresAt) return row;
  const now = nowIso();
  const run = await paidPeriods(db, p.userId, p.performerId);
  const end = run ? new Date(run.end).toISOString() : now;
  if (run && end > now && row.status === 'active') {
    await db.updateTable('subscriptions').set({ startedAt: new Date(run.start).toISOString(), expiresAt: end, updatedAt: now }).where('id', '=', row.id).execute();
  } else {
    await db
      .updateTable('subscriptions')
      .set({ status: 'cancelled', expiresAt: end < now ? end : now, cancelledAt: row.cancelledAt ?? now, updatedAt: now })
      .where('id', '=', row.id)
      .execute();
  }
  return findSubscriptionById(db, row.id);
}

// -----------------------------------------------------------------------------------------------------------------
// Recurring billing (server/payments/README.md, "Recurring billing").

/** The subscription a provider's recurring billing belongs to, locked for the rest of the transaction. */
export async function lockSubscriptionByGatewayRef(db: DbOrTrx, gateway: string, ref: string): Promise<SubscriptionRow | undefined> {
  await db.updateTable('subscriptions').set({ updatedAt: nowIso() }).where('gateway', '=', gateway).where('gatewaySubscriptionId', '=', ref).execute();
  return db.selectFrom('subscriptions').selectAll().where('gateway', '=', gateway).where('gatewaySubscriptionId', '=', ref).executeTakeFirst();
}

/**
 * The first payment of a recurring subscription was taken: from now on the provider charges `renewalAmount` every
 * `periodDays` under `ref`. A subscription replaced by a new recurring billing (the fan subscribed again after a
 * cancellation) forgets the old one, which was cancelled at the provider.
 */
export async function startRecurring(
  db: DbOrTrx,
  id: string,
  terms: { ref: string; renewalAmount: number; currency: string; periodDays: number },
): Promise<void> {
  await db
    .updateTable('subscriptions')
    .set({
      gatewaySubscriptionId: terms.ref, autoRenew: 1, renewalAmount: terms.renewalAmount, renewalCurrency: terms.currency, periodDays: terms.periodDays,
      updatedAt: nowIso(),
    })
    .where('id', '=', id)
    .execute();
}

/** A renewal failed at `at`: the provider retries until `graceUntil`; access already follows expires_at. */
export async function markRenewalFailed(db: DbOrTrx, id: string, at: string, graceUntil: string): Promise<void> {
  await db.updateTable('subscriptions').set({ renewalFailedAt: at, graceUntil, updatedAt: nowIso() }).where('id', '=', id).execute();
}

/**
 * No more renewals; access lasts to the end of what was paid. `cancelled`: the subscriber (or the provider on their
 * behalf) cancelled, shown as cancelled; `lapsed`: renewals failed past the grace period, shown as expired.
 */
export async function stopRenewing(db: DbOrTrx, id: string, why: 'cancelled' | 'lapsed', at = nowIso()): Promise<void> {
  // A failure recorded before the end is moot once nothing renews (and one arriving after it is ignored): cleared, so
  // the row is the same whichever came first.
  await db.updateTable('subscriptions').set({ autoRenew: 0, renewalFailedAt: null, graceUntil: null, updatedAt: nowIso() }).where('id', '=', id).execute();
  if (why === 'cancelled') {
    await db.updateTable('subscriptions').set({ cancelAtPeriodEnd: 1, cancelledAt: at }).where('id', '=', id).where('cancelAtPeriodEnd', '=', 0).execute();
  }
}

/**
 * Renewing subscriptions whose period ended more than the grace period before `now` without a successful renewal
 * (failed, or the provider never said): they lapse. Returned so the caller stops them here and at the provider.
 */
export function renewalsPastGrace(db: DbOrTrx, cutoff: string, limit = 500) {
  return db
    .selectFrom('subscriptions')
    .select(['id', 'userId', 'performerId', 'type', 'expiresAt', 'gateway', 'gatewaySubscriptionId'])
    .where('autoRenew', '=', 1)
    .where('expiresAt', '<=', cutoff)
    .orderBy('expiresAt')
    .limit(limit)
    .execute();
}

/** Stops a renewing subscription whose period ended before `cutoff`; false when it renewed or stopped meanwhile. */
export async function lapseIfUnrenewed(db: DbOrTrx, id: string, cutoff: string): Promise<boolean> {
  const res = await db
    .updateTable('subscriptions')
    .set({ autoRenew: 0, updatedAt: nowIso() })
    .where('id', '=', id)
    .where('autoRenew', '=', 1)
    .where('expiresAt', '<=', cutoff)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * Yearly subscriptions that renew within (now, until] and whose subscriber was not reminded of it in this period (the
 * reminder job; a failed renewal is past reminding).
 */
export function renewalsToRemind(db: DbOrTrx, now: string, until: string, limit = 500) {
  return db
    .selectFrom('subscriptions')
    .select(['id', 'userId', 'performerId', 'type', 'expiresAt', 'renewalAmount', 'renewalCurrency'])
    .where('autoRenew', '=', 1)
    .where('type', '=', 'yearly')
    .where('status', '=', 'active')
    .where('renewalFailedAt', 'is', null)
    .where('renewalRemindedAt', 'is', null)
    .where('expiresAt', '>', now)
    .where('expiresAt', '<=', until)
    .orderBy('expiresAt')
    .limit(limit)
    .execute();
}

/**
 * Marks the reminder of this period sent, only if nobody did and it still renews at `expiresAt`: true for the one
 * caller that may mail it (two money clocks at once, or a renewal or cancellation in between).
 */
export async function claimRenewalReminder(db: DbOrTrx, id: string, expiresAt: string, at = nowIso()): Promise<boolean> {
  const res = await db
    .updateTable('subscriptions')
    .set({ renewalRemindedAt: at })
    .where('id', '=', id)
    .where('renewalRemindedAt', 'is', null)
    .where('autoRenew', '=', 1)
    .where('renewalFailedAt', 'is', null)
    .where('expiresAt', '=', expiresAt)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** A performer's subscribers by state, for the studio: live (of them renewing or cancelled), in grace, lapsed. */
export async function subscriberCounts(db: DbOrTrx, performerId: string, now = nowIso()) {
  const row = await db
    .selectFrom('subscriptions')
    .select([
      sql<number | string>`sum(case when status = 'active' and expires_at > ${now} then 1 else 0 end)`.as('live'),
      sql<number | string>`sum(case when status = 'active' and expires_at > ${now} and auto_renew = 1 then 1 else 0 end)`.as('renewing'),
      sql<number | string>`sum(case when status = 'active' and expires_at > ${now} and cancel_at_period_end = 1 then 1 else 0 end)`.as('cancelled'),
      sql<number | string>`sum(case when auto_renew = 1 and renewal_failed_at is not null and (expires_at is null or expires_at <= ${now}) then 1 else 0 end)`.as('inGrace'),
    ])
    .where('performerId', '=', performerId)
    .executeTakeFirst();
  const n = (v: unknown) => Number(v ?? 0);
  return { live: n(row?.live), renewing: n(row?.renewing), cancelled: n(row?.cancelled), inGrace: n(row?.inGrace) };
}

/**
 * Cancel at period end: status stays 'active' until expires_at (the paywall keeps it open until then). False when it
 * was cancelled already (by an earlier request, or by the provider's event that crossed this one).
 */
export async function cancelAtPeriodEnd(db: DbOrTrx, id: string): Promise<boolean> {
  const now = nowIso();
  const res = await db
    .updateTable('subscriptions')
    .set({ cancelAtPeriodEnd: 1, cancelledAt: now, autoRenew: 0, updatedAt: now })
    .where('id', '=', id)
    .where('cancelAtPeriodEnd', '=', 0)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** The performers with a subscription still marked active past its end (closeLapsed then recounts them). */
export async function performersWithLapsedSubscriptions(db: DbOrTrx, now: string): Promise<string[]> {
  const rows = await db.selectFrom('subscriptions').select('performerId').distinct().where('status', '=', 'active').where('expiresAt', '<=', now).execute();
  return rows.map((r) => r.performerId);
}

/** Marks lapsed subscriptions: cancelled ones become 'cancelled', the others 'expired' (display; access already ended). */
export async function closeLapsed(db: DbOrTrx, now = nowIso()): Promise<number> {
  const cancelled = await db
    .updateTable('subscriptions')
    .set({ status: 'cancelled', updatedAt: now })
    .where('status', '=', 'active')
    .where('expiresAt', '<=', now)
    .where('cancelAtPeriodEnd', '=', 1)
    .executeTakeFirst();
  const expired = await db
    .updateTable('subscriptions')
    .set({ status: 'expired', updatedAt: now })
    .where('status', '=', 'active')
    .where('expiresAt', '<=', now)
    .executeTakeFirst();
  return Number(cancelled.numUpdatedRows) + Number(expired.numUpdatedRows);
}

/**
 * performers.subscriber_count = live subscriptions, recounted inside the transaction that changed them. The row is
 * locked first and counted by the next statement: on PostgreSQL (READ COMMITTED) a count inside the locking UPDATE
 * would read the snapshot taken before it waited, so of two subscriptions paid at once the second commit wrote a
 * count without the first (tests/api/concurrency.test.ts). A statement started after the wait sees it.
 */
export async function recountSubscribers(db: DbOrTrx, performerId: string): Promise<void> {
  await db.updateTable('performers').set({ subscriberCount: sql<number>`subscriber_count` }).where('id', '=', performerId).execute();
  const now = nowIso();
  await db
    .updateTable('performers')
    .set({
      subscriberCount: sql<number>`(select count(*) from subscriptions s where s.performer_id = ${performerId} and s.status = 'active' and s.expires_at > ${now})`,
    })
    .where('id', '=', performerId)
    .execute();
}

// -----------------------------------------------------------------------------------------------------------------
// Lists.

export type SubscriptionListStatus = 'live' | 'active' | 'cancelled' | 'expired' | 'pending' | 'all';

export interface SubscriptionFilters {
  status: SubscriptionListStatus;
  performerId?: string;
  userId?: string;
  limit: number;
  offset: number;
}

function statusFilter<Q extends { where: (...args: any[]) => Q }>(q: Q, status: SubscriptionListStatus, now: string): Q {
  switch (status) {
    case 'live':
      return q.where(liveSubscription(now));
    case 'active':
      return q.where(liveSubscription(now)).where('subscriptions.cancelAtPeriodEnd', '=', 0);
    case 'cancelled':
      return q.where((eb: any) =>
        eb.or([eb('subscriptions.status', '=', 'cancelled'), eb.and([eb('subscriptions.status', '=', 'active'), eb('subscriptions.cancelAtPeriodEnd', '=', 1)])]),
      );
    case 'expired':
      return q.where((eb: any) =>
        eb.or([eb('subscriptions.status', '=', 'expired'), eb.and([eb('subscriptions.status', '=', 'active'), eb('subscriptions.expiresAt', '<=', now)])]),
      );
    case 'pending':
      return q.where('subscriptions.status', '=', 'pending');
    default:
      return q.where('subscriptions.status', '!=', 'pending');
  }
}

export async function listSubscriptions(db: DbOrTrx, f: SubscriptionFilters) {
  const now = nowIso();
  let base = db.selectFrom('subscriptions');
  if (f.userId) base = base.where('subscriptions.userId', '=', f.userId);
  if (f.performerId) base = base.where('subscriptions.performerId', '=', f.performerId);
  base = statusFilter(base, f.status, now);
  const [rows, count] = await Promise.all([
    base.selectAll('subscriptions').orderBy('subscriptions.updatedAt', 'desc').orderBy('subscriptions.id', 'desc').limit(f.limit).offset(f.offset).execute(),
    base.select(sql<number | string>`count(*)`.as('n')).executeTakeFirst(),
  ]);
  return { rows, total: Number(count?.n ?? 0) };
}

/** A performer by id or username, with what a subscription checkout needs. */
/** A performer by id or username; `openToBuyer`: 1 unless they block the buyer's country (`a`). */
export function findPerformerForSale(db: DbOrTrx, key: string, a: Audience) {
  return db
    .selectFrom('performers')
    .select(['id', 'username', 'displayName', 'monthlyPrice', 'yearlyPrice', 'trialDays', 'bundle3Bps', 'bundle6Bps', 'bundle12Bps', 'status', 'approved'])
    .select(performerOpenTo('performers.id', a).as('openToBuyer'))
    .where(idElseAlt('performers', 'username', key))
    .limit(1)
    .executeTakeFirst();
}

/** A performer's own subscription prices (0 = not set: the site's package price applies). */
export function performerPrices(db: DbOrTrx, performerId: string) {
  return db
    .selectFrom('performers')
    .select(['monthlyPrice', 'yearlyPrice', 'trialDays', 'bundle3Bps', 'bundle6Bps', 'bundle12Bps'])
    .where('id', '=', performerId)
    .executeTakeFirst();
}

/**
 * The active monthly and yearly packages, the first of each by ordering, read together (a paywall needs both, and
 * every page with one showed them as two statements).
 */
export async function activePackages(db: DbOrTrx) {
  const rows = await db
    .selectFrom('subscriptionPackages')
    .selectAll()
    .where('type', 'in', ['monthly', 'yearly'])
    .where('status', '=', 'active')
    .orderBy('ordering')
    .orderBy('id')
    .execute();
  return { monthly: rows.find((r) => r.type === 'monthly'), yearly: rows.find((r) => r.type === 'yearly') };
}

export type ActivePackages = Awaited<ReturnType<typeof activePackages>>;

