import type { DbOrTrx } from '../db/database.js';
import { nowIso } from '../db/ids.js';
import { badRequest, notFound } from '../http/errors.js';
import type { ListResult, SubscriptionItem } from '../../common/api-types.js';
import { loadPerformerSummaries, loadUserSummaries } from '../payments/summaries.repository.js';
import {
  cancelAtPeriodEnd, findSubscription, findSubscriptionById, isLive, listSubscriptions, type SubscriptionFilters, type SubscriptionRow,
} from './subscriptions.repository.js';

/**
 * Subscriptions are prepaid periods (30 or 365 days) bought through a checkout. Cancelling stops the subscription
 * at the end of the period already paid: it stays live (status 'active', cancel_at_period_end) until expires_at,
 * which is what the paywall reads.
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
    };
  });
}

export async function searchSubscriptions(db: DbOrTrx, f: SubscriptionFilters): Promise<ListResult<SubscriptionItem>> {
  const { rows, total } = await listSubscriptions(db, f);
  return { items: await toSubscriptionItems(db, rows), total };
}

/** Cancel at period end; cancelling again changes nothing. Only the subscriber (or an admin) may. */
export async function cancelSubscription(db: DbOrTrx, viewer: { id: string; role: string }, by: { id?: string; performerId?: string }): Promise<SubscriptionItem> {
  let row: SubscriptionRow | undefined;
  if (by.id) row = await findSubscriptionById(db, by.id);
  else if (by.performerId) row = await findSubscription(db, viewer.id, by.performerId);
  else throw badRequest('Name the subscription (subscriptionId) or the performer (performerId)');
  if (!row || (row.userId !== viewer.id && viewer.role !== 'admin')) throw notFound('Subscription');
  if (!isLive(row)) throw badRequest('This subscription is not active');
  await cancelAtPeriodEnd(db, row.id);
  return (await toSubscriptionItems(db, [(await findSubscriptionById(db, row.id))!]))[0]!;
}
