import { nowIso } from '../db/ids.js';
import {
  claimRenewalReminder, closeLapsed, lapseIfUnrenewed, performersWithLapsedSubscriptions, recountSubscribers, renewalsPastGrace, renewalsToRemind,
} from '../subscriptions/subscriptions.repository.js';
import { isGatewayName, type GatewayStatus } from './gateway.js';
import type { Money } from './money.js';
import { expiredPendingPayments, pendingPayments } from './payments.repository.js';
import { applyGatewayEvent, applyInternal } from './settlement.service.js';
import { sandboxEnabled } from './gateways.js';
import { sendMoneyMails } from './money-mail.js';
import type { RenewReport } from './sandbox.gateway.js';
import { DAY_MS } from '../../common/time.js';

/**
 * Housekeeping of money: unpaid checkouts whose time ran out give their stock back; lapsed subscriptions get their
 * final status; the reconciliation command asks the providers about payments still pending.
 */

/** Expired unpaid checkouts → 'cancelled' (stock given back, orders cancelled), through the state machine. */
export async function sweepExpiredCheckouts(money: Money, opts: { limit?: number; now?: string } = {}): Promise<number> {
  const rows = await expiredPendingPayments(money.ctx.db, opts.now ?? nowIso(), opts.limit ?? 200);
  let n = 0;
  for (const row of rows) {
    const r = await applyInternal(money.settlement, row.id, 'cancelled', 'expired');
    if (r.outcome !== 'cancelled') continue;
    n++;
    // Close the provider's page too, so it stops taking the money (a payment that still gets through is taken
    // again or refunded by the state machine).
    if (row.gatewayRef && isGatewayName(row.gateway)) {
      // Building the gateway can fail too (the sandbox is switched off in production): our side is already cancelled.
      try {
        await (await money.gateway(row.gateway)).expireCheckout(row.gatewayRef);
      } catch (err) {
        money.ctx.logger.warn({ err: (err as Error).message, paymentId: row.id }, 'could not expire the checkout at the provider');
      }
    }
  }
  return n;
}

/** Subscriptions past their end get status 'expired' / 'cancelled' (access already ended at expires_at). */
export async function closeLapsedSubscriptions(money: Money, now = nowIso()): Promise<number> {
  const { db } = money.ctx;
  const performers = await performersWithLapsedSubscriptions(db, now);
  const n = await closeLapsed(db, now);
  for (const performerId of performers) await recountSubscribers(db, performerId);
  return n;
}


/**
 * Renewing subscriptions whose period ended more than `renewalGraceDays` ago without a successful renewal lapse: they
 * stop renewing here, then at their provider (so its retries stop), and their subscriber is mailed that it ended. Access
 * had already ended with the period.
 */
export async function lapseUnrenewed(money: Money, now = new Date()): Promise<number> {
  const graceDays = Number(await money.ctx.settings.get('renewalGraceDays'));
  const cutoff = new Date(now.getTime() - graceDays * DAY_MS).toISOString();
  let n = 0;
  for (const row of await renewalsPastGrace(money.ctx.db, cutoff)) {
    if (!(await lapseIfUnrenewed(money.ctx.db, row.id, cutoff))) continue;
    n++;
    await sendMoneyMails(money.ctx, [
      { kind: 'subscription-expired', userId: row.userId, performerId: row.performerId, type: row.type === 'yearly' ? 'yearly' : 'monthly', expiresAt: row.expiresAt },
    ]);
    if (row.gateway && row.gatewaySubscriptionId) await money.cancelRecurring([{ gateway: row.gateway, ref: row.gatewaySubscriptionId }]);
  }
  return n;
}

/**
 * Yearly subscriptions that renew within `renewalReminderDays` (setting; 0: none) are reminded by mail, once per period:
 * each is claimed by setting its `renewal_reminded_at` first (only where still unset), so two instances' clocks at once
 * mail it once, and the next paid period clears it. Without a mailer nothing is claimed (a reminder is never marked sent
 * unsent).
 */
