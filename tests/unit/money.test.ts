import { describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { BPS, commissionRateFor, couponDiscount, discountedPrice, negate, priceLines, splitCommission } from '../../server/payments/pricing.js';
import { signPayload, verifySignature, WebhookSignatureError } from '../../server/payments/signature.js';
import { mapStripeEvent, StripeGateway } from '../../server/payments/stripe.gateway.js';
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
    const e = await gateway.parseWebhook(Buffer.from(payload), { 'stripe-signature': header });
    expect(e).toEqual({
      id: 'evt_checkout.session.completed', type: 'checkout.session.completed', action: 'paid', paymentId: 'pay_1', gatewayRef: 'cs_test_1',
      intentRef: 'pi_1', amount: 1170, currency: 'USD',
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
