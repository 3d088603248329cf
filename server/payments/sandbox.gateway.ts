import type { IncomingHttpHeaders } from 'node:http';
import { createHmac, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { DbOrTrx } from '../db/database.js';
import { newId, nowIso } from '../db/ids.js';
import { findSandboxCharge, insertSandboxCharge, moveSandboxCharge, type SandboxCharge } from './sandbox.repository.js';
import type { CheckoutRequest, CheckoutSession, GatewayEvent, GatewayStatus, PaymentGateway, SettlementAction } from './gateway.js';
import { SANDBOX_SIGNATURE_HEADER, signPayload, verifySignature, WebhookSignatureError } from './signature.js';

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
 */

export type SandboxEventType = 'charge.succeeded' | 'charge.failed' | 'checkout.cancelled' | 'checkout.expired' | 'charge.refunded' | 'charge.dispute.created';

const actions: Record<SandboxEventType, SettlementAction> = {
  'charge.succeeded': 'paid',
  'charge.failed': 'failed',
  'checkout.cancelled': 'cancelled',
  'checkout.expired': 'cancelled',
  'charge.refunded': 'refunded',
  'charge.dispute.created': 'chargeback',
};

export const sandboxEventSchema = z.object({
  id: z.string().min(1).max(200),
  type: z.string().min(1).max(100),
  created: z.number().int().optional(),
  data: z.object({
    chargeId: z.string().min(1).max(200),
    paymentId: z.string().min(1).max(200),
    amount: z.number().int().nonnegative(),
    currency: z.string().min(3).max(3),
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

export class SandboxGateway implements PaymentGateway {
  readonly name = 'sandbox' as const;

  constructor(private readonly deps: SandboxDeps) {}

  async createCheckout(req: CheckoutRequest): Promise<CheckoutSession> {
    const id = `sbx_${newId()}${randomBytes(4).toString('hex')}`;
    const now = nowIso();
    await insertSandboxCharge(this.deps.db, {
      id, paymentId: req.paymentId, amount: req.amount, currency: req.currency, description: req.description.slice(0, 300), status: 'pending',
      returnUrl: req.returnUrl, expiresAt: req.expiresAt, createdAt: now, updatedAt: now,
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
      paymentId: parsed.data.paymentId,
      gatewayRef: parsed.data.chargeId,
      intentRef: parsed.data.chargeId,
      amount: parsed.data.amount,
      currency: parsed.data.currency.toUpperCase(),
    };
  }

  async retrieve(gatewayRef: string): Promise<GatewayStatus> {
    const charge = await this.charge(gatewayRef);
    if (!charge) return { state: 'cancelled' };
    // An open checkout past its time is over, as a hosted page would say.
    if (charge.status === 'pending' && charge.expiresAt <= nowIso()) return { state: 'cancelled', amount: charge.amount, currency: charge.currency };
    return { state: chargeStates[charge.status] ?? 'pending', intentRef: charge.id, amount: charge.amount, currency: charge.currency };
  }

  async expireCheckout(gatewayRef: string): Promise<void> {
    await this.move(gatewayRef, ['pending'], 'cancelled');
  }

  async refund(payment: { gatewayRef: string | null }): Promise<void> {
    if (!payment.gatewayRef) return;
    const done = await this.move(payment.gatewayRef, ['paid'], 'refunded');
    if (done) await this.emit('charge.refunded', done);
  }

  async cancelSubscription(_subscriptionRef: string): Promise<void> {}

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
    const delivered = await this.emit(type, moved);
    return { charge: moved, changed: true, delivered };
  }

  /** Back office: a refund or a chargeback of a paid charge. */
  async reverse(id: string, kind: 'refunded' | 'chargeback'): Promise<boolean> {
    const moved = await this.move(id, ['paid', ...(kind === 'chargeback' ? (['refunded'] as const) : [])], kind);
    if (!moved) return false;
    return this.emit(kind === 'refunded' ? 'charge.refunded' : 'charge.dispute.created', moved);
  }

  /** A signed event for a charge, as this provider sends it (also used by tests to play the provider). */
  buildEvent(type: SandboxEventType | string, charge: Pick<SandboxCharge, 'id' | 'paymentId' | 'amount' | 'currency'>, id = `evt_${newId()}`) {
    const body = JSON.stringify({
      id,
      type,
      created: Math.floor(Date.now() / 1000),
      data: { chargeId: charge.id, paymentId: charge.paymentId, amount: charge.amount, currency: charge.currency },
    });
    return { body, headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signPayload(this.deps.secret, body) } };
  }

  private async emit(type: SandboxEventType, charge: SandboxCharge): Promise<boolean> {
    if (!this.deps.deliver) return false;
    const { body, headers } = this.buildEvent(type, charge);
    try {
      const res = await this.deps.deliver(body, headers);
      if (res.status >= 200 && res.status < 300) return true;
      this.deps.logger?.warn({ status: res.status, type, chargeId: charge.id }, 'sandbox webhook was not accepted; reconciliation will pick it up');
    } catch (err) {
      this.deps.logger?.warn({ err: (err as Error).message, type, chargeId: charge.id }, 'sandbox webhook delivery failed; reconciliation will pick it up');
    }
    return false;
  }

  /** Conditional state change of a charge; the updated charge, or undefined when it was not in one of `from`. */
  private async move(id: string, from: ReadonlyArray<SandboxCharge['status']>, to: SandboxCharge['status'], opts: { notExpired?: boolean } = {}) {
    if (!(await moveSandboxCharge(this.deps.db, id, from, to, opts))) return undefined;
    return this.charge(id);
  }
}
