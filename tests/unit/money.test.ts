import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { BPS, commissionRateFor, couponDiscount, discountedPrice, negate, priceLines, splitCommission } from '../../server/payments/pricing.js';
import { signPayload, verifySignature, WebhookSignatureError } from '../../server/payments/signature.js';
import { mapStripeEvent, StripeGateway } from '../../server/payments/stripe.gateway.js';
import { GatewayError } from '../../server/payments/gateway.js';
import { SandboxGateway, sandboxWebhookSecret } from '../../server/payments/sandbox.gateway.js';

describe('pricing: integers only, parts add up', () => {
  it('coupon: price = original × (1 − value), discount rounded down', () => {
    expect(couponDiscount(1299, 1000)).toBe(129);
    expect(discountedPrice(1299, 1000)).toBe(1170);
    expect(discountedPrice(999, 3333)).toBe(667);
    expect(discountedPrice(1000, 0)).toBe(1000);
    expect(discountedPrice(1000, BPS)).toBe(0);
    expect(() => couponDiscount(10.5, 1000)).toThrow(RangeError);
    expect(() => couponDiscount(100, 10_001)).toThrow(RangeError);
    expect(() => couponDiscount(-1, 1000)).toThrow(RangeError);
  });

  it('lines: per-line discount, sums are exact', () => {
    const p = priceLines([{ unitPrice: 1500, quantity: 2 }, { unitPrice: 999, quantity: 1 }], 3333);
    expect(p).toMatchObject({ originalPrice: 3999, discount: 999 + 332, amount: 3999 - 1331 });
    expect(p.lines.reduce((n, l) => n + l.amount, 0)).toBe(p.amount);
    expect(() => priceLines([{ unitPrice: 100, quantity: 0 }])).toThrow(RangeError);
  });

  it('commission: half up, net + commission = gross, reversal negates exactly', () => {
    expect(splitCommission(1000, 2000)).toEqual({ gross: 1000, commission: 200, net: 800 });
    expect(splitCommission(1667, 1000)).toEqual({ gross: 1667, commission: 167, net: 1500 });
    expect(splitCommission(1299, 2000)).toEqual({ gross: 1299, commission: 260, net: 1039 });
    expect(splitCommission(5, 1000)).toEqual({ gross: 5, commission: 1, net: 4 });
    for (let gross = 0; gross < 2000; gross += 7) {
      for (const bps of [0, 1, 1500, 2000, 3333, 10_000]) {
        const s = splitCommission(gross, bps);
        expect(s.net + s.commission).toBe(gross);
        expect(Number.isInteger(s.commission)).toBe(true);
        const r = negate(s);
        expect(r.gross + s.gross + r.net + s.net + r.commission + s.commission).toBe(0);
      }
    }
    expect(commissionRateFor(null, 2000)).toBe(2000);
    expect(commissionRateFor(1000, 2000)).toBe(1000);
    expect(commissionRateFor(0, 2000)).toBe(0);
  });
});

