import { newId, nowIso } from '../db/ids.js';
import { lockSubscriptionByGatewayRef, markRenewalFailed, stopRenewing } from '../subscriptions/subscriptions.repository.js';
import type { GatewayEvent, SubscriptionAction } from './gateway.js';
import { insertRenewalPayment, lockPayment } from './payments.repository.js';
import type { Transition, TransitionContext } from './settlement.service.js';
import { DAY_MS } from '../../common/time.js';

/**
 * What a provider's recurring billing does to a subscription (server/payments/README.md, "Recurring billing"), inside
 * the settlement's transaction, after the event was recorded under its unique id:
 *
 *   renewed             a new payment for the charge (one per provider charge), settled as "paid": the period is
 *                       extended from its end (or starts at the charge when it had ended), earnings credited, the
 *                       grace cleared. A refund or chargeback of that charge later finds this payment.
 *   renewal_failed      the grace period opens (until the period's end + renewalGraceDays); access already follows
 *                       the paid period. A failure older than the period now paid is stale and changes nothing.
 *   subscription_ended  no further renewals; access to the end of what was paid (shown cancelled).
 *
 * A renewal is money taken: it always gives its period, even when our side had stopped renewing (a cancellation that
 * crossed the provider's charge). No access without a paid period, no paid period without access.
 */


export async function applySubscriptionEvent(
  tc: TransitionContext,
  gateway: string,
  event: GatewayEvent & { action: SubscriptionAction },
  paid: Transition,
): Promise<{ outcome: string; paymentId: string | null }> {
  if (!event.subscriptionRef) return { outcome: 'no_subscription_ref', paymentId: null };
  const sub = await lockSubscriptionByGatewayRef(tc.trx, gateway, event.subscriptionRef);
  // A renewal of a billing we do not know yet (its first payment's event is still on its way): the provider retries.
  if (!sub) return { outcome: event.action === 'renewed' ? 'retry_later' : 'unknown_subscription', paymentId: null };
  const at = event.occurredAt && !Number.isNaN(Date.parse(event.occurredAt)) ? new Date(event.occurredAt) : new Date();

  if (event.action === 'renewed') {
    if (!event.gatewayRef) return { outcome: 'no_charge_ref', paymentId: null };
    const amount = event.amount ?? sub.renewalAmount ?? 0;
    const days = sub.periodDays ?? (sub.type === 'yearly' ? 365 : 30);
    const now = nowIso();
    const paymentId = await insertRenewalPayment(
      tc.trx,
      {
        id: newId(), userId: sub.userId, performerId: sub.performerId, type: sub.type === 'yearly' ? 'subscription_yearly' : 'subscription_monthly',
        status: 'pending', gateway, gatewayRef: event.gatewayRef, gatewayIntentRef: event.intentRef ?? null, amount, originalPrice: amount, discount: 0,
        currency: (event.currency ?? sub.renewalCurrency ?? 'USD').toUpperCase(), targetId: sub.performerId,
        details: JSON.stringify({ description: `Renewal (${sub.type})`, durationDays: days, subscriptionType: sub.type, renewal: true, subscriptionId: sub.id }),
        createdAt: now, updatedAt: now,
      },
      { id: newId(), objectType: 'performer', objectId: sub.performerId, performerId: sub.performerId, quantity: 1, unitPrice: amount, discount: 0 },
    );
    const payment = (await lockPayment(tc.trx, paymentId))!;
    const outcome = await paid(tc, payment, { intentRef: event.intentRef, at });
    return { outcome: outcome === 'paid' ? 'renewed' : outcome, paymentId };
  }

  if (sub.autoRenew !== 1) return { outcome: 'ignored', paymentId: null };
  if (event.action === 'renewal_failed') {
    // The period now paid ends more than a day after this failure: it is about an earlier attempt that later succeeded.
    if (sub.expiresAt && Date.parse(sub.expiresAt) > at.getTime() + DAY_MS) return { outcome: 'stale_failure', paymentId: null };
    const end = sub.expiresAt ? Date.parse(sub.expiresAt) : at.getTime();
    const graceUntil = new Date(end + tc.graceDays * DAY_MS).toISOString();
    await markRenewalFailed(tc.trx, sub.id, at.toISOString(), graceUntil);
    // The provider retries daily in the grace period: the subscriber hears of the first failure, not of every retry.
    if (!sub.renewalFailedAt) {
      tc.effects.mails.push({
        kind: 'renewal-failed', userId: sub.userId, performerId: sub.performerId, type: sub.type === 'yearly' ? 'yearly' : 'monthly',
        amount: sub.renewalAmount ?? event.amount ?? 0, currency: sub.renewalCurrency ?? event.currency ?? 'USD', expiresAt: sub.expiresAt, graceUntil, at: at.toISOString(),
      });
    }
    return { outcome: 'renewal_failed', paymentId: null };
  }
  // subscription_ended: the provider stopped (a cancellation there, or its retries given up): shown as cancelled
  // whatever came before it, so the row does not depend on the order the events arrive in. The mail says what the fan
  // went through: after failed renewals, that the subscription expired.
  const lapsed = !!sub.renewalFailedAt;
  await stopRenewing(tc.trx, sub.id, 'cancelled', at.toISOString());
  const ended = { userId: sub.userId, performerId: sub.performerId, type: sub.type === 'yearly' ? ('yearly' as const) : ('monthly' as const), expiresAt: sub.expiresAt };
  tc.effects.mails.push(lapsed ? { kind: 'subscription-expired', ...ended } : { kind: 'subscription-cancelled', ...ended, atProvider: true, at: at.toISOString() });
  return { outcome: 'ended', paymentId: null };
}
