import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CcbillGateway, decimalToMinor, formDigest, mapCcbillEvent, readBody, readDatalinkAnswer, saleDigest, timestampToIso, type CcbillGatewayOptions,
} from '../../server/payments/ccbill.gateway.js';
import { GatewayError, type CheckoutRequest, type GatewayEvent } from '../../server/payments/gateway.js';
import { WebhookSignatureError } from '../../server/payments/signature.js';
import { ipv4InRanges, parseIpv4Ranges } from '../../common/ip-ranges.js';
import {
  ACCOUNT, asForm, asJson, cancellation, CCBILL_IP, expiration, newSaleFailure, newSaleSuccess, OUTSIDE_IP, renewalFailure, renewalSuccess, reversal,
  startDatalinkStandIn, type DatalinkStandIn, type Payload,
} from '../helpers/ccbill.js';

/**
 * The CCBill gateway on its own: the formDigest against CCBill's worked example, the FlexForms link it builds, the
 * checks a webhook must pass (sender address, account, sale digest), what every event becomes, and the DataLink
 * cancellation against a stand-in on a local port. Payloads carry the fields CCBill's Webhooks pages list per event
 * (tests/helpers/ccbill.ts). The API suite (tests/api/ccbill.test.ts) runs the same through the real server.
 */

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const gateway = (o: Partial<CcbillGatewayOptions> = {}) => new CcbillGateway({ ...ACCOUNT, ...o });
const from = (ip: string, eventType: string) => ({ clientIp: ip, query: { eventType } });
const parse = (p: Payload | string, eventType: string, ip = CCBILL_IP, g = gateway()) =>
  g.parseWebhook(Buffer.from(typeof p === 'string' ? p : asForm(p)), {}, from(ip, eventType));
const refusal = async (promise: Promise<unknown>) => {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(WebhookSignatureError);
  return (err as Error).message;
};
const checkout = (o: Partial<CheckoutRequest> = {}): CheckoutRequest => ({
  paymentId: 'pay_1', amount: 999, currency: 'USD', description: 'A video', siteUrl: 'http://site.test', returnUrl: 'http://site.test/r', cancelUrl: 'http://site.test/c',
  expiresAt: new Date(Date.now() + 1_800_000).toISOString(), ...o,
});

describe('formDigest', () => {
  it("matches CCBill's worked example for a one-time price", () => {
    expect(formDigest({ initialPrice: '10.00', initialPeriod: '30', currencyCode: '840' }, '7d901dad245fd0ff6bc20d06')).toBe('a7459445d0e5dc0963fe736dc5cf900b');
  });

  it('takes the recurring values in their documented order: initial price and period, recurring price and period, rebills, currency, salt', () => {
    const p = { initialPrice: '9.99', initialPeriod: '30', recurringPrice: '9.99', recurringPeriod: '30', numRebills: '99', currencyCode: '840' };
    expect(formDigest(p, 'salt')).toBe(md5('9.99309.993099840salt'));
  });

  it("the sale's validation digest is MD5(subscriptionId + '1' + salt)", () => {
    expect(saleDigest('1000000000', 'salt')).toBe(md5('10000000001salt'));
  });
});