export async function remindYearlyRenewals(money: Money, now = new Date()): Promise<number> {
  if (!money.ctx.mailer) return 0;
  const days = Number(await money.ctx.settings.get('renewalReminderDays'));
  if (!(days > 0)) return 0;
  const at = now.toISOString();
  let n = 0;
  for (const row of await renewalsToRemind(money.ctx.db, at, new Date(now.getTime() + days * DAY_MS).toISOString())) {
    if (!row.expiresAt || !(await claimRenewalReminder(money.ctx.db, row.id, row.expiresAt, at))) continue;
    n++;
    await sendMoneyMails(money.ctx, [
      {
        kind: 'renewal-reminder', userId: row.userId, performerId: row.performerId, type: 'yearly', amount: row.renewalAmount ?? 0,
        currency: row.renewalCurrency ?? String(await money.ctx.settings.get('currency')), renewsAt: row.expiresAt,
      },
    ]);
  }
  return n;
}

/**
 * What runs every minute on each instance and in `npm run payments:renew` (at its clock): the sandbox provider
 * charges what is due (a real provider runs its own clock), expired checkouts give their holds back, subscriptions
 * past their grace lapse, lapsed ones get their final status, yearly renewals coming up are reminded.
 */
export async function moneyClock(money: Money, now = new Date()): Promise<{ renewals?: RenewReport; expired: number; lapsed: number; closed: number; reminded: number }> {
  let renewals: RenewReport | undefined;
  if (sandboxEnabled(money.ctx.config)) renewals = await money.sandbox().renewDue(now);
  const expired = await sweepExpiredCheckouts(money, { now: now.toISOString() });
  const lapsed = await lapseUnrenewed(money, now);
  const closed = await closeLapsedSubscriptions(money, now.toISOString());
  const reminded = await remindYearlyRenewals(money, now);
  return { renewals, expired, lapsed, closed, reminded };
}

export interface ReconcileReport {
  checked: number;
  /** payment id → what happened */
  changed: Record<string, string>;
  errors: Record<string, string>;
  expired: number;
}

/**
 * Re-reads pending payments from their gateway. A state the provider reports is applied as a synthetic event
 * (`reconcile:<payment>:<state>`, recorded like a webhook, so running twice changes nothing twice); payments the
 * provider still has open past their expiry are cancelled.
 */
export async function reconcilePending(money: Money, opts: { olderThanSec?: number; limit?: number } = {}): Promise<ReconcileReport> {
  const before = new Date(Date.now() - (opts.olderThanSec ?? 60) * 1000).toISOString();
  const rows = await pendingPayments(money.ctx.db, before, opts.limit ?? 500);
  const report: ReconcileReport = { checked: rows.length, changed: {}, errors: {}, expired: 0 };
  for (const p of rows) {
    if (!isGatewayName(p.gateway) || !p.gatewayRef) continue;
    let status: GatewayStatus;
    try {
      status = await (await money.gateway(p.gateway)).retrieve(p.gatewayRef);
    } catch (err) {
      report.errors[p.id] = (err as Error).message;
      continue;
    }
    if (status.state === 'pending') continue;
    const result = await applyGatewayEvent(
      money.settlement,
      p.gateway,
      {
        id: `reconcile:${p.id}:${status.state}`, type: `reconcile.${status.state}`, action: status.state, paymentId: p.id, gatewayRef: p.gatewayRef,
        intentRef: status.intentRef ?? null, subscriptionRef: status.subscriptionRef ?? null, amount: status.amount ?? null, currency: status.currency ?? null,
      },
      JSON.stringify({ reconciled: true, status }),
    );
    await money.afterCommit(result.effects);
    report.changed[p.id] = result.outcome;
  }
  report.expired = await sweepExpiredCheckouts(money, { limit: opts.limit ?? 500 });
  await closeLapsedSubscriptions(money);
  return report;
}
