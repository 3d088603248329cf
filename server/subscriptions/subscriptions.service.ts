import type { DbOrTrx } from '../db/database.js';
import { nowIso } from '../db/ids.js';
import { AppError, badRequest, notFound } from '../http/errors.js';
import type { Money } from '../payments/money.js';
import { isGatewayName } from '../payments/gateway.js';
import { sendMoneyMails } from '../payments/money-mail.js';
import type { ListResult } from '../../common/schemas/http.js';
import type { PlanOffer, SubscriberStats, SubscriptionItem, SubscriptionOffer } from '../../common/schemas/money.js';
import { runningPromotions } from '../coupons/coupons.repository.js';
import { BUNDLE_MONTHS, firstPeriod, planTerms, promotionLeft, promotionPrice, type Plan } from './offers.js';
import { loadPerformerSummaries, loadUserSummaries } from '../payments/summaries.repository.js';
import {
  activePackages, type ActivePackages, cancelAtPeriodEnd, everSubscribed, findSubscription, findSubscriptionById, isLive, listSubscriptions, performerPrices, subscriberCounts, type SubscriptionFilters,
  type SubscriptionRow,
} from './subscriptions.repository.js';
import type { SubscriptionType } from '../../common/enums.js';
import { MONTH_DAYS } from '../../common/offers.js';

/** The bundle a monthly subscription's period stands for (90, 180 or 360 days), else null. */
function bundleMonthsOf(s: Pick<SubscriptionRow, 'type' | 'periodDays'>): number | null {
  if (s.type === 'yearly' || !s.periodDays || s.periodDays % MONTH_DAYS !== 0) return null;
  const months = s.periodDays / MONTH_DAYS;
  return (BUNDLE_MONTHS as readonly number[]).includes(months) ? months : null;
}

/**
 * Subscriptions are periods (30 or 365 days, or a package's) bought through a checkout and renewed by the provider
 * until cancelled (server/payments/README.md, "Recurring billing"). Cancelling stops the billing at the provider and
 * keeps the subscription live (status 'active', cancel_at_period_end) until expires_at, which is what the paywall reads.
 */

export async function toSubscriptionItems(db: DbOrTrx, rows: SubscriptionRow[]): Promise<SubscriptionItem[]> {
  const [users, performers] = await Promise.all([loadUserSummaries(db, rows.map((r) => r.userId)), loadPerformerSummaries(db, rows.map((r) => r.performerId))]);
  const now = nowIso();
  return rows.map((s) => {
    const live = isLive(s, now);
    const status: SubscriptionItem['status'] = s.status === 'active' && !live ? (s.cancelAtPeriodEnd ? 'cancelled' : 'expired') : s.status;
    return {
      _id: s.id, userId: s.userId, performerId: s.performerId, user: users.get(s.userId) ?? null, performer: performers.get(s.performerId) ?? null,
      type: s.type === 'yearly' ? 'yearly' : 'monthly', bundleMonths: bundleMonthsOf(s), status, isLive: live, cancelAtPeriodEnd: s.cancelAtPeriodEnd === 1,
      startedAt: s.startedAt, expiresAt: s.expiresAt, cancelledAt: s.cancelledAt, createdAt: s.createdAt,
      autoRenew: s.autoRenew === 1, nextBillingAt: s.autoRenew === 1 && !s.renewalFailedAt ? s.expiresAt : null,
      renewalAmount: s.autoRenew === 1 ? s.renewalAmount : null, renewalCurrency: s.autoRenew === 1 ? s.renewalCurrency : null,
      renewalFailedAt: s.autoRenew === 1 ? s.renewalFailedAt : null, graceUntil: s.autoRenew === 1 ? s.graceUntil : null,
    };
  });
}

export async function searchSubscriptions(db: DbOrTrx, f: SubscriptionFilters): Promise<ListResult<SubscriptionItem>> {
  const { rows, total } = await listSubscriptions(db, f);
  return { items: await toSubscriptionItems(db, rows), total };
}

/**
 * Cancel at period end; cancelling again changes nothing. Only the subscriber (or an admin) may. A renewing
 * subscription is stopped at its provider FIRST: when the provider cannot be reached nothing changes here (502) and
 * the subscriber can try again, so "cancelled" on our side always means no further charge. A subscription whose
 * renewal failed can be cancelled too (its retries stop). The subscriber is mailed once it is written (not when it was
 * cancelled already: by an earlier request, or by the provider's own event that crossed this one and mailed them).
 */
