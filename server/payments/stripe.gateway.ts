import type { IncomingHttpHeaders } from 'node:http';
import Stripe from 'stripe';
import { GatewayError, type CheckoutRequest, type CheckoutSession, type GatewayEvent, type GatewayStatus, type PaymentGateway, type SettlementAction } from './gateway.js';
import { DEFAULT_TOLERANCE_SEC, WebhookSignatureError } from './signature.js';

/**
 * Stripe behind the gateway interface: a one-time Checkout Session per payment (mode 'payment'), the buyer pays on
 * Stripe's hosted page, and the result arrives as webhooks verified with `stripe.webhooks.constructEvent` over the
 * raw body (`Stripe-Signature`, same tolerance as the sandbox). Configured by the settings `stripeSecretKey` and
 * `stripeWebhookSecret` (env STRIPE_SECRET_KEY / STRIPE_WEBHOOK_SECRET win), and chosen for new checkouts by the
 * setting `paymentGateway = 'stripe'`.
 *
 * Events used (everything else is recorded and ignored):
 *   checkout.session.completed (payment_status 'paid')  → paid      (async methods: 'unpaid' → recorded, wait)
 *   checkout.session.async_payment_succeeded            → paid
 *   checkout.session.async_payment_failed               → failed
 *   checkout.session.expired                            → cancelled
 *   charge.refunded (fully refunded)                    → refunded  (partial refunds are recorded, not applied)
 *   charge.dispute.created                              → chargeback
 * Our payment id travels as `client_reference_id` and `metadata.paymentId` on the session and its PaymentIntent;
 * refunds and disputes name the PaymentIntent, which we store when the session is paid.
 */

export const STRIPE_SIGNATURE_HEADER = 'stripe-signature';

export interface StripeGatewayOptions {
  secretKey: string;
  webhookSecret: string;
  toleranceSec?: number;
  /** Injected client (tests); built from secretKey otherwise. */
  client?: Stripe;
}

type Obj = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const ref = (v: unknown): string | null => str(v) ?? str((v as Obj | null)?.id);

export class StripeGateway implements PaymentGateway {
  readonly name = 'stripe' as const;
  private readonly client: Stripe;

  constructor(private readonly opts: StripeGatewayOptions) {
    // Webhook verification needs no API key; a placeholder keeps the client constructible for it.
    this.client = opts.client ?? new Stripe(opts.secretKey || 'sk_test_unconfigured', { maxNetworkRetries: 1, timeout: 15_000 });
  }

  async createCheckout(req: CheckoutRequest): Promise<CheckoutSession> {
    if (!this.opts.secretKey) throw new GatewayError('stripe', 'Stripe is not configured (stripeSecretKey)');
    try {
      const session = await this.client.checkout.sessions.create({
        mode: 'payment',
        client_reference_id: req.paymentId,
        metadata: { paymentId: req.paymentId },
        payment_intent_data: { metadata: { paymentId: req.paymentId } },
        line_items: [{ quantity: 1, price_data: { currency: req.currency.toLowerCase(), unit_amount: req.amount, product_data: { name: req.description.slice(0, 250) } } }],
        success_url: req.returnUrl,
        cancel_url: req.cancelUrl,
        // Stripe accepts 30 minutes to 24 hours.
        expires_at: Math.floor(Math.min(Math.max(Date.parse(req.expiresAt), Date.now() + 31 * 60_000), Date.now() + 23 * 3_600_000) / 1000),
        ...(req.customerEmail ? { customer_email: req.customerEmail } : {}),
      });
      if (!session.url) throw new Error('Stripe returned a session without a URL');
      return { gatewayRef: session.id, redirectUrl: session.url };
    } catch (err) {
      throw new GatewayError('stripe', 'Stripe checkout could not be created', err);
    }
  }