describe('the FlexForms link', () => {
  it('a one-time price: account, subaccount, price as decimal text, a period, the numeric currency, the digest and our pass-through fields', async () => {
    const session = await gateway().createCheckout(checkout());
    const url = new URL(session.redirectUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`https://api.ccbill.com/wap-frontflex/flexforms/${ACCOUNT.flexFormId}`);
    const q = Object.fromEntries(url.searchParams);
    expect(q).toMatchObject({ clientAccnum: '900100', clientSubacc: '0000', initialPrice: '9.99', initialPeriod: '365', currencyCode: '840', 'X-paymentId': 'pay_1' });
    expect(q).not.toHaveProperty('recurringPrice');
    expect(q.formDigest).toBe(md5(`9.99365840${ACCOUNT.salt}`));
    expect(session.gatewayRef).toMatch(/^ccb_[0-9a-f]{24}$/);
    expect(q['X-checkoutRef']).toBe(session.gatewayRef);
    // Unique per checkout (payments_gateway_ref_uq).
    expect((await gateway().createCheckout(checkout())).gatewayRef).not.toBe(session.gatewayRef);
  });

  it('a subscription: recurring price and period, rebills until cancelled, the recurring digest; a coupon lowers only the first period', async () => {
    const session = await gateway().createCheckout(checkout({ amount: 899, currency: 'eur', recurring: { periodDays: 30, renewalAmount: 999 } }));
    const q = Object.fromEntries(new URL(session.redirectUrl).searchParams);
    expect(q).toMatchObject({ initialPrice: '8.99', initialPeriod: '30', recurringPrice: '9.99', recurringPeriod: '30', numRebills: '99', currencyCode: '978' });
    expect(q.formDigest).toBe(md5(`8.99309.993099978${ACCOUNT.salt}`));
  });

  it('a free trial is a free initial period of the trial days, then the recurring price; any other sale for 0 is refused', async () => {
    const session = await gateway().createCheckout(checkout({ amount: 0, recurring: { periodDays: 30, renewalAmount: 999, firstPeriodDays: 7 } }));
    const q = Object.fromEntries(new URL(session.redirectUrl).searchParams);
    expect(q).toMatchObject({ initialPrice: '0.00', initialPeriod: '7', recurringPrice: '9.99', recurringPeriod: '30', numRebills: '99' });
    expect(q.formDigest).toBe(md5(`0.0079.993099840${ACCOUNT.salt}`));
    await expect(gateway().createCheckout(checkout({ amount: 0 }))).rejects.toThrow(/only a free trial|but a free trial/);
    await expect(gateway().createCheckout(checkout({ amount: 0, recurring: { periodDays: 30, renewalAmount: 999 } }))).rejects.toThrow(/but a free trial/);
  });

  it('its address is configurable; a currency CCBill does not list, or a missing setting, is a gateway error (the checkout answers 502)', async () => {
    const session = await gateway({ flexFormsUrl: 'http://127.0.0.1:9/flex/' }).createCheckout(checkout());
    expect(session.redirectUrl.startsWith(`http://127.0.0.1:9/flex/${ACCOUNT.flexFormId}?`)).toBe(true);
    await expect(gateway().createCheckout(checkout({ currency: 'CHF' }))).rejects.toBeInstanceOf(GatewayError);
    await expect(gateway({ salt: '' }).createCheckout(checkout())).rejects.toThrow(/not configured/);
    await expect(gateway({ flexFormId: '' }).createCheckout(checkout())).rejects.toBeInstanceOf(GatewayError);
  });
});