describe('sandbox signatures (HMAC-SHA256 over the raw body, with a timestamp)', () => {
  const secret = sandboxWebhookSecret('app-secret');
  const body = Buffer.from('{"id":"evt_1","type":"charge.succeeded"}');

  it('accepts a valid signature and rejects everything else', () => {
    const now = 1_700_000_000;
    const header = signPayload(secret, body, now);
    expect(() => verifySignature(secret, body, header, { now })).not.toThrow();
    expect(() => verifySignature(secret, body, header, { now: now + 299 })).not.toThrow();
    const bad: Array<[string | undefined, Buffer, number]> = [
      [undefined, body, now],
      ['', body, now],
      [header, Buffer.from(`${body} `), now],
      [header, body, now + 301],
      [header, body, now - 301],
      [signPayload('other', body, now), body, now],
      [header.slice(0, -1) + (header.endsWith('0') ? '1' : '0'), body, now],
      [`t=${now}`, body, now],
      ['v1=abc', body, now],
    ];
    for (const [h, b, at] of bad) expect(() => verifySignature(secret, b, h, { now: at })).toThrow(WebhookSignatureError);
    expect(() => verifySignature('', body, header, { now })).toThrow(WebhookSignatureError);
  });

  it('derives the webhook secret from APP_SECRET without exposing it', () => {
    expect(sandboxWebhookSecret('a')).not.toBe(sandboxWebhookSecret('b'));
    expect(sandboxWebhookSecret('a')).not.toContain('a'.repeat(2));
    expect(sandboxWebhookSecret('a')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('parses a signed provider event into a settlement action', async () => {
    const gateway = new SandboxGateway({ db: undefined as never, secret });
    const { body: raw, headers } = gateway.buildEvent('charge.refunded', { id: 'sbx_1', paymentId: 'p1', amount: 500, currency: 'usd' });
    const e = await gateway.parseWebhook(Buffer.from(raw), headers);
    expect(e).toMatchObject({ type: 'charge.refunded', action: 'refunded', paymentId: 'p1', gatewayRef: 'sbx_1', amount: 500, currency: 'USD' });
    const unknown = gateway.buildEvent('charge.updated', { id: 'sbx_1', paymentId: 'p1', amount: 500, currency: 'USD' });
    expect((await gateway.parseWebhook(Buffer.from(unknown.body), unknown.headers)).action).toBeNull();
    const signedJunk = Buffer.from('{"nope":true}');
    await expect(gateway.parseWebhook(signedJunk, { 'x-sandbox-signature': signPayload(secret, signedJunk) })).rejects.toBeInstanceOf(WebhookSignatureError);
  });
});

describe('Stripe gateway: signature verification with stripe.webhooks (no network)', () => {
  const webhookSecret = 'whsec_test_secret';
  const stripe = new Stripe('sk_test_dummy');
  const gateway = new StripeGateway({ secretKey: 'sk_test_dummy', webhookSecret });
  const event = (type: string, object: Record<string, unknown>) => JSON.stringify({ id: `evt_${type}`, object: 'event', type, data: { object } });

  it('accepts an event signed with the endpoint secret and maps it', async () => {
    const payload = event('checkout.session.completed', {
      id: 'cs_test_1', object: 'checkout.session', payment_status: 'paid', client_reference_id: 'pay_1', metadata: { paymentId: 'pay_1' },
      payment_intent: 'pi_1', amount_total: 1170, currency: 'usd',
    });
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
    const { storedPayload, ...e } = await gateway.parseWebhook(Buffer.from(payload), { 'stripe-signature': header });
    expect(e).toEqual({
      id: 'evt_checkout.session.completed', type: 'checkout.session.completed', action: 'paid', paymentId: 'pay_1', gatewayRef: 'cs_test_1',
      intentRef: 'pi_1', amount: 1170, currency: 'USD',
    });
    // What is stored of it: the fields the settlement reads.
    expect(JSON.parse(storedPayload!)).toEqual({
      id: 'evt_checkout.session.completed', type: 'checkout.session.completed',
      data: { object: { id: 'cs_test_1', object: 'checkout.session', payment_status: 'paid', client_reference_id: 'pay_1', metadata: { paymentId: 'pay_1' }, payment_intent: 'pi_1', amount_total: 1170, currency: 'usd' } },
    });
  });

  it('rejects a missing, foreign, stale or tampered signature', async () => {
    const payload = event('checkout.session.expired', { id: 'cs_1', metadata: { paymentId: 'pay_1' } });
    const foreign = stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_other' });
    const stale = stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret, timestamp: Math.floor(Date.now() / 1000) - 3600 });
    const good = stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
    for (const [headers, body] of [
      [{}, payload],
      [{ 'stripe-signature': foreign }, payload],
      [{ 'stripe-signature': stale }, payload],
      [{ 'stripe-signature': good }, payload.replace('cs_1', 'cs_2')],
    ] as const) {
      await expect(gateway.parseWebhook(Buffer.from(body), headers)).rejects.toBeInstanceOf(WebhookSignatureError);
    }
    await expect(new StripeGateway({ secretKey: '', webhookSecret: '' }).parseWebhook(Buffer.from(payload), { 'stripe-signature': good })).rejects.toBeInstanceOf(WebhookSignatureError);
  });

  it('maps the events it acts on, and only those', () => {
    const m = (type: string, object: Record<string, unknown>) => mapStripeEvent({ id: 'e', type, data: { object } } as never);
    expect(m('checkout.session.completed', { id: 'cs', payment_status: 'unpaid' }).action).toBeNull();
    expect(m('checkout.session.async_payment_succeeded', { id: 'cs', client_reference_id: 'p' })).toMatchObject({ action: 'paid', paymentId: 'p' });
    expect(m('checkout.session.async_payment_failed', { id: 'cs' }).action).toBe('failed');
    expect(m('checkout.session.expired', { id: 'cs' }).action).toBe('cancelled');
    expect(m('charge.refunded', { refunded: true, payment_intent: 'pi_9' })).toMatchObject({ action: 'refunded', intentRef: 'pi_9' });
    expect(m('charge.refunded', { refunded: false, payment_intent: 'pi_9' }).action).toBeNull();
    expect(m('charge.dispute.created', { payment_intent: { id: 'pi_8' } })).toMatchObject({ action: 'chargeback', intentRef: 'pi_8' });
    expect(m('customer.created', {}).action).toBeNull();
  });
});

/**
 * A local HTTP server standing in for api.stripe.com: the real Stripe client talks to it (host / port / protocol),
 * so what we send is checked as Stripe would receive it (form-encoded), and what Stripe answers is what we parse.
 */
interface StripeCall {
  method: string;
  path: string;
  /** Query string and form body together, keys as Stripe's encoding writes them: `line_items[0][price_data][currency]`. */
  params: Record<string, string>;
}
type StripeAnswer = { status?: number; body: unknown };

async function stripeStandIn(answer: (call: StripeCall) => StripeAnswer) {
  const calls: StripeCall[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stripe.local');
      const params = Object.fromEntries([...url.searchParams, ...new URLSearchParams(Buffer.concat(chunks).toString('utf8'))]);
      const call = { method: req.method ?? '', path: url.pathname, params };
      calls.push(call);
      const { status = 200, body } = answer(call);
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_local' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = new Stripe('sk_test_local', { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 0 });
  return { calls, client, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The error body Stripe answers for a subscription that no longer exists (a cancelled one included). */
const noSuchSubscription = (id: string): StripeAnswer => ({
  status: 404,
  body: { error: { type: 'invalid_request_error', code: 'resource_missing', param: 'id', message: `No such subscription: '${id}'` } },
});

describe('Stripe gateway: subscriptions, against a local stand-in for api.stripe.com', () => {
  const webhookSecret = 'whsec_test_subscriptions';
  const signer = new Stripe('sk_test_dummy');
  let stripe: Awaited<ReturnType<typeof stripeStandIn>>;
  let gateway: StripeGateway;
  const day = 86_400;
  const periodStart = 1_790_000_000;

  beforeAll(async () => {
    stripe = await stripeStandIn(({ method, path }) => {
      if (method === 'POST' && path === '/v1/coupons') return { body: { id: 'co_first_period', object: 'coupon', duration: 'once' } };
      if (method === 'POST' && path === '/v1/checkout/sessions') return { body: { id: 'cs_local_1', object: 'checkout.session', url: 'https://checkout.stripe.com/c/pay/cs_local_1' } };
      if (method === 'GET' && path === '/v1/invoice_payments') {
        return {
          body: {
            object: 'list', url: '/v1/invoice_payments', has_more: false,
            data: [{ id: 'inpay_1', object: 'invoice_payment', status: 'paid', is_default: true, amount_paid: 999, currency: 'usd', payment: { type: 'payment_intent', payment_intent: 'pi_of_invoice' } }],
          },
        };
      }
      if (method === 'DELETE' && path === '/v1/subscriptions/sub_live') return { body: { id: 'sub_live', object: 'subscription', status: 'canceled' } };
      if (method === 'DELETE' && path === '/v1/subscriptions/sub_gone') return noSuchSubscription('sub_gone');
      return { status: 500, body: { error: { type: 'api_error', message: 'Something went wrong on Stripe’s end' } } };
    });
    gateway = new StripeGateway({ secretKey: 'sk_test_local', webhookSecret, client: stripe.client });
  });
  afterAll(async () => {
    await stripe?.close();
  });

  const request = { paymentId: 'pay_sub_1', currency: 'USD', description: 'Ava: monthly subscription', siteUrl: 'https://fans.example', returnUrl: 'https://fans.example/payments/result/pay_sub_1', cancelUrl: 'https://fans.example/payments/result/pay_sub_1?cancelled=1', expiresAt: new Date(Date.now() + 3_600_000).toISOString(), customerEmail: 'fan@example.com' };
  const sessionCall = () => stripe.calls.find((c) => c.path === '/v1/checkout/sessions')!.params;
  const signed = (type: string, object: Record<string, unknown>, created = periodStart + 3_600) => {
    const payload = JSON.stringify({ id: `evt_${type}_${Object.keys(object).length}`, object: 'event', api_version: '2026-10-28.endive', created, type, data: { object } });
    // What is stored of each event is checked once above; here the normalised event.
    return gateway
      .parseWebhook(Buffer.from(payload), { 'stripe-signature': signer.webhooks.generateTestHeaderString({ payload, secret: webhookSecret }) })
      .then(({ storedPayload: _stored, ...e }) => e);
  };

  it('a free trial is Stripe\'s trial (trial_period_days, no coupon, nothing charged now); a trial with a price now is refused before Stripe is asked', async () => {
    stripe.calls.length = 0;
    await gateway.createCheckout({ ...request, amount: 0, recurring: { periodDays: 30, renewalAmount: 999, firstPeriodDays: 7 } });
    expect(stripe.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /v1/checkout/sessions']);
    expect(sessionCall()).toMatchObject({ mode: 'subscription', 'subscription_data[trial_period_days]': '7', 'line_items[0][price_data][unit_amount]': '999' });
    expect(Object.keys(sessionCall()).filter((k) => k.startsWith('discounts'))).toEqual([]);
    stripe.calls.length = 0;
    await expect(gateway.createCheckout({ ...request, amount: 500, recurring: { periodDays: 30, renewalAmount: 999, firstPeriodDays: 7 } })).rejects.toThrow(/trial charges nothing now/);
    await expect(gateway.createCheckout({ ...request, amount: 0, recurring: { periodDays: 30, renewalAmount: 999, firstPeriodDays: 0 } })).rejects.toThrow(/1 to 730 days/);
    expect(stripe.calls).toEqual([]);
  });

  it('a subscription checkout: mode subscription, one inline price renewing every periodDays days, the first period lowered by a coupon used once', async () => {
    stripe.calls.length = 0;
    const session = await gateway.createCheckout({ ...request, amount: 799, recurring: { periodDays: 30, renewalAmount: 999 } });
    expect(session).toEqual({ gatewayRef: 'cs_local_1', redirectUrl: 'https://checkout.stripe.com/c/pay/cs_local_1' });
    expect(stripe.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /v1/coupons', 'POST /v1/checkout/sessions']);
    expect(stripe.calls[0]!.params).toEqual({ amount_off: '200', currency: 'usd', duration: 'once', max_redemptions: '1', name: 'First period discount', 'metadata[paymentId]': 'pay_sub_1' });
    const p = sessionCall();
    expect(p).toMatchObject({
      mode: 'subscription',
      client_reference_id: 'pay_sub_1',
      'metadata[paymentId]': 'pay_sub_1',
      'subscription_data[metadata][paymentId]': 'pay_sub_1',
      'line_items[0][quantity]': '1',
      'line_items[0][price_data][currency]': 'usd',
      'line_items[0][price_data][unit_amount]': '999',
      'line_items[0][price_data][recurring][interval]': 'day',
      'line_items[0][price_data][recurring][interval_count]': '30',
      'line_items[0][price_data][product_data][name]': 'Ava: monthly subscription',
      'discounts[0][coupon]': 'co_first_period',
      success_url: request.returnUrl,
      cancel_url: request.cancelUrl,
      customer_email: 'fan@example.com',
    });
    expect(Number(p.expires_at)).toBeGreaterThan(Date.now() / 1000 + 30 * 60);
    // Checkout refuses a PaymentIntent's data in subscription mode.
    expect(Object.keys(p).filter((k) => k.startsWith('payment_intent_data'))).toEqual([]);
  });

  it('the full price: no coupon; a year is 365 days; a one-time checkout is unchanged', async () => {
    stripe.calls.length = 0;
    await gateway.createCheckout({ ...request, amount: 9999, recurring: { periodDays: 365, renewalAmount: 9999 } });
    expect(stripe.calls.map((c) => c.path)).toEqual(['/v1/checkout/sessions']);
    expect(sessionCall()).toMatchObject({ mode: 'subscription', 'line_items[0][price_data][unit_amount]': '9999', 'line_items[0][price_data][recurring][interval_count]': '365' });
    expect(Object.keys(sessionCall()).filter((k) => k.startsWith('discounts'))).toEqual([]);

    stripe.calls.length = 0;
    await gateway.createCheckout({ ...request, amount: 1299 });
    expect(stripe.calls.map((c) => c.path)).toEqual(['/v1/checkout/sessions']);
    const p = sessionCall();
    expect(p).toMatchObject({ mode: 'payment', 'payment_intent_data[metadata][paymentId]': 'pay_sub_1', 'line_items[0][price_data][unit_amount]': '1299', 'metadata[paymentId]': 'pay_sub_1' });
    expect(Object.keys(p).filter((k) => k.includes('recurring') || k.startsWith('subscription_data') || k.startsWith('discounts'))).toEqual([]);
  });

  it('terms one recurring price and a once-only coupon cannot bill are refused before anything is created', async () => {
    stripe.calls.length = 0;
    for (const [amount, recurring] of [
      [1200, { periodDays: 30, renewalAmount: 999 }],
      [999, { periodDays: 0, renewalAmount: 999 }],
      [999, { periodDays: 1096, renewalAmount: 999 }],
      [0, { periodDays: 30, renewalAmount: 0 }],
    ] as const) {
      await expect(gateway.createCheckout({ ...request, amount, recurring })).rejects.toBeInstanceOf(GatewayError);
    }
    expect(stripe.calls).toEqual([]);
  });

  it('checkout.session.completed of a subscription session → paid with the subscription, and the PaymentIntent of its first invoice read from Stripe', async () => {
    stripe.calls.length = 0;
    const e = await signed('checkout.session.completed', {
      id: 'cs_local_1', object: 'checkout.session', mode: 'subscription', status: 'complete', payment_status: 'paid', client_reference_id: 'pay_sub_1',
      metadata: { paymentId: 'pay_sub_1' }, subscription: 'sub_live', invoice: 'in_first', payment_intent: null, amount_subtotal: 999, amount_total: 799, currency: 'usd',
      total_details: { amount_discount: 200, amount_shipping: 0, amount_tax: 0 },
    });
    expect(e).toEqual({
      id: expect.any(String), type: 'checkout.session.completed', action: 'paid', paymentId: 'pay_sub_1', gatewayRef: 'cs_local_1', subscriptionRef: 'sub_live',
      intentRef: 'pi_of_invoice', amount: 799, currency: 'USD',
    });
    expect(stripe.calls.map((c) => [c.method, c.path, c.params])).toEqual([['GET', '/v1/invoice_payments', { invoice: 'in_first', status: 'paid', limit: '10' }]]);
  });

  it('invoice.paid of a cycle (this API version: the subscription under parent.subscription_details, no PaymentIntent on the invoice) → renewed', async () => {
    stripe.calls.length = 0;
    const renewal = {
      id: 'in_renewal_1', object: 'invoice', billing_reason: 'subscription_cycle', status: 'paid', collection_method: 'charge_automatically', customer: 'cus_1',
      amount_due: 999, amount_paid: 999, amount_remaining: 0, currency: 'usd', created: periodStart + 60, period_start: periodStart - 30 * day, period_end: periodStart,
      parent: { type: 'subscription_details', quote_details: null, subscription_details: { metadata: { paymentId: 'pay_sub_1' }, subscription: 'sub_live' } },
      lines: {
        object: 'list', has_more: false, url: '/v1/invoices/in_renewal_1/lines',
        data: [{
          id: 'il_1', object: 'line_item', amount: 999, currency: 'usd', period: { start: periodStart, end: periodStart + 30 * day },
          parent: { type: 'subscription_item_details', subscription_item_details: { subscription: 'sub_live', subscription_item: 'si_1', proration: false, invoice_item: null } },
        }],
      },
      status_transitions: { finalized_at: periodStart + 3_660, paid_at: periodStart + 3_700 },
    };
    const e = await signed('invoice.paid', renewal);
    expect(e).toEqual({
      id: expect.any(String), type: 'invoice.paid', action: 'renewed', subscriptionRef: 'sub_live', occurredAt: new Date(periodStart * 1000).toISOString(),
      gatewayRef: 'in_renewal_1', intentRef: 'pi_of_invoice', amount: 999, currency: 'USD',
    });
    expect(stripe.calls.map((c) => c.params.invoice)).toEqual(['in_renewal_1']);

    // The first invoice is the checkout's own payment, settled by its session's event: recorded, nothing read.
    stripe.calls.length = 0;
    const first = await signed('invoice.paid', { ...renewal, id: 'in_first', billing_reason: 'subscription_create' });
    expect(first).toEqual({ id: expect.any(String), type: 'invoice.paid', action: null });
    expect(stripe.calls).toEqual([]);
  });

  it('invoice.payment_failed of a cycle → renewal_failed, each retry dated by the same period start; customer.subscription.deleted → subscription_ended', async () => {
    stripe.calls.length = 0;
    const failed = {
      id: 'in_renewal_2', object: 'invoice', billing_reason: 'subscription_cycle', status: 'open', amount_due: 999, amount_paid: 0, currency: 'usd', created: periodStart,
      parent: { type: 'subscription_details', quote_details: null, subscription_details: { metadata: {}, subscription: 'sub_live' } },
      lines: { object: 'list', has_more: false, data: [{ id: 'il_2', object: 'line_item', period: { start: periodStart, end: periodStart + 30 * day } }] },
    };
    const attempts = [await signed('invoice.payment_failed', failed, periodStart + 3_700), await signed('invoice.payment_failed', { ...failed, attempt_count: 2 }, periodStart + 3 * day)];
    for (const e of attempts) {
      expect(e).toMatchObject({ action: 'renewal_failed', subscriptionRef: 'sub_live', gatewayRef: 'in_renewal_2', amount: 999, currency: 'USD', occurredAt: new Date(periodStart * 1000).toISOString(), intentRef: null });
    }
    expect((await signed('invoice.payment_failed', { ...failed, billing_reason: 'subscription_create' })).action).toBeNull();
    expect(stripe.calls).toEqual([]);

    const ended = await signed('customer.subscription.deleted', {
      id: 'sub_live', object: 'subscription', status: 'canceled', cancel_at_period_end: false, canceled_at: periodStart + 5 * day, ended_at: periodStart + 5 * day,
      metadata: { paymentId: 'pay_sub_1' }, cancellation_details: { reason: 'cancellation_requested', comment: null, feedback: null },
    });
    expect(ended).toEqual({ id: expect.any(String), type: 'customer.subscription.deleted', action: 'subscription_ended', subscriptionRef: 'sub_live', occurredAt: new Date((periodStart + 5 * day) * 1000).toISOString() });
  });

  it('a renewal’s charge refunded in part, then in full, and disputed: each names the PaymentIntent the renewal recorded', async () => {
    const charge = { id: 'ch_renewal_1', object: 'charge', amount: 999, currency: 'usd', payment_intent: 'pi_of_invoice', metadata: {}, captured: true, paid: true };
    expect(await signed('charge.refunded', { ...charge, amount_refunded: 300, refunded: false })).toEqual({
      id: expect.any(String), type: 'charge.refunded', action: 'refunded', paymentId: null, intentRef: 'pi_of_invoice', amount: 999, currency: 'USD', refundedAmount: 300,
    });
    // Refunded whole: no running total, so settlement reverses the whole payment whatever amount it recorded.
    const whole = await signed('charge.refunded', { ...charge, amount_refunded: 999, refunded: true, status: 'succeeded' });
    expect(whole).toMatchObject({ action: 'refunded', intentRef: 'pi_of_invoice', amount: 999 });
    expect(whole.refundedAmount).toBeUndefined();
    // Nothing refunded yet, or a total that is not whole cents: nothing to act on.
    expect((await signed('charge.refunded', { ...charge, amount_refunded: 0, refunded: false })).action).toBeNull();
    expect((await signed('charge.refunded', { ...charge, amount_refunded: 2.5, refunded: false })).action).toBeNull();
    expect(await signed('charge.dispute.created', { id: 'dp_1', object: 'dispute', amount: 999, currency: 'usd', charge: 'ch_renewal_1', payment_intent: 'pi_of_invoice', metadata: {}, status: 'needs_response' })).toMatchObject({
      action: 'chargeback', intentRef: 'pi_of_invoice', amount: 999,
    });
  });

  it('Stripe out of reach while reading an invoice’s payment: an error that is not a signature rejection (answered 500, so Stripe delivers again)', async () => {
    const down = await stripeStandIn(() => ({ status: 500, body: { error: { type: 'api_error', message: 'down' } } }));
    try {
      const offline = new StripeGateway({ secretKey: 'sk_test_local', webhookSecret, client: down.client });
      const payload = JSON.stringify({ id: 'evt_renewal_down', object: 'event', type: 'invoice.paid', data: { object: { id: 'in_x', billing_reason: 'subscription_cycle', amount_paid: 999, currency: 'usd', parent: { subscription_details: { subscription: 'sub_live' } } } } });
      const parsing = offline.parseWebhook(Buffer.from(payload), { 'stripe-signature': signer.webhooks.generateTestHeaderString({ payload, secret: webhookSecret }) });
      await expect(parsing).rejects.toBeInstanceOf(GatewayError);
      expect(down.calls.map((c) => c.path)).toEqual(['/v1/invoice_payments']);
    } finally {
      await down.close();
    }
  });

  it('cancelSubscription cancels now, without proration or a final invoice; already cancelled is not an error; Stripe failing is', async () => {
    stripe.calls.length = 0;
    await gateway.cancelSubscription('sub_live');
    await expect(gateway.cancelSubscription('sub_gone')).resolves.toBeUndefined();
    await expect(gateway.cancelSubscription('sub_broken')).rejects.toBeInstanceOf(GatewayError);
    expect(stripe.calls.map((c) => [c.method, c.path, c.params])).toEqual([
      ['DELETE', '/v1/subscriptions/sub_live', { prorate: 'false', invoice_now: 'false' }],
      ['DELETE', '/v1/subscriptions/sub_gone', { prorate: 'false', invoice_now: 'false' }],
      ['DELETE', '/v1/subscriptions/sub_broken', { prorate: 'false', invoice_now: 'false' }],
    ]);
  });
});

describe('Stripe gateway: mapping of the shapes other API versions send', () => {
  const m = (type: string, object: Record<string, unknown>) => mapStripeEvent({ id: 'e', type, data: { object } } as never);

  it('an older invoice (subscription and payment_intent on the invoice itself) or one with its payments included needs no look-up', () => {
    const legacy = m('invoice.paid', { id: 'in_old', billing_reason: 'subscription_cycle', subscription: 'sub_old', payment_intent: 'pi_old', amount_paid: 499, currency: 'eur', created: 1_790_000_000 });
    expect(legacy).toMatchObject({ action: 'renewed', subscriptionRef: 'sub_old', intentRef: 'pi_old', gatewayRef: 'in_old', amount: 499, currency: 'EUR', occurredAt: new Date(1_790_000_000_000).toISOString() });
    const included = m('invoice.paid', {
      id: 'in_new', billing_reason: 'subscription_cycle', amount_paid: 499, currency: 'eur', parent: { subscription_details: { subscription: { id: 'sub_new', object: 'subscription' } } },
      payments: { object: 'list', data: [{ status: 'canceled', payment: { type: 'payment_intent', payment_intent: 'pi_abandoned' } }, { status: 'paid', payment: { type: 'payment_intent', payment_intent: { id: 'pi_paid' } } }] },
    });
    expect(included).toMatchObject({ subscriptionRef: 'sub_new', intentRef: 'pi_paid' });
    // Paid by a bare charge: its id, which the charge's own refund names too.
    expect(m('invoice.paid', { id: 'in_ch', billing_reason: 'subscription_cycle', charge: 'ch_bare' }).intentRef).toBe('ch_bare');
    expect(m('charge.refunded', { id: 'ch_bare', refunded: true, payment_intent: null }).intentRef).toBe('ch_bare');
  });

  it('a subscription ended without ended_at is dated by the event; invoices outside a cycle are recorded only', () => {
    expect(mapStripeEvent({ id: 'e', type: 'customer.subscription.deleted', created: 1_790_000_000, data: { object: { id: 'sub_1' } } } as never).occurredAt).toBe(new Date(1_790_000_000_000).toISOString());
    for (const reason of ['subscription_update', 'subscription_threshold', 'manual', null]) {
      expect(m('invoice.paid', { id: 'in', billing_reason: reason, subscription: 'sub_1' }).action).toBeNull();
    }
    // A one-time session carries no subscriptionRef at all.
    expect(m('checkout.session.completed', { id: 'cs', mode: 'payment', payment_status: 'paid', payment_intent: 'pi' })).not.toHaveProperty('subscriptionRef');
  });
});