  async parseWebhook(rawBody: Buffer, headers: IncomingHttpHeaders): Promise<GatewayEvent> {
    if (!this.opts.webhookSecret) throw new WebhookSignatureError('Webhook secret is not configured');
    const header = headers[STRIPE_SIGNATURE_HEADER];
    if (!header) throw new WebhookSignatureError('Missing signature');
    let event: Stripe.Event;
    try {
      event = this.client.webhooks.constructEvent(rawBody, header, this.opts.webhookSecret, this.opts.toleranceSec ?? DEFAULT_TOLERANCE_SEC);
    } catch (err) {
      throw new WebhookSignatureError(`Stripe signature rejected: ${(err as Error).message}`);
    }
    return mapStripeEvent(event);
  }

  async retrieve(gatewayRef: string): Promise<GatewayStatus> {
    try {
      const s = await this.client.checkout.sessions.retrieve(gatewayRef);
      const intentRef = ref(s.payment_intent);
      const base = { intentRef, amount: s.amount_total ?? null, currency: s.currency ? s.currency.toUpperCase() : null };
      if (s.status === 'complete' && s.payment_status === 'paid') return { state: 'paid', ...base };
      if (s.status === 'expired') return { state: 'cancelled', ...base };
      return { state: 'pending', ...base };
    } catch (err) {
      throw new GatewayError('stripe', 'Stripe session could not be read', err);
    }
  }

  async expireCheckout(gatewayRef: string): Promise<void> {
    try {
      await this.client.checkout.sessions.expire(gatewayRef);
    } catch (err) {
      // Already completed or expired at Stripe: its webhook tells what happened.
      throw new GatewayError('stripe', 'Stripe session could not be expired', err);
    }
  }

  async refund(payment: { intentRef: string | null; amount: number }): Promise<void> {
    if (!payment.intentRef) throw new GatewayError('stripe', 'No PaymentIntent to refund');
    try {
      await this.client.refunds.create({ payment_intent: payment.intentRef, amount: payment.amount });
    } catch (err) {
      throw new GatewayError('stripe', 'Stripe refund failed', err);
    }
  }

  async cancelSubscription(subscriptionRef: string): Promise<void> {
    try {
      await this.client.subscriptions.cancel(subscriptionRef);
    } catch (err) {
      // Cancelled already: Stripe answers resource_missing / a canceled subscription; nothing is left to stop.
      const code = (err as { code?: string }).code;
      if (code === 'resource_missing') return;
      throw new GatewayError('stripe', 'Stripe subscription could not be cancelled', err);
    }
  }
}

/** A verified Stripe event → our normalised event (exported for unit tests). */
export function mapStripeEvent(event: Pick<Stripe.Event, 'id' | 'type'> & { data: { object: unknown } }): GatewayEvent {
  const o = (event.data?.object ?? {}) as Obj;
  const metadata = (o.metadata ?? {}) as Obj;
  const base: GatewayEvent = { id: event.id, type: event.type, action: null };
  const session = (action: SettlementAction | null): GatewayEvent => ({
    ...base,
    action,
    paymentId: str(metadata.paymentId) ?? str(o.client_reference_id),
    gatewayRef: str(o.id),
    intentRef: ref(o.payment_intent),
    amount: num(o.amount_total),
    currency: str(o.currency)?.toUpperCase() ?? null,
  });
  switch (event.type) {
    case 'checkout.session.completed':
      return session(o.payment_status === 'paid' || o.payment_status === 'no_payment_required' ? 'paid' : null);
    case 'checkout.session.async_payment_succeeded':
      return session('paid');
    case 'checkout.session.async_payment_failed':
      return session('failed');
    case 'checkout.session.expired':
      return session('cancelled');
    case 'charge.refunded':
      return {
        ...base,
        action: o.refunded === true ? 'refunded' : null,
        paymentId: str(metadata.paymentId),
        intentRef: ref(o.payment_intent),
      };
    case 'charge.dispute.created':
      return { ...base, action: 'chargeback', paymentId: str(metadata.paymentId), intentRef: ref(o.payment_intent) };
    default:
      return base;
  }
}
