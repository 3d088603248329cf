import { nowIso } from '../db/ids.js';
import { closeLapsed, performersWithLapsedSubscriptions, recountSubscribers } from '../subscriptions/subscriptions.repository.js';
import { isGatewayName, type GatewayStatus } from './gateway.js';
import type { Money } from './money.js';
import { expiredPendingPayments, pendingPayments } from './payments.repository.js';
import { applyGatewayEvent, applyInternal } from './settlement.service.js';

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
        intentRef: status.intentRef ?? null, amount: status.amount ?? null, currency: status.currency ?? null,
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
