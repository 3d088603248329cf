import type { IncomingHttpHeaders } from 'node:http';
import Stripe from 'stripe';
import {
  GatewayError, type CheckoutRequest, type CheckoutSession, type GatewayEvent, type GatewayStatus, type PaymentGateway, type RecurringTerms, type SettlementAction,
  type SubscriptionAction,
} from './gateway.js';
import { DEFAULT_TOLERANCE_SEC, WebhookSignatureError } from './signature.js';

/**
 * Stripe behind the gateway interface: a Checkout Session per payment, the buyer pays on Stripe's hosted page, and
 * the result arrives as webhooks verified with `stripe.webhooks.constructEvent` over the raw body
 * (`Stripe-Signature`, same tolerance as the sandbox). A one-time payment is a session in mode 'payment'; a
 * subscription's (`CheckoutRequest.recurring`) is a session in mode 'subscription', after which Stripe charges the
 * renewals by itself until `cancelSubscription`. Configured by the settings `stripeSecretKey` and
 * `stripeWebhookSecret` (env STRIPE_SECRET_KEY / STRIPE_WEBHOOK_SECRET win), and chosen for new checkouts by the
 * setting `paymentGateway = 'stripe'`.
 *
 * Events used (everything else is recorded and ignored):
 *   checkout.session.completed (payment_status 'paid')  → paid      (async methods: 'unpaid' → recorded, wait)
 *     … of a subscription session                       → paid      + subscriptionRef; intentRef read from its first invoice
 *   checkout.session.async_payment_succeeded            → paid
 *   checkout.session.async_payment_failed               → failed
 *   checkout.session.expired                            → cancelled
 *   invoice.paid (billing_reason 'subscription_cycle')  → renewed   gatewayRef = the invoice, intentRef = its PaymentIntent,
 *                                                                   amount = amount_paid, occurredAt = start of the period paid
 *   invoice.payment_failed ('subscription_cycle')       → renewal_failed  (same refs; amount = amount_due; each retry again)
 *     (a 'subscription_create' invoice is the checkout's own payment: recorded only, the session's event settles it)
 *   customer.subscription.deleted                       → subscription_ended  (occurredAt = ended_at)
 *   charge.refunded (fully refunded)                    → refunded
 *     … partly refunded                                 → refunded, with refundedAmount = all refunded so far (a partial refund)
 *   charge.dispute.created                              → chargeback
 * Our payment id travels as `client_reference_id` and `metadata.paymentId` on the session, on a one-time payment's
 * PaymentIntent and on a subscription (`subscription_data.metadata`). Refunds and disputes name only the
 * PaymentIntent, so every payment we settle carries it: a one-time session names it; a subscription's first payment
 * and its renewals are invoices, whose PaymentIntent this API version keeps off the invoice and its webhook, so it is
 * read from the invoice's payments (`paymentOfInvoice`) before the event is handed on. Subscription events carry no
 * paymentId: the only one Stripe echoes is the first payment's, and a renewal is another payment; they are matched
 * by subscriptionRef.
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
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});
const iso = (unixSec: number | null): string | null => (unixSec == null ? null : new Date(unixSec * 1000).toISOString());

/** Stripe's longest recurring interval is three years. */
const MAX_PERIOD_DAYS = 3 * 365;

export class StripeGateway implements PaymentGateway {
  readonly name = 'stripe' as const;
  private readonly client: Stripe;

  constructor(private readonly opts: StripeGatewayOptions) {
    // Webhook verification needs no API key; a placeholder keeps the client constructible for it.
    this.client = opts.client ?? new Stripe(opts.secretKey || 'sk_test_unconfigured', { maxNetworkRetries: 1, timeout: 15_000 });
  }