describe('webhook verification', () => {
  const sale = newSaleSuccess({ paymentId: 'pay_1', checkoutRef: 'ccb_abc' });

  it("believes a NewSaleSuccess from CCBill's addresses whose digest is right", async () => {
    const event = await parse(sale, 'NewSaleSuccess');
    expect(event.action).toBe('paid');
    // The address a dual-stack socket reports, and every published range.
    for (const ip of ['::ffff:64.38.212.10', '64.38.215.1', '64.38.240.254', '64.38.241.77']) expect((await parse(sale, 'NewSaleSuccess', ip)).action).toBe('paid');
  });

  it('refuses any other sender, whatever the body says', async () => {
    for (const ip of [OUTSIDE_IP, '64.38.212.0', '64.38.212.255', '64.38.213.5', '127.0.0.1', '::1', '']) {
      expect(await refusal(parse(sale, 'NewSaleSuccess', ip))).toMatch(/Not from a CCBill webhook address/);
    }
    // Every event type, not only sales.
    expect(await refusal(parse(cancellation(), 'Cancellation', OUTSIDE_IP))).toMatch(/Not from/);
  });

  it('the allow-list can be replaced (setting ccbillWebhookIps); an unreadable list allows nobody', async () => {
    const g = gateway({ webhookSources: '10.0.0.0/8\n192.168.1.5' });
    expect((await parse(sale, 'NewSaleSuccess', '10.1.2.3', g)).action).toBe('paid');
    expect((await parse(sale, 'NewSaleSuccess', '192.168.1.5', g)).action).toBe('paid');
    expect(await refusal(parse(sale, 'NewSaleSuccess', CCBILL_IP, g))).toMatch(/Not from/);
    expect(await refusal(parse(sale, 'NewSaleSuccess', CCBILL_IP, gateway({ webhookSources: 'anything' })))).toMatch(/Not from/);
  });

  it('refuses a NewSaleSuccess whose digest is wrong, missing, made with another salt or for another subscription', async () => {
    expect(await refusal(parse({ ...sale, dynamicPricingValidationDigest: md5('nope') }, 'NewSaleSuccess'))).toMatch(/dynamicPricingValidationDigest/);
    const { dynamicPricingValidationDigest: _, ...undigested } = sale;
    expect(await refusal(parse(undigested, 'NewSaleSuccess'))).toMatch(/dynamicPricingValidationDigest/);
    expect(await refusal(parse(newSaleSuccess({ salt: 'another salt' }), 'NewSaleSuccess'))).toMatch(/dynamicPricingValidationDigest/);
    expect(await refusal(parse({ ...sale, subscriptionId: '1000000001' }, 'NewSaleSuccess'))).toMatch(/dynamicPricingValidationDigest/);
    // The denial digest (…"0"…) does not pass for an approval.
    expect(await refusal(parse({ ...sale, dynamicPricingValidationDigest: md5(`10000000000${ACCOUNT.salt}`) }, 'NewSaleSuccess'))).toMatch(/dynamicPricingValidationDigest/);
    // Without a salt configured nothing can be checked, so nothing is believed.
    expect(await refusal(parse(sale, 'NewSaleSuccess', CCBILL_IP, gateway({ salt: '' })))).toMatch(/salt/);
    // Upper-case hex is the same digest.
    expect((await parse({ ...sale, dynamicPricingValidationDigest: sale.dynamicPricingValidationDigest!.toUpperCase() }, 'NewSaleSuccess')).action).toBe('paid');
  });

  it("refuses another merchant's event, a missing or odd eventType, a missing request and a malformed body", async () => {
    expect(await refusal(parse({ ...sale, clientAccnum: '900101' }, 'NewSaleSuccess'))).toMatch(/another CCBill account/);
    expect(await refusal(parse(sale, ''))).toMatch(/eventType/);
    expect(await refusal(parse(sale, 'New Sale'))).toMatch(/eventType/);
    expect(await refusal(gateway().parseWebhook(Buffer.from(asForm(sale)), {}))).toMatch(/sender address/);
    expect(await refusal(parse('{"subscriptionId": ', 'NewSaleSuccess'))).toMatch(/Malformed/);
    expect(await refusal(parse('[1,2]', 'NewSaleSuccess'))).toMatch(/Malformed/);
    // A sale without a readable price cannot be compared with the payment, so it is not believed.
    expect(await refusal(parse({ ...sale, billedInitialPrice: '10,00', subscriptionInitialPrice: '' }, 'NewSaleSuccess'))).toMatch(/price/);
    // The ids an event is read by.
    expect(await refusal(parse({ ...renewalSuccess(), subscriptionId: '' }, 'RenewalSuccess'))).toMatch(/subscriptionId/);
    expect(await refusal(parse({ ...reversal(), transactionId: '' }, 'Refund'))).toMatch(/transactionId/);
  });

  it('reads JSON and URL-encoded bodies alike; a JSON id past 2^53 keeps every digit', async () => {
    expect(await parse(asJson(sale), 'NewSaleSuccess')).toEqual(await parse(asForm(sale), 'NewSaleSuccess'));
    const big = newSaleSuccess({ subscriptionId: '1234567890123456789', transactionId: '0912191101000000159' });
    const json = asJson(big).replace('"subscriptionId":"1234567890123456789"', '"subscriptionId":1234567890123456789').replace('"billedInitialPrice":"10.00"', '"billedInitialPrice":10.00');
    expect(json).toContain(':1234567890123456789,');
    const event = await parse(json, 'NewSaleSuccess');
    expect(event.intentRef).toBe('0912191101000000159');
    expect(event.amount).toBe(1000);
    expect(readBody(json).get('subscriptionId')).toBe('1234567890123456789');
  });
});