export async function cancelSubscription(money: Money, viewer: { id: string; role: string }, by: { id?: string; performerId?: string }): Promise<SubscriptionItem> {
  const { db } = money.ctx;
  let row: SubscriptionRow | undefined;
  if (by.id) row = await findSubscriptionById(db, by.id);
  else if (by.performerId) row = await findSubscription(db, viewer.id, by.performerId);
  else throw badRequest('Name the subscription (subscriptionId) or the performer (performerId)');
  if (!row || (row.userId !== viewer.id && viewer.role !== 'admin')) throw notFound('Subscription');
  const renewing = row.autoRenew === 1 && !!row.gatewaySubscriptionId;
  if (!isLive(row) && !renewing) throw badRequest('This subscription is not active');
  if (renewing) {
    try {
      if (!isGatewayName(row.gateway)) throw new Error(`unknown gateway ${row.gateway}`);
      await (await money.gateway(row.gateway)).cancelSubscription(row.gatewaySubscriptionId!);
    } catch (err) {
      money.ctx.logger.error({ err: (err as Error).message, subscriptionId: row.id }, 'renewal could not be stopped at the provider');
      throw new AppError(502, 'GATEWAY_ERROR', 'The payment provider could not stop the renewal right now; nothing was changed, please try again');
    }
  }
  if (await cancelAtPeriodEnd(db, row.id)) {
    await sendMoneyMails(money.ctx, [
      { kind: 'subscription-cancelled', userId: row.userId, performerId: row.performerId, type: row.type === 'yearly' ? 'yearly' : 'monthly', expiresAt: row.expiresAt, atProvider: false, at: nowIso() },
    ]);
  }
  return (await toSubscriptionItems(db, [(await findSubscriptionById(db, row.id))!]))[0]!;
}

export function subscriberStats(db: DbOrTrx, performerId: string): Promise<SubscriberStats> {
  return subscriberCounts(db, performerId);
}

/**
 * What a subscription of a type costs: the performer's own price, else the site's active package of that type, else
 * 0 (not for sale). The checkout charges this and the paywall shows it, so the button's price is the price paid.
 */
export function subscriptionPrice(
  performer: { monthlyPrice: number; yearlyPrice: number },
  type: SubscriptionType,
  pkg: { price: number } | null | undefined,
): number {
  return (type === 'monthly' ? performer.monthlyPrice : performer.yearlyPrice) || pkg?.price || 0;
}

export type { PlanOffer, SubscriptionOffer };

/** The list prices of the plans `planTerms` builds on: the performer's own, else the site packages' (`activePackages`). */
export function listPrices(performer: { monthlyPrice: number; yearlyPrice: number }, packages: ActivePackages) {
  const { monthly: monthlyPkg, yearly: yearlyPkg } = packages;
  return {
    monthly: subscriptionPrice(performer, 'monthly', monthlyPkg),
    yearly: subscriptionPrice(performer, 'yearly', yearlyPkg),
    monthlyDays: monthlyPkg?.durationDays ?? 30,
    yearlyDays: yearlyPkg?.durationDays ?? 365,
  };
}

/** The performer's columns an offer is priced from (`performerPrices`), with the performer's id. */
export type PerformerPriceRow = NonNullable<Awaited<ReturnType<typeof performerPrices>>> & { id: string };

/**
 * The subscription plans a paywall offers for a performer, as the checkout would charge them to `viewerId` (a guest
 * is shown what a new subscriber gets): monthly, yearly, the bundles, each with its first period (a free trial, a
 * promotion's price with its end and what is left) by the same rules as checkoutSubscription (./offers.ts).
 */
export async function subscriptionOffer(
  db: DbOrTrx, of: string | PerformerPriceRow, viewerId?: string | null,
  known: { promotionsRunning?: boolean; packages?: (db: DbOrTrx) => Promise<ActivePackages> } = {},
): Promise<SubscriptionOffer> {
  // The performer's row when the caller has just read it (a performer's page), else read here.
  const performer = typeof of === 'string' ? await performerPrices(db, of) : of;
  if (!performer) return { monthly: null, yearly: null, plans: [] };
  const performerId = typeof of === 'string' ? of : of.id;
  const now = nowIso();
  const [list, promotions] = await Promise.all([
    // A page's offer reads them through the display cache (the same for every viewer); else fresh.
    (known.packages ?? activePackages)(db).then((packages) => listPrices(performer, packages)),
    // Whether any runs was read with the caller's row (a performer's page): most performers run none.
    known.promotionsRunning === false ? [] : runningPromotions(db, performerId, now),
  ]);
  // Whether the viewer subscribed before matters only for a trial or a promotion (firstPeriod): most performers
  // run neither, and then nobody's history is read.
  const returning = viewerId && (performer.trialDays > 0 || promotions.length > 0) ? await everSubscribed(db, viewerId, performerId, now) : false;
  const plans: PlanOffer[] = [];
  const wanted: Plan[] = [{ type: 'monthly' }, ...BUNDLE_MONTHS.map((m) => ({ type: 'monthly' as const, bundleMonths: m })), { type: 'yearly' }];
  for (const plan of wanted) {
    const terms = planTerms(performer, plan, list);
    if (!terms) continue;
    const first = firstPeriod(terms, { trialDays: performer.trialDays, isNew: !returning, promotion: promotions[0] });
    plans.push({
      type: terms.type, bundleMonths: terms.bundleMonths, price: terms.price, periodDays: terms.periodDays, discountBps: terms.discountBps,
      firstPrice: first.trialDays ? 0 : first.promotion ? promotionPrice(terms, first.promotion) : terms.price,
      trialDays: first.trialDays,
      promotion: first.promotion
        ? { _id: first.promotion.id, valueBps: first.promotion.valueBps, endsAt: first.promotion.expiresAt, left: promotionLeft(first.promotion) }
        : null,
    });
  }
  return { monthly: list.monthly >= 1 ? list.monthly : null, yearly: list.yearly >= 1 ? list.yearly : null, plans };
}