  async createCheckout(req: CheckoutRequest): Promise<CheckoutSession> {
    if (!this.opts.secretKey) throw new GatewayError('stripe', 'Stripe is not configured (stripeSecretKey)');
    if (req.recurring) assertBillable(req.amount, req.recurring);
    try {
      const currency = req.currency.toLowerCase();
      const productData = { name: req.description.slice(0, 250) };
      const common = {
        client_reference_id: req.paymentId,
        metadata: { paymentId: req.paymentId },
        success_url: req.returnUrl,
        cancel_url: req.cancelUrl,
        // Stripe accepts 30 minutes to 24 hours.
        expires_at: Math.floor(Math.min(Math.max(Date.parse(req.expiresAt), Date.now() + 31 * 60_000), Date.now() + 23 * 3_600_000) / 1000),
        ...(req.customerEmail ? { customer_email: req.customerEmail } : {}),
      };
      const params: Stripe.Checkout.SessionCreateParams = req.recurring
        ? { ...common, ...(await this.subscriptionTerms(req, req.recurring, currency, productData)) }
        : {
            ...common,
            mode: 'payment',
            payment_intent_data: { metadata: { paymentId: req.paymentId } },
            line_items: [{ quantity: 1, price_data: { currency, unit_amount: req.amount, product_data: productData } }],
          };
      const session = await this.client.checkout.sessions.create(params);
      if (!session.url) throw new Error('Stripe returned a session without a URL');
      return { gatewayRef: session.id, redirectUrl: session.url };
    } catch (err) {
      throw new GatewayError('stripe', 'Stripe checkout could not be created', err);
    }
  }

  /**
   * A subscription's session: one inline recurring price at the renewal amount, and the first period charged at
   * `amount`.
   *
   * The interval is `day` × periodDays, never Stripe's calendar `month` / `year` for 30 / 365: our period is a number
   * of days (a payment extends the subscription by `duration_days`), and a calendar month of 31 days would bring the
   * renewal a day after our period ended (the paywall closed meanwhile), February's two days early, a leap year's a
   * day late; with days, Stripe's clock and ours stay in step for as long as the subscription lasts.
   *
   * A coupon that lowered the first period becomes a Stripe coupon of `duration: 'once'` (applied to the first
   * invoice only: Stripe's documented way to discount one period of a subscription) for the difference, made for
   * this checkout alone (`max_redemptions: 1`) and attached with `discounts`. Checkout's subscription mode takes
   * no one-off negative line or invoice item, and a trial would charge nothing at all, so this is the way to charge
   * exactly `amount` now and `renewalAmount` at every renewal.
   *
   * Checkout refuses `payment_intent_data` in this mode: our payment id rides on the subscription
   * (`subscription_data.metadata`), which Stripe copies onto each invoice's subscription details.
   */
  private async subscriptionTerms(
    req: CheckoutRequest,
    recurring: RecurringTerms,
    currency: string,
    productData: { name: string },
  ): Promise<Pick<Stripe.Checkout.SessionCreateParams, 'mode' | 'subscription_data' | 'line_items' | 'discounts'>> {
    // A free trial is Stripe's own trial: nothing charged now, the first invoice when it ends (no coupon needed).
    const trial = recurring.firstPeriodDays !== undefined;
    const firstPeriodOff = trial ? 0 : recurring.renewalAmount - req.amount;
    const coupon =
      firstPeriodOff > 0
        ? await this.client.coupons.create({
            amount_off: firstPeriodOff, currency, duration: 'once', max_redemptions: 1, name: 'First period discount', metadata: { paymentId: req.paymentId },
          })
        : null;
    return {
      mode: 'subscription',
      subscription_data: { metadata: { paymentId: req.paymentId }, ...(trial ? { trial_period_days: recurring.firstPeriodDays } : {}) },
      line_items: [
        {
          quantity: 1,
          price_data: { currency, unit_amount: recurring.renewalAmount, recurring: { interval: 'day', interval_count: recurring.periodDays }, product_data: productData },
        },
      ],
      ...(coupon ? { discounts: [{ coupon: coupon.id }] } : {}),
    };
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
    const mapped = { ...mapStripeEvent(event), storedPayload: keptEvent(event) };
    const invoice = invoiceToRead(event, mapped);
    // A failed read throws (a 500): Stripe delivers the event again later, rather than our payment being settled
    // without the PaymentIntent its refunds will name.
    return invoice ? { ...mapped, intentRef: await this.paymentOfInvoice(invoice) } : mapped;
  }

