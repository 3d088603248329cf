import type { IncomingHttpHeaders } from 'node:http';
import { createHmac, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { DbOrTrx } from '../db/database.js';
import { newId, nowIso } from '../db/ids.js';
import {
  advanceSandboxSubscription, cancelSandboxSubscription, dueSandboxSubscriptions, findSandboxCharge, findSandboxSubscription, insertSandboxCharge,
  insertSandboxSubscription, markSandboxChargeNotified, moveSandboxCharge, refundSandboxChargePart, sandboxSubscriptionOfCharge, setSandboxSubscriptionFailures,
  unnotifiedRenewalCharges, type SandboxCharge, type SandboxSubscription,
} from './sandbox.repository.js';
import type { CheckoutRequest, CheckoutSession, GatewayAction, GatewayEvent, GatewayStatus, PaymentGateway } from './gateway.js';
import { SANDBOX_SIGNATURE_HEADER, signPayload, verifySignature, WebhookSignatureError } from './signature.js';
import { DAY_MS } from '../../common/time.js';

/**
 * The built-in sandbox gateway: a hosted payment provider that lives in this process, so the whole flow can be
 * used and tested without a network. It behaves like a real one:
 *
 *  - checkout creates a charge on the provider's side (table sandbox_charges) and a hosted page URL
 *    (/payments/sandbox/<charge id>, src/pages/payments/sandbox/[id].astro) with Approve / Decline / Cancel;
 *  - the buyer's choice is recorded provider-side first, then the provider POSTs a signed webhook to our webhook
 *    endpoint over HTTP (HMAC-SHA256 over the raw body, `x-sandbox-signature: t=…,v1=…`), and only that webhook
 *    changes our payment;
 *  - the provider can be asked what a charge's state is (reconciliation) and to refund it.
 *
 * Provider events: charge.succeeded, charge.failed, checkout.cancelled, checkout.expired, charge.refunded,
 * charge.dispute.created (a chargeback).
 *
 * Recurring billing: a checkout with recurring terms starts a billing (table sandbox_subscriptions) when it is paid;
 * its id comes with charge.succeeded as `subscriptionId`. The provider's clock (`renewDue`, run every minute by the
 * server and by `npm run payments:renew`, which can also run it at a later time) charges each billing when its period
 * ends (subscription.renewed, a new charge the provider knows no payment of ours for), or fails on demand
 * (`failNext`: subscription.renewal_failed, retried a day later), until it is cancelled (cancelSubscription).
 */

export type SandboxEventType =
  | 'charge.succeeded' | 'charge.failed' | 'checkout.cancelled' | 'checkout.expired' | 'charge.refunded' | 'charge.dispute.created'
  | 'subscription.renewed' | 'subscription.renewal_failed' | 'subscription.cancelled';

const actions: Record<SandboxEventType, GatewayAction> = {
  'charge.succeeded': 'paid',
  'charge.failed': 'failed',
  'checkout.cancelled': 'cancelled',
  'checkout.expired': 'cancelled',
  'charge.refunded': 'refunded',
  'charge.dispute.created': 'chargeback',
  'subscription.renewed': 'renewed',
  'subscription.renewal_failed': 'renewal_failed',
  'subscription.cancelled': 'subscription_ended',
};

export const sandboxEventSchema = z.object({
  id: z.string().min(1).max(200),
  type: z.string().min(1).max(100),
  created: z.number().int().optional(),
  data: z.object({
    chargeId: z.string().min(1).max(200),
    /** Absent on a renewal's charge: the provider never knew a payment of ours for it. */
    paymentId: z.string().min(1).max(200).optional(),
    /** The recurring billing (a subscription's first charge, and every subscription.* event). */
    subscriptionId: z.string().min(1).max(200).optional(),
    /** subscription.* events: when the provider charged or tried (its clock), ISO. */
    at: z.string().datetime().optional(),
    amount: z.number().int().nonnegative(),
    currency: z.string().min(3).max(3),
    /** charge.refunded of a charge refunded in part: what is given back so far, all refunds together. */
    refundedAmount: z.number().int().positive().optional(),
  }),
});
export type SandboxEvent = z.infer<typeof sandboxEventSchema>;

/** Provider-side state of a charge → what it means for our payment. */
const chargeStates: Record<SandboxCharge['status'], GatewayStatus['state']> = {
  pending: 'pending',
  paid: 'paid',
  declined: 'failed',
  cancelled: 'cancelled',
  refunded: 'refunded',
  chargeback: 'chargeback',
};

/** The webhook secret of the sandbox provider, derived from APP_SECRET (never the secret itself). */
export function sandboxWebhookSecret(appSecret: string): string {
  return createHmac('sha256', appSecret).update('sandbox-gateway-webhook-v1').digest('hex');
}

export type Deliver = (body: string, headers: Record<string, string>) => Promise<{ status: number }>;

export interface SandboxDeps {
  db: DbOrTrx;
  secret: string;
  /** Posts a webhook to our endpoint (HTTP in the app); absent where nothing is delivered (reconciliation CLI). */
  deliver?: Deliver;
  logger?: { warn(obj: object, msg: string): void };
}

export type SandboxOutcome = 'approve' | 'decline' | 'cancel';

/** A period is charged this long before it ends, so a renewal that succeeds leaves no gap in access. */
export const RENEWAL_LEAD_MS = 10 * 60_000;
/** A failed renewal is tried again a day later (our grace period decides when the subscription lapses). */
const RETRY_MS = DAY_MS;

export interface RenewReport {
  renewed: number;
  failed: number;
  /** Renewal events sent again because an earlier delivery did not get through. */
  redelivered: number;
}

export class SandboxGateway implements PaymentGateway {
  readonly name = 'sandbox' as const;

  constructor(private readonly deps: SandboxDeps) {}

  async createCheckout(req: CheckoutRequest): Promise<CheckoutSession> {
    const id = `sbx_${newId()}${randomBytes(4).toString('hex')}`;
    const now = nowIso();
    await insertSandboxCharge(this.deps.db, {
      id, paymentId: req.paymentId, amount: req.amount, currency: req.currency, description: req.description.slice(0, 300), status: 'pending',
      returnUrl: req.returnUrl, expiresAt: req.expiresAt, createdAt: now, updatedAt: now,
      recurringDays: req.recurring?.periodDays ?? null, renewalAmount: req.recurring?.renewalAmount ?? null,
      firstPeriodDays: req.recurring?.firstPeriodDays ?? null,
    });
    return { gatewayRef: id, redirectUrl: `${req.siteUrl}/payments/sandbox/${id}` };
  }

  async parseWebhook(rawBody: Buffer, headers: IncomingHttpHeaders): Promise<GatewayEvent> {
    verifySignature(this.deps.secret, rawBody, headers[SANDBOX_SIGNATURE_HEADER]);
    let parsed: SandboxEvent;
    try {
      parsed = sandboxEventSchema.parse(JSON.parse(rawBody.toString('utf8')));
    } catch {
      throw new WebhookSignatureError('Malformed event body');
    }
    const action = actions[parsed.type as SandboxEventType] ?? null;
    return {
      id: parsed.id,
      type: parsed.type,
      action,
      paymentId: parsed.data.paymentId ?? null,
      gatewayRef: parsed.data.chargeId,
      intentRef: parsed.data.chargeId,
      subscriptionRef: parsed.data.subscriptionId ?? null,
      occurredAt: parsed.data.at ?? null,
      amount: parsed.data.amount,
      currency: parsed.data.currency.toUpperCase(),
      ...(parsed.data.refundedAmount ? { refundedAmount: parsed.data.refundedAmount } : {}),
    };
  }

  async retrieve(gatewayRef: string): Promise<GatewayStatus> {
    const charge = await this.charge(gatewayRef);
    if (!charge) return { state: 'cancelled' };
    // An open checkout past its time is over, as a hosted page would say.
    if (charge.status === 'pending' && charge.expiresAt <= nowIso()) return { state: 'cancelled', amount: charge.amount, currency: charge.currency };
    const billing = charge.recurringDays ? await sandboxSubscriptionOfCharge(this.deps.db, charge.id) : undefined;
    return { state: chargeStates[charge.status] ?? 'pending', intentRef: charge.id, subscriptionRef: billing?.id ?? null, amount: charge.amount, currency: charge.currency };
  }

  async expireCheckout(gatewayRef: string): Promise<void> {
    await this.move(gatewayRef, ['pending'], 'cancelled');
  }

  async refund(payment: { gatewayRef: string | null; amount: number }): Promise<void> {
    if (!payment.gatewayRef) return;
    const charge = await this.charge(payment.gatewayRef);
    if (charge && payment.amount < charge.amount - charge.refundedAmount) {
      if (await refundSandboxChargePart(this.deps.db, charge.id, payment.amount)) {
        const now = (await this.charge(charge.id))!;
        await this.emit('charge.refunded', now, { refundedAmount: now.refundedAmount });
      }
      return;
    }
    const done = await this.move(payment.gatewayRef, ['paid'], 'refunded');
    if (done) await this.emit('charge.refunded', done);
  }

  async cancelSubscription(subscriptionRef: string): Promise<void> {
    await cancelSandboxSubscription(this.deps.db, subscriptionRef);
  }

  // -------------------------------------------------------------------------------------------------------------
  // The provider's side: what its hosted page and its back office do.

  charge(id: string) {
    return findSandboxCharge(this.deps.db, id);
  }

  /**
   * The buyer's choice on the hosted page: recorded provider-side (only while the charge is open and not expired),
   * then announced by a signed webhook. Returns the charge as it now is, and whether this call changed it.
   */
  async complete(id: string, outcome: SandboxOutcome): Promise<{ charge: SandboxCharge; changed: boolean; delivered: boolean }> {
    const to = outcome === 'approve' ? 'paid' : outcome === 'decline' ? 'declined' : 'cancelled';
    const moved = await this.move(id, ['pending'], to, { notExpired: outcome === 'approve' });
    if (!moved) {
      const charge = await this.charge(id);
      if (!charge) throw new Error(`sandbox charge ${id} not found`);
      return { charge, changed: false, delivered: false };
    }
    const type: SandboxEventType = outcome === 'approve' ? 'charge.succeeded' : outcome === 'decline' ? 'charge.failed' : 'checkout.cancelled';
    const billing = outcome === 'approve' ? await this.startBilling(moved) : undefined;
    const delivered = await this.emit(type, moved, { subscriptionId: billing?.id });
    return { charge: moved, changed: true, delivered };
  }

  /** Back office: a refund or a chargeback of a paid charge. */
  async reverse(id: string, kind: 'refunded' | 'chargeback'): Promise<boolean> {
    const moved = await this.move(id, ['paid', ...(kind === 'chargeback' ? (['refunded'] as const) : [])], kind);
    if (!moved) return false;
    return this.emit(kind === 'refunded' ? 'charge.refunded' : 'charge.dispute.created', moved);
  }

  /** A signed event for a charge, as this provider sends it (also used by tests to play the provider). */
  buildEvent(
    type: SandboxEventType | string,
    charge: Pick<SandboxCharge, 'id' | 'paymentId' | 'amount' | 'currency'> & Partial<Pick<SandboxCharge, 'renewalOf'>>,
    id = `evt_${newId()}`,
    extra: { subscriptionId?: string; at?: string; refundedAmount?: number } = {},
  ) {
    const body = JSON.stringify({
      id,
      type,
      created: Math.floor(Date.now() / 1000),
      data: {
        chargeId: charge.id,
        // A renewal's charge has no payment of ours at the provider (its payment_id column holds the charge's own id).
        ...(charge.renewalOf ? {} : { paymentId: charge.paymentId }),
        ...(extra.subscriptionId ?? charge.renewalOf ? { subscriptionId: extra.subscriptionId ?? charge.renewalOf } : {}),
        ...(extra.at ? { at: extra.at } : {}),
        amount: charge.amount,
        currency: charge.currency,
        ...(extra.refundedAmount ? { refundedAmount: extra.refundedAmount } : {}),
      },
    });
    return { body, headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signPayload(this.deps.secret, body) } };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Recurring billing: the provider's clock.

  billing(id: string): Promise<SandboxSubscription | undefined> {
    return findSandboxSubscription(this.deps.db, id);
  }

  /** Back office: the next `times` attempts of this billing fail (0: they succeed again). */
  async failNext(id: string, times = 1): Promise<boolean> {
    return setSandboxSubscriptionFailures(this.deps.db, id, Math.max(0, Math.floor(times)));
  }

  /**
   * Charges every billing due by `asOf` (its period ends within RENEWAL_LEAD_MS of it), as the provider's clock at
   * `asOf`: a success is a new charge and `subscription.renewed` dated `asOf`; a failure on demand is
   * `subscription.renewal_failed`, tried again a day later. Renewal events that did not get through before are sent
   * again first (same event id: applied once). Returns what it did.
   */
  async renewDue(asOf = new Date(), opts: { limit?: number } = {}): Promise<RenewReport> {
    const report: RenewReport = { renewed: 0, failed: 0, redelivered: 0 };
    for (const charge of await unnotifiedRenewalCharges(this.deps.db, opts.limit ?? 500)) {
      if (await this.emitRenewal(charge)) report.redelivered++;
    }
    const at = asOf.toISOString();
    for (const sub of await dueSandboxSubscriptions(this.deps.db, new Date(asOf.getTime() + RENEWAL_LEAD_MS).toISOString(), opts.limit ?? 500)) {
      if (sub.failRenewals > 0) {
        const claimed = await advanceSandboxSubscription(this.deps.db, sub, { nextChargeAt: new Date(asOf.getTime() + RETRY_MS).toISOString(), failRenewals: sub.failRenewals - 1 });
        if (!claimed) continue;
        report.failed++;
        const attempt = { id: `sbf_${newId()}`, paymentId: '', amount: sub.amount, currency: sub.currency, renewalOf: sub.id };
        await this.send(this.buildEvent('subscription.renewal_failed', attempt, `evt_${attempt.id}`, { at }), 'subscription.renewal_failed', attempt.id);
        continue;
      }
      // The new period follows the paid one; after failed attempts (the period ended) it starts with this charge.
      const from = Math.max(Date.parse(sub.periodEnd), asOf.getTime());
      const periodEnd = new Date(from + sub.periodDays * DAY_MS).toISOString();
      if (!(await advanceSandboxSubscription(this.deps.db, sub, { nextChargeAt: periodEnd, periodEnd, renewed: true }))) continue;
      const id = `sbx_${newId()}${randomBytes(4).toString('hex')}`;
      await insertSandboxCharge(this.deps.db, {
        id, paymentId: id, amount: sub.amount, currency: sub.currency, description: `Renewal of ${sub.id}`, status: 'paid', returnUrl: '', expiresAt: at,
        createdAt: at, updatedAt: nowIso(), renewalOf: sub.id, notified: 0,
      });
      report.renewed++;
      await this.emitRenewal((await this.charge(id))!);
    }
    return report;
  }

  /**
   * A paid checkout with recurring terms starts its billing: the next charge when the first period ends, which for a
   * free trial is the trial's length (`firstPeriodDays`), then every `recurringDays`.
   */
  private async startBilling(charge: SandboxCharge): Promise<SandboxSubscription | undefined> {
    if (!charge.recurringDays) return undefined;
    const existing = await sandboxSubscriptionOfCharge(this.deps.db, charge.id);
    if (existing) return existing;
    const now = new Date();
    const periodEnd = new Date(now.getTime() + (charge.firstPeriodDays ?? charge.recurringDays) * DAY_MS).toISOString();
    const id = `sbs_${newId()}${randomBytes(4).toString('hex')}`;
    await insertSandboxSubscription(this.deps.db, {
      id, chargeId: charge.id, amount: charge.renewalAmount ?? charge.amount, currency: charge.currency, periodDays: charge.recurringDays,
      periodEnd, nextChargeAt: periodEnd, createdAt: now.toISOString(), updatedAt: now.toISOString(),
    });
    return findSandboxSubscription(this.deps.db, id);
  }

  private async emitRenewal(charge: SandboxCharge): Promise<boolean> {
    const event = this.buildEvent('subscription.renewed', charge, `evt_${charge.id}`, { at: charge.createdAt });
    const delivered = await this.send(event, 'subscription.renewed', charge.id);
    if (delivered) await markSandboxChargeNotified(this.deps.db, charge.id);
    return delivered;
  }

  private async emit(type: SandboxEventType, charge: SandboxCharge, extra: { subscriptionId?: string; refundedAmount?: number } = {}): Promise<boolean> {
    return this.send(this.buildEvent(type, charge, undefined, extra), type, charge.id);
  }

  private async send({ body, headers }: { body: string; headers: Record<string, string> }, type: string, chargeId: string): Promise<boolean> {
    if (!this.deps.deliver) return false;
    try {
      const res = await this.deps.deliver(body, headers);
      if (res.status >= 200 && res.status < 300) return true;
      this.deps.logger?.warn({ status: res.status, type, chargeId }, 'sandbox webhook was not accepted; reconciliation will pick it up');
    } catch (err) {
      this.deps.logger?.warn({ err: (err as Error).message, type, chargeId }, 'sandbox webhook delivery failed; reconciliation will pick it up');
    }
    return false;
  }

  /** Conditional state change of a charge; the updated charge, or undefined when it was not in one of `from`. */
  private async move(id: string, from: ReadonlyArray<SandboxCharge['status']>, to: SandboxCharge['status'], opts: { notExpired?: boolean } = {}) {
    if (!(await moveSandboxCharge(this.deps.db, id, from, to, opts))) return undefined;
    return this.charge(id);
  }
}