describe('what each CCBill event becomes', () => {
  const map = (type: string, p: Payload): GatewayEvent => mapCcbillEvent(type, readBody(asForm(p)));

  it('NewSaleSuccess → paid: our payment id and checkout ref echoed, the transaction as the charge, amount in minor units, currency letters', () => {
    expect(map('NewSaleSuccess', newSaleSuccess({ paymentId: 'pay_1', checkoutRef: 'ccb_abc', price: '12.99', currencyCode: '978' }))).toEqual({
      id: 'NewSaleSuccess:0912191101000000159:2012-08-05 15:18:17',
      type: 'NewSaleSuccess',
      action: 'paid',
      occurredAt: '2012-08-05T22:18:17.000Z',
      paymentId: 'pay_1',
      gatewayRef: 'ccb_abc',
      intentRef: '0912191101000000159',
      subscriptionRef: null,
      amount: 1299,
      currency: 'EUR',
    });
  });

  it('a recurring sale names its subscription; a currency code CCBill does not list stays as it came (never equal to ours)', () => {
    const event = map('NewSaleSuccess', newSaleSuccess({ recurring: { price: '9.99', period: '30' } }));
    expect(event).toMatchObject({ action: 'paid', subscriptionRef: '1000000000', amount: 1000, currency: 'USD' });
    expect(map('NewSaleSuccess', newSaleSuccess({ currencyCode: '999' })).currency).toBe('999');
  });

  it('NewSaleFailure → failed, for the payment it echoes', () => {
    expect(map('NewSaleFailure', newSaleFailure({ paymentId: 'pay_2', checkoutRef: 'ccb_def' }))).toMatchObject({
      id: 'NewSaleFailure:0912191101000000160:2012-08-05 15:18:17', action: 'failed', paymentId: 'pay_2', gatewayRef: 'ccb_def',
    });
  });

  it('RenewalSuccess → renewed: the subscription, the renewal charge as its ref, what it took, when', () => {
    expect(map('RenewalSuccess', renewalSuccess({ amount: '9.99' }))).toEqual({
      id: 'RenewalSuccess:0912191101000000161:2012-09-04 15:18:17',
      type: 'RenewalSuccess',
      action: 'renewed',
      occurredAt: '2012-09-04T22:18:17.000Z',
      subscriptionRef: '1000000000',
      gatewayRef: '0912191101000000161',
      intentRef: '0912191101000000161',
      amount: 999,
      currency: 'USD',
    });
  });

  it('RenewalFailure → renewal_failed; Cancellation and Expiration → subscription_ended', () => {
    expect(map('RenewalFailure', renewalFailure())).toMatchObject({ action: 'renewal_failed', subscriptionRef: '1000000000', occurredAt: '2012-09-04T22:18:17.000Z' });
    expect(map('Cancellation', cancellation())).toEqual({
      id: 'Cancellation:1000000000:2012-08-20 09:00:00', type: 'Cancellation', action: 'subscription_ended', subscriptionRef: '1000000000', occurredAt: '2012-08-20T16:00:00.000Z',
    });
    expect(map('Expiration', expiration())).toMatchObject({ id: 'Expiration:1000000000:2012-09-04 00:00:00', action: 'subscription_ended', subscriptionRef: '1000000000' });
  });

  it('Refund and Void → refunded, Chargeback → chargeback: the transaction they reverse as the charge ref, its subscription', () => {
    for (const [type, action] of [['Refund', 'refunded'], ['Void', 'refunded'], ['Chargeback', 'chargeback']] as const) {
      expect(map(type, reversal({ amount: '10.00' }))).toEqual({
        id: `${type}:0912191101000000159:2012-08-10 12:00:00`, type, action, occurredAt: '2012-08-10T19:00:00.000Z',
        intentRef: '0912191101000000159', subscriptionRef: '1000000000', amount: 1000, currency: 'USD', ...(type === 'Refund' ? { refundAmount: 1000 } : {}),
      });
    }
  });

  it("a Refund's amount is that refund alone, not a running total: it is given as refundAmount, under an id of its own", () => {
    // CCBill's admin can refund part of a charge; its event names only that refund's amount. Two refunds of one
    // transaction differ by their timestamp, so each has its own id and settlement can add them up.
    const part = map('Refund', reversal({ amount: '3.00' }));
    expect(part).toMatchObject({ action: 'refunded', intentRef: '0912191101000000159', amount: 300, currency: 'USD', refundAmount: 300 });
    expect(part).not.toHaveProperty('refundedAmount');
    expect(map('Refund', reversal({ amount: '3.00', timestamp: '2012-08-11 09:30:00' })).id).not.toBe(part.id);
    // A Void undoes the whole sale; a Chargeback takes all of it back.
    expect(map('Void', reversal({ amount: '3.00' }))).not.toHaveProperty('refundAmount');
    expect(map('Chargeback', reversal({ amount: '3.00' }))).not.toHaveProperty('refundAmount');
  });

  it('other events are recorded and ignored, still under a stable id', () => {
    const upsale = map('UpSaleSuccess', newSaleSuccess());
    expect(upsale).toMatchObject({ type: 'UpSaleSuccess', action: null });
    const noIds = { clientAccnum: ACCOUNT.account, clientSubacc: '0000', timestamp: '2012-08-05 15:18:17' };
    expect(map('BillingDateChange', noIds).id).toBe(map('BillingDateChange', noIds).id);
    expect(map('BillingDateChange', noIds).action).toBeNull();
  });

  it('the event id is the same for every delivery of one event and differs between events', () => {
    const once = map('RenewalSuccess', renewalSuccess());
    expect(map('RenewalSuccess', renewalSuccess()).id).toBe(once.id);
    expect(map('RenewalSuccess', renewalSuccess({ transactionId: '0912191101000000170' })).id).not.toBe(once.id);
    expect(map('RenewalFailure', renewalFailure({ transactionId: '0912191101000000161' })).id).not.toBe(once.id);
    expect(map('Cancellation', { ...cancellation(), timestamp: '2012-08-21 09:00:00' }).id).not.toBe(map('Cancellation', cancellation()).id);
  });

  it('reads money and times strictly', () => {
    expect([decimalToMinor('9.99'), decimalToMinor('10'), decimalToMinor('4.9'), decimalToMinor(' 0.05 ')]).toEqual([999, 1000, 490, 5]);
    expect([decimalToMinor('9.999'), decimalToMinor('-1.00'), decimalToMinor('1e3'), decimalToMinor('10,00'), decimalToMinor(undefined)]).toEqual([null, null, null, null, null]);
    expect(timestampToIso('2012-08-05 15:18:17', 'Z')).toBe('2012-08-05T15:18:17.000Z');
    expect(timestampToIso('yesterday')).toBeNull();
  });
});