  /**
   * The PaymentIntent (else the charge) that paid an invoice: a subscription's first payment and its renewals are
   * invoices, and this API version keeps their PaymentIntent off the invoice and off its webhook (the invoice's
   * `payments` are included only on request), so it is read from the invoice's payments. Null without an API key (no
   * checkout of ours can exist then) or when nothing was charged (a first period discounted to zero). Public so the
   * API tests can stand in for Stripe here.
   */
  async paymentOfInvoice(invoiceId: string): Promise<string | null> {
    if (!this.opts.secretKey) return null;
    try {
      const payments = await this.client.invoicePayments.list({ invoice: invoiceId, status: 'paid', limit: 10 });
      return chargeOfInvoicePayments(payments.data);
    } catch (err) {
      throw new GatewayError('stripe', 'Stripe invoice payments could not be read', err);
    }
  }

  async retrieve(gatewayRef: string): Promise<GatewayStatus> {
    let s: Stripe.Checkout.Session;
    try {
      s = await this.client.checkout.sessions.retrieve(gatewayRef);
    } catch (err) {
      throw new GatewayError('stripe', 'Stripe session could not be read', err);
    }
    // The same rule as the webhook: a first period discounted to zero completes with nothing to pay.
    const paid = s.status === 'complete' && (s.payment_status === 'paid' || s.payment_status === 'no_payment_required');
    const invoice = ref(s.invoice);
    const intentRef = ref(s.payment_intent) ?? (paid && s.mode === 'subscription' && s.amount_total && invoice ? await this.paymentOfInvoice(invoice) : null);
    const base = { intentRef, amount: s.amount_total ?? null, currency: s.currency ? s.currency.toUpperCase() : null, subscriptionRef: ref(s.subscription) };
    if (paid) return { state: 'paid', ...base };
    if (s.status === 'expired') return { state: 'cancelled', ...base };
    return { state: 'pending', ...base };
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
    // An invoice paid by a bare charge (no PaymentIntent) is recorded under the charge's id (chargeOfInvoicePayments).
    const target = payment.intentRef.startsWith('ch_') ? { charge: payment.intentRef } : { payment_intent: payment.intentRef };
    try {
      await this.client.refunds.create({ ...target, amount: payment.amount });
    } catch (err) {
      throw new GatewayError('stripe', 'Stripe refund failed', err);
    }
  }

  /**
   * Cancels at Stripe now, not at its period end (`subscriptions.update(ref, { cancel_at_period_end: true })`), and
   * that is what gives our rule: cancelling stops the next renewal, access lasts to the end of the paid period, the
   * subscription lapses at our side. The access is ours: the paywall reads our `expires_at`, and cancelling now
   * neither refunds nor prorates the period paid (`prorate` and `invoice_now` false), so Stripe only has to never
   * charge again, which an immediate cancel guarantees: Stripe stops collecting the subscription's open invoices as
   * well. Cancelling at period end would not: when we cancel after a failed renewal's grace period, Stripe's retries
   * of that invoice would go on until its own period end and could take money for a subscription we already let
   * lapse; and the end would follow Stripe's clock instead of ours. Stripe then sends customer.subscription.deleted
   * (→ subscription_ended) at once.
   */
  async cancelSubscription(subscriptionRef: string): Promise<void> {
    try {
      await this.client.subscriptions.cancel(subscriptionRef, { prorate: false, invoice_now: false });
    } catch (err) {
      // Cancelled already: Stripe answers 404 resource_missing ("No such subscription") for a cancelled one; nothing is left to stop.
      if ((err as { code?: string }).code === 'resource_missing') return;
      throw new GatewayError('stripe', 'Stripe subscription could not be cancelled', err);
    }
  }
}

