import type { DbOrTrx } from '../db/database.js';
import { nowIso } from '../db/ids.js';
import { AppError, badRequest, notFound } from '../http/errors.js';
import type { Money } from '../payments/money.js';
import { isGatewayName } from '../payments/gateway.js';
import { sendMoneyMails } from '../payments/money-mail.js';
import type { ListResult } from '../../common/schemas/http.js';
import type { SubscriberStats, SubscriptionItem } from '../../common/schemas/money.js';
import { loadPerformerSummaries, loadUserSummaries } from '../payments/summaries.repository.js';
import {
  cancelAtPeriodEnd, findSubscription, findSubscriptionById, isLive, listSubscriptions, packageOfType, performerPrices, subscriberCounts, type SubscriptionFilters,
  type SubscriptionRow,
} from './subscriptions.repository.js';
import type { SubscriptionType } from '../../common/enums.js';

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
      type: s.type === 'yearly' ? 'yearly' : 'monthly', status, isLive: live, cancelAtPeriodEnd: s.cancelAtPeriodEnd === 1,
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

export interface SubscriptionOffer {
  /** Minor units; null when that type cannot be bought (no price anywhere). */
  monthly: number | null;
  yearly: number | null;
}

/** The subscription prices a paywall offers for a performer, as the checkout would charge them. */
export async function subscriptionOffer(db: DbOrTrx, performerId: string): Promise<SubscriptionOffer> {
  const [performer, monthlyPkg, yearlyPkg] = await Promise.all([performerPrices(db, performerId), packageOfType(db, 'monthly'), packageOfType(db, 'yearly')]);
  if (!performer) return { monthly: null, yearly: null };
  const monthly = subscriptionPrice(performer, 'monthly', monthlyPkg);
  const yearly = subscriptionPrice(performer, 'yearly', yearlyPkg);
  return { monthly: monthly >= 1 ? monthly : null, yearly: yearly >= 1 ? yearly : null };
}