describe('DataLink: cancelling a subscription', () => {
  let datalink: DatalinkStandIn;
  const g = () => gateway({ datalinkUrl: datalink.url });
  beforeAll(async () => {
    datalink = await startDatalinkStandIn();
  });
  afterAll(async () => {
    await datalink.close();
  });

  it('asks the subscription management script with the documented parameters and takes 1 as done', async () => {
    datalink.calls.length = 0;
    await g().cancelSubscription('1000000000');
    expect(datalink.calls).toEqual([{
      clientAccnum: '900100', clientSubacc: '0000', usingSubacc: '0000', username: 'ccbill12', password: 'test123',
      action: 'cancelSubscription', subscriptionId: '1000000000', returnXML: '1',
    }]);
  });

  it('a subscription already cancelled is not an error: CCBill answers 0, its status shows a cancel date', async () => {
    datalink.calls.length = 0;
    datalink.answers.cancelSubscription = { body: '<results>0</results>' };
    datalink.answers.viewSubscriptionStatus = {
      body: '<results><cancelDate>20120820</cancelDate><signupDate>20120805</signupDate><recurringSubscription>1</recurringSubscription><subscriptionStatus>1</subscriptionStatus></results>',
    };
    await g().cancelSubscription('1000000000');
    expect(datalink.calls.map((c) => c.action)).toEqual(['cancelSubscription', 'viewSubscriptionStatus']);
    // Still active with no cancel date: the cancellation really failed.
    datalink.answers.viewSubscriptionStatus = { body: '<results><cancelDate></cancelDate><recurringSubscription>1</recurringSubscription></results>' };
    await expect(g().cancelSubscription('1000000000')).rejects.toThrow(/requested action failed/);
    delete datalink.answers.viewSubscriptionStatus;
    delete datalink.answers.cancelSubscription;
  });

  it("CCBill's error codes, an HTTP error, no server and no DataLink user are gateway errors", async () => {
    datalink.answers.cancelSubscription = { body: '<results>-1</results>' };
    await expect(g().cancelSubscription('1')).rejects.toThrow(/user or password was refused/);
    datalink.answers.cancelSubscription = { body: '<results>-3</results>' };
    await expect(g().cancelSubscription('1')).rejects.toThrow(/no record/);
    datalink.answers.cancelSubscription = { status: 500, body: 'oops' };
    await expect(g().cancelSubscription('1')).rejects.toBeInstanceOf(GatewayError);
    delete datalink.answers.cancelSubscription;
    await expect(gateway({ datalinkUrl: 'http://127.0.0.1:9/x.cgi' }).cancelSubscription('1')).rejects.toThrow(/could not be reached/);
    await expect(gateway({ datalinkUrl: datalink.url, datalinkPassword: '' }).cancelSubscription('1')).rejects.toThrow(/not configured/);
  });

  it('reads the XML and the CSV forms of an answer', () => {
    expect(readDatalinkAnswer("<?xml version='1.0' standalone='yes'?> <results>1</results>")).toEqual({ results: '1' });
    expect(readDatalinkAnswer('"results"\n"1"')).toEqual({ results: '1' });
    expect(readDatalinkAnswer('"cancelDate","recurringSubscription"\n"20250131","1"')).toEqual({ cancelDate: '20250131', recurringSubscription: '1' });
  });
});