/** Checked before anything is created at Stripe: what one recurring price and a once-only coupon can bill. */
function assertBillable(amount: number, recurring: RecurringTerms): void {
  const { periodDays, renewalAmount, firstPeriodDays } = recurring;
  // A trial charges nothing now and lasts 1 to 730 days at Stripe; a trial with a price now is not something one
  // Checkout session can express (its first invoice would be the trial's end).
  if (firstPeriodDays !== undefined) {
    if (!Number.isInteger(firstPeriodDays) || firstPeriodDays < 1 || firstPeriodDays > 730) throw new GatewayError('stripe', `Stripe trials last 1 to 730 days, not ${firstPeriodDays}`);
    if (amount !== 0) throw new GatewayError('stripe', `A Stripe trial charges nothing now, not ${amount}`);
  }
  if (!Number.isInteger(periodDays) || periodDays < 1 || periodDays > MAX_PERIOD_DAYS) {
    throw new GatewayError('stripe', `Stripe bills every 1 to ${MAX_PERIOD_DAYS} days, not every ${periodDays}`);
  }
  // A coupon only lowers the first period: one dearer than the renewals is never sold, and Checkout could not add it.
  if (!Number.isInteger(renewalAmount) || renewalAmount < 1 || !Number.isInteger(amount) || amount < 0 || amount > renewalAmount) {
    throw new GatewayError('stripe', `Stripe cannot charge ${amount} now and ${renewalAmount} at each renewal`);
  }
}

/** The charge of an invoice's paid payments: its PaymentIntent, else a bare charge's id (what refunds and disputes name). */
function chargeOfInvoicePayments(payments: unknown): string | null {
  if (!Array.isArray(payments)) return null;
  for (const p of payments as Obj[]) {
    if (p.status != null && p.status !== 'paid') continue;
    const payment = obj(p.payment);
    const found = ref(payment.payment_intent) ?? ref(payment.charge);
    if (found) return found;
  }
  return null;
}

/** Which invoice must be read for the PaymentIntent of a payment we are about to settle, when the event lacks it. */
function invoiceToRead(event: { data: { object: unknown } }, mapped: GatewayEvent): string | null {
  if (mapped.intentRef || mapped.amount === 0) return null;
  if (mapped.action === 'renewed') return mapped.gatewayRef ?? null;
  if (mapped.action === 'paid' && mapped.subscriptionRef) return ref(obj(event.data?.object).invoice);
  return null;
}

/** The subscription an invoice belongs to: `parent.subscription_details` in this API version, `subscription` before. */
function subscriptionOfInvoice(invoice: Obj): string | null {
  return ref(obj(obj(invoice.parent).subscription_details).subscription) ?? ref(invoice.subscription);
}

/**
 * When the period an invoice pays for starts: its subscription line's period (a cycle invoice bills the period
 * ahead), else the invoice's creation (at the period boundary). Renewals and their failures are dated by it rather
 * than by when the money moved: the same date for every retry and for the final success, on Stripe's billing clock.
 */
function periodStartOf(invoice: Obj): number | null {
  const lines = obj(invoice.lines).data;
  if (Array.isArray(lines)) {
    for (const line of lines) {
      const start = num(obj(obj(line).period).start);
      if (start != null) return start;
    }
  }
  return num(invoice.created);
}

/** The fields of an event's object we keep in webhook_events: what the settlement reads, nothing of the buyer. */
const KEPT_OBJECT_FIELDS = [
  'id', 'object', 'status', 'payment_status', 'payment_intent', 'charge', 'subscription', 'client_reference_id', 'metadata', 'amount', 'amount_total',
  'amount_paid', 'amount_due', 'amount_refunded', 'refunded', 'currency', 'billing_reason', 'created', 'canceled_at', 'ended_at',
];

/**
 * What of a Stripe event we store: its id, type, time and the object's fields the settlement reads. Stripe's objects
 * also carry the buyer's name, email, address, phone and card details (customer_details, billing_details,
 * payment_method_details), which this site neither needs nor may keep.
 */
export function keptEvent(event: Pick<Stripe.Event, 'id' | 'type' | 'created'> & { data: { object: unknown } }): string {
  const o = (event.data?.object ?? {}) as Obj;
  const object: Obj = {};
  for (const k of KEPT_OBJECT_FIELDS) if (o[k] !== undefined) object[k] = k === 'payment_intent' || k === 'charge' || k === 'subscription' ? ref(o[k]) : o[k];
  return JSON.stringify({ id: event.id, type: event.type, created: event.created, data: { object } });
}

/** A verified Stripe event → our normalised event (exported for unit tests). */
export function mapStripeEvent(event: Pick<Stripe.Event, 'id' | 'type'> & { created?: number; data: { object: unknown } }): GatewayEvent {
  const o = obj(event.data?.object);
  const metadata = obj(o.metadata);
  const currency = str(o.currency)?.toUpperCase() ?? null;
  const base: GatewayEvent = { id: event.id, type: event.type, action: null };
  const session = (action: SettlementAction | null): GatewayEvent => {
    const subscriptionRef = ref(o.subscription);
    return {
      ...base,
      action,
      paymentId: str(metadata.paymentId) ?? str(o.client_reference_id),
      gatewayRef: str(o.id),
      intentRef: ref(o.payment_intent),
      amount: num(o.amount_total),
      currency,
      ...(subscriptionRef ? { subscriptionRef } : {}),
    };
  };
  // Only a cycle's invoice is a renewal: the first ('subscription_create') is the checkout's, settled by its session.
  const cycle = o.billing_reason === 'subscription_cycle';
  const invoice = (action: SubscriptionAction, amount: unknown): GatewayEvent => ({
    ...base,
    action,
    subscriptionRef: subscriptionOfInvoice(o),
    occurredAt: iso(periodStartOf(o)),
    gatewayRef: str(o.id),
    // Present only where the payload has it: an older API version's `payment_intent` / `charge`, or `payments` included.
    intentRef: chargeOfInvoicePayments(obj(o.payments).data) ?? ref(o.payment_intent) ?? ref(o.charge),
    amount: num(amount),
    currency,
  });
  const charge = (action: SettlementAction | null, extra: Partial<GatewayEvent> = {}): GatewayEvent => ({
    ...base,
    action,
    paymentId: str(metadata.paymentId),
    // The PaymentIntent, as every payment we settle records it (a bare charge: its id, as chargeOfInvoicePayments does).
    intentRef: ref(o.payment_intent) ?? ref(event.type === 'charge.refunded' ? o.id : o.charge),
    amount: num(o.amount),
    currency,
    ...extra,
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
    case 'invoice.paid':
      return cycle ? invoice('renewed', o.amount_paid) : base;
    case 'invoice.payment_failed':
      return cycle ? invoice('renewal_failed', o.amount_due) : base;
    case 'customer.subscription.deleted':
      return { ...base, action: 'subscription_ended', subscriptionRef: str(o.id), occurredAt: iso(num(o.ended_at) ?? num(o.canceled_at) ?? num(event.created)) };
    case 'charge.refunded':
      // Partly refunded: how much so far, which settlement compares with what it recorded (replays count once).
      if (o.refunded === true) return charge('refunded');
      const refunded = num(o.amount_refunded);
      return refunded !== null && Number.isSafeInteger(refunded) && refunded > 0 ? charge('refunded', { refundedAmount: refunded }) : charge(null);
    case 'charge.dispute.created':
      return charge('chargeback');
    default:
      return base;
  }
}