describe('the rest of the interface', () => {
  it('retrieve stays pending, expireCheckout does nothing, refund is made in CCBill’s admin', async () => {
    await expect(gateway().retrieve('ccb_abc')).resolves.toEqual({ state: 'pending' });
    await expect(gateway().expireCheckout('ccb_abc')).resolves.toBeUndefined();
    await expect(gateway().refund({ gatewayRef: 'ccb_abc', intentRef: '0912191101000000159', amount: 999 })).rejects.toThrow(/CCBill's admin/);
  });
});

describe('IPv4 allow-lists (common/ip-ranges.ts)', () => {
  it('reads addresses, CIDR blocks and ranges, and refuses anything else', () => {
    const list = parseIpv4Ranges('64.38.212.1 - 64.38.212.254, 10.0.0.0/8\n192.168.1.5\n\n');
    expect(list.ok).toBe(true);
    const ranges = list.ok ? list.ranges : [];
    expect(['64.38.212.1', '64.38.212.254', '10.255.255.255', '192.168.1.5'].every((ip) => ipv4InRanges(ip, ranges))).toBe(true);
    expect(['64.38.212.0', '64.38.212.255', '11.0.0.0', '192.168.1.6', 'not an ip', '::1'].some((ip) => ipv4InRanges(ip, ranges))).toBe(false);
    for (const bad of ['1.2.3', '1.2.3.256', '01.2.3.4', '10.0.0.0/33', '1.2.3.9 - 1.2.3.1', '1.2.3.4-5-6', 'fe80::1']) expect(parseIpv4Ranges(bad).ok).toBe(false);
    expect(parseIpv4Ranges('').ok).toBe(true);
  });
});
