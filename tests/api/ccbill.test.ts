import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { buildMoneyWorld, ledger, type MoneyWorld } from '../helpers/money-fixture.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import {
  ACCOUNT, asForm, asJson, CCBILL_IP, newSaleFailure, newSaleSuccess, OUTSIDE_IP, reversal, startDatalinkStandIn, type DatalinkStandIn, type Payload,
} from '../helpers/ccbill.js';
import { createMoney } from '../../server/payments/money.js';
import { isSubscribed } from '../../server/access/access.service.js';

/**
 * CCBill through the real HTTP server, on every engine: an admin configures it in the console, a subscription checkout
 * answers a FlexForms link with the recurring terms and a correct digest, a video checkout a one-time one; webhooks
 * are believed only from CCBill's addresses (the client address as the trusted proxy reports it) and a sale only with
 * its digest — anything else is 400 and writes nothing — and a genuine sale settles the payment. The DataLink
 * cancellation reaches a stand-in server with the stored credentials.
 *
 * The server trusts one proxy (TRUST_PROXY=1): the test client plays that proxy, so the right-most X-Forwarded-For
 * entry is "the client" the app judges.
 */

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

describe.each(engines)('CCBill on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;
  let datalink: DatalinkStandIn;

  const post = (path: string, who: TestUser, json: unknown = {}) => t.api(path, { method: 'POST', headers: who.headers, json });
  const webhook = (eventType: string | null, body: string, o: { from?: string; json?: boolean } = {}) =>
    t.api(`/payment/webhooks/ccbill${eventType === null ? '' : `?eventType=${eventType}`}`, {
      method: 'POST',
      headers: { 'content-type': o.json ? 'application/json' : 'application/x-www-form-urlencoded', 'x-forwarded-for': o.from ?? CCBILL_IP },
      body,
    });
  const eventCount = async () => Number((await t.ctx.db.selectFrom('webhookEvents').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);
  const paymentOf = (id: string) => t.ctx.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  /** Refused with 400 INVALID_SIGNATURE, and nothing recorded or changed. */
  async function refused(send: () => Promise<{ status: number; body: any }>, paymentId: string, reason: RegExp) {
    const before = { events: await eventCount(), payment: await paymentOf(paymentId) };
    const res = await send();
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_SIGNATURE' });
    expect(res.body.message).toMatch(reason);
    expect(await eventCount()).toBe(before.events);
    expect(await paymentOf(paymentId)).toEqual(before.payment);
  }

  /**
   * The console's settings for CCBill (the same request as the console test below). The checkout and webhook tests
   * make it themselves, so that each of them also passes alone (mutation testing runs only the tests that cover a
   * mutant, without the ones before them).
   */
  const configureCcbill = async () => {
    const res = await t.api('/admin/settings/payment', {
      method: 'PUT',
      headers: w.admin.headers,
      json: {
        paymentGateway: 'ccbill', ccbillAccount: ACCOUNT.account, ccbillSubaccount: ACCOUNT.subaccount, ccbillFlexFormId: ACCOUNT.flexFormId,
        ccbillSalt: ACCOUNT.salt, ccbillDatalinkUser: ACCOUNT.datalinkUser, ccbillDatalinkPassword: ACCOUNT.datalinkPassword, ccbillWebhookIps: '',
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res;
  };

  beforeAll(async () => {
    datalink = await startDatalinkStandIn();
    t = await startTestApp(engine, { env: { TRUST_PROXY: '1', CCBILL_DATALINK_URL: datalink.url } });
    w = await buildMoneyWorld(t.ctx);
  });
  afterAll(async () => {
    await t?.close();
    await datalink?.close();
  });

  describe('the console', () => {
    it('refuses account numbers, Flex IDs and webhook addresses CCBill could not have given, and writes nothing', async () => {
      for (const json of [{ ccbillAccount: '12345' }, { ccbillSubaccount: 'abcd' }, { ccbillFlexFormId: 'not a flex id!' }, { ccbillWebhookIps: '64.38.212.1 - nowhere' }, { paymentGateway: 'ccbil' }]) {
        const res = await t.api('/admin/settings/payment', { method: 'PUT', headers: w.admin.headers, json });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
      }
      expect((await t.api('/admin/settings', { headers: w.admin.headers })).body.payment).toMatchObject({ paymentGateway: 'sandbox', ccbillAccount: '', ccbillWebhookIps: '' });
    });

    it('stores the account, keeps the salt and DataLink password encrypted and never shows them', async () => {
      const res = await configureCcbill();
      expect(res.body).toMatchObject({
        paymentGateway: 'ccbill', ccbillAccount: '900100', ccbillSubaccount: '0000', ccbillFlexFormId: ACCOUNT.flexFormId, ccbillDatalinkUser: 'ccbill12',
        ccbillSalt: { configured: true, source: 'settings' }, ccbillDatalinkPassword: { configured: true, source: 'settings' },
      });
      expect(JSON.stringify(res.body)).not.toContain(ACCOUNT.salt);
      expect(JSON.stringify(res.body)).not.toContain(ACCOUNT.datalinkPassword);
      for (const key of ['ccbillSalt', 'ccbillDatalinkPassword']) {
        const stored = await t.ctx.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
        expect(String(stored.value)).toMatch(/enc:v1:/);
        expect(String(stored.value)).not.toContain(ACCOUNT.salt);
      }
    });
  });

  describe('checkout', () => {
    beforeAll(configureCcbill);

    it('a subscription answers a FlexForms link with the recurring terms and a digest CCBill will accept', async () => {
      const r = await post('/payment/subscribe', w.fan, { performerId: w.perf.id, type: 'monthly' });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ gateway: 'ccbill', amount: 1000, currency: 'USD' });
      const url = new URL(r.body.redirectUrl);
      expect(`${url.origin}${url.pathname}`).toBe(`https://api.ccbill.com/wap-frontflex/flexforms/${ACCOUNT.flexFormId}`);
      const q = Object.fromEntries(url.searchParams);
      expect(q).toMatchObject({
        clientAccnum: '900100', clientSubacc: '0000', initialPrice: '10.00', initialPeriod: '30', recurringPrice: '10.00', recurringPeriod: '30', numRebills: '99',
        currencyCode: '840', 'X-paymentId': r.body.paymentId,
      });
      expect(q.formDigest).toBe(md5(`10.003010.003099840${ACCOUNT.salt}`));
      const payment = await paymentOf(r.body.paymentId);
      expect(payment).toMatchObject({ gateway: 'ccbill', status: 'pending', gatewayRef: q['X-checkoutRef'], checkoutUrl: r.body.redirectUrl });
    });

    it('a coupon lowers the first charge only: the renewal keeps the list price', async () => {
      const buyer = await createUser(t.ctx.db, 'user');
      const r = await post('/payment/subscribe', buyer, { performerId: w.perf.id, type: 'monthly', couponCode: 'WELCOME10' });
      expect(r.status).toBe(201);
      const q = Object.fromEntries(new URL(r.body.redirectUrl).searchParams);
      expect(q).toMatchObject({ initialPrice: '9.00', recurringPrice: '10.00' });
      expect(q.formDigest).toBe(md5(`9.003010.003099840${ACCOUNT.salt}`));
    });

    it('a video answers a one-time price', async () => {
      const r = await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, w.fan2);
      expect(r.status).toBe(201);
      const q = Object.fromEntries(new URL(r.body.redirectUrl).searchParams);
      expect(q).toMatchObject({ initialPrice: '12.99', initialPeriod: '365', currencyCode: '840' });
      expect(q).not.toHaveProperty('recurringPrice');
      expect(q.formDigest).toBe(md5(`12.99365840${ACCOUNT.salt}`));
    });
  });

  describe('webhooks', () => {
    let sub: { paymentId: string; ref: string };
    /** The sale CCBill would send for a checkout, approved at the price the link carried. */
    const saleFor = (c: { paymentId: string; ref: string }, o: Parameters<typeof newSaleSuccess>[0] = {}): Payload =>
      newSaleSuccess({ paymentId: c.paymentId, checkoutRef: c.ref, ...o });
    const checkoutOf = async (r: { body: { paymentId: string; redirectUrl: string } }) => ({
      paymentId: r.body.paymentId,
      ref: new URL(r.body.redirectUrl).searchParams.get('X-checkoutRef')!,
    });

    beforeAll(async () => {
      await configureCcbill();
      const buyer = await createUser(t.ctx.db, 'user');
      sub = await checkoutOf(await post('/payment/subscribe', buyer, { performerId: w.perf2.id, type: 'monthly' }));
    });

    it('from outside CCBill\'s addresses: 400, nothing written — also when the client writes CCBill\'s address left of its own', async () => {
      const body = asForm(saleFor(sub, { price: '5.00', recurring: { price: '5.00', period: '30' } }));
      await refused(() => webhook('NewSaleSuccess', body, { from: OUTSIDE_IP }), sub.paymentId, /Not from a CCBill webhook address/);
      // The trusted proxy appends what it saw (6.6.6.6); a forged entry before it changes nothing.
      await refused(() => webhook('NewSaleSuccess', body, { from: `${CCBILL_IP}, ${OUTSIDE_IP}` }), sub.paymentId, /Not from/);
      await refused(() => webhook('Cancellation', asForm({ subscriptionId: '1', clientAccnum: ACCOUNT.account, timestamp: '2012-08-20 09:00:00' }), { from: OUTSIDE_IP }), sub.paymentId, /Not from/);
    });

    it('a NewSaleSuccess with a wrong digest, without eventType or for another account: 400, nothing written', async () => {
      const sale = saleFor(sub, { price: '5.00', recurring: { price: '5.00', period: '30' } });
      await refused(() => webhook('NewSaleSuccess', asForm({ ...sale, dynamicPricingValidationDigest: md5('forged') })), sub.paymentId, /dynamicPricingValidationDigest/);
      await refused(() => webhook('NewSaleSuccess', asForm(newSaleSuccess({ paymentId: sub.paymentId, checkoutRef: sub.ref, salt: 'guessed' }))), sub.paymentId, /dynamicPricingValidationDigest/);
      await refused(() => webhook(null, asForm(sale)), sub.paymentId, /eventType/);
      await refused(() => webhook('NewSaleSuccess', asForm({ ...sale, clientAccnum: '900999' })), sub.paymentId, /another CCBill account/);
      await refused(() => webhook('NewSaleSuccess', '{"subscriptionId":', { json: true }), sub.paymentId, /Malformed/);
    });

    it('a genuine NewSaleSuccess settles the payment: paid, the transaction kept, the subscription open; a redelivery changes nothing', async () => {
      const sale = saleFor(sub, { subscriptionId: '2000000001', transactionId: '0912191101000000301', price: '5.00', recurring: { price: '5.00', period: '30' } });
      const res = await webhook('NewSaleSuccess', asJson(sale), { json: true });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ received: true, outcome: 'paid' });
      const payment = await paymentOf(sub.paymentId);
      expect(payment).toMatchObject({ status: 'success', gatewayIntentRef: '0912191101000000301' });
      const userId = payment.userId;
      expect(await isSubscribed(t.ctx.db, { id: userId, role: 'user' }, w.perf2.id)).toBe(true);
      const event = await t.ctx.db.selectFrom('webhookEvents').selectAll().where('gateway', '=', 'ccbill').where('paymentId', '=', sub.paymentId).executeTakeFirstOrThrow();
      expect(event).toMatchObject({ eventId: 'NewSaleSuccess:0912191101000000301:2012-08-05 15:18:17', type: 'NewSaleSuccess', outcome: 'paid' });
      // Kept: what the settlement reads; never the buyer's name, contact, address, card digits or form password.
      const kept = JSON.parse(event.payload) as Record<string, string>;
      expect(kept).toMatchObject({ eventType: 'NewSaleSuccess', subscriptionId: '2000000001', transactionId: '0912191101000000301', 'X-paymentId': sub.paymentId });
      for (const secret of ['mYPaSSw0rD', 'John', 'Doe', 'user@randomurl.com', '123 Main Street', '(515) 555-1212', '192.168.27.4', '1111', 'bf8f7b2a']) {
        expect(event.payload).not.toContain(secret);
      }
      // CCBill redelivers the same post; URL-encoded this time (the format is the merchant's choice).
      const again = await webhook('NewSaleSuccess', asForm(sale));
      expect(again.body).toEqual({ received: true, outcome: 'duplicate' });
    });

    it('a sale whose billed price is not what the link asked is recorded and not applied', async () => {
      const buyer = await createUser(t.ctx.db, 'user');
      const c = await checkoutOf(await post('/payment/subscribe', buyer, { performerId: w.perf2.id, type: 'monthly' }));
      const res = await webhook('NewSaleSuccess', asForm(saleFor(c, { transactionId: '0912191101000000302', price: '0.50', recurring: { price: '5.00', period: '30' } })));
      expect(res.body.outcome).toBe('amount_mismatch');
      const other = await webhook('NewSaleSuccess', asForm(saleFor(c, { transactionId: '0912191101000000303', price: '5.00', currencyCode: '978' })));
      expect(other.body.outcome).toBe('amount_mismatch');
      expect((await paymentOf(c.paymentId)).status).toBe('pending');
    });

    it('NewSaleFailure fails the payment it echoes', async () => {
      const buyer = await createUser(t.ctx.db, 'user');
      const c = await checkoutOf(await post('/payment/subscribe', buyer, { performerId: w.perf2.id, type: 'monthly' }));
      const res = await webhook('NewSaleFailure', asForm(newSaleFailure({ transactionId: '0912191101000000304', paymentId: c.paymentId, checkoutRef: c.ref })));
      expect(res.body.outcome).toBe('failed');
      expect((await paymentOf(c.paymentId)).status).toBe('failed');
    });

    it('a Refund names only the transaction: it reverses the payment paid by it', async () => {
      const buyer = await createUser(t.ctx.db, 'user');
      const c = await checkoutOf(await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, buyer));
      const paid = await webhook('NewSaleSuccess', asForm(saleFor(c, { subscriptionId: '2000000005', transactionId: '0912191101000000305', price: '12.99' })));
      expect(paid.body.outcome).toBe('paid');
      const refund = await webhook('Refund', asForm(reversal({ transactionId: '0912191101000000305', subscriptionId: '2000000005', amount: '12.99' })));
      expect(refund.status).toBe(200);
      expect(refund.body.outcome).toBe('refunded');
      expect((await paymentOf(c.paymentId)).status).toBe('refunded');
    });

    it("a Refund of part of the sale in CCBill's admin gives back that part; its redelivery nothing; a second one the rest", async () => {
      const buyer = await createUser(t.ctx.db, 'user');
      const c = await checkoutOf(await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, buyer));
      const sale = { subscriptionId: '2000000006', transactionId: '0912191101000000306' };
      expect((await webhook('NewSaleSuccess', asForm(saleFor(c, { ...sale, price: '12.99' })))).body.outcome).toBe('paid');
      const part = asForm(reversal({ ...sale, amount: '3.00', timestamp: '2012-08-10 12:00:00' }));
      expect((await webhook('Refund', part)).body.outcome).toBe('partially_refunded');
      expect((await webhook('Refund', part)).body.outcome).toBe('duplicate');
      expect(await paymentOf(c.paymentId)).toMatchObject({ status: 'success', refundedAmount: 300 });
      const rest = await webhook('Refund', asForm(reversal({ ...sale, amount: '9.99', timestamp: '2012-08-12 08:00:00' })));
      expect(rest.body.outcome).toBe('refunded');
      expect(await paymentOf(c.paymentId)).toMatchObject({ status: 'refunded', refundedAmount: 300 });
      const l = await ledger(t.ctx.db);
      expect(l.paid).toBe(l.net + l.commission);
    });
  });

  it('cancelSubscription reaches DataLink with the stored account and credentials (decrypted)', async () => {
    datalink.calls.length = 0;
    const gateway = await createMoney(t.ctx).gateway('ccbill');
    await gateway.cancelSubscription('2000000001');
    expect(datalink.calls).toEqual([{
      clientAccnum: '900100', clientSubacc: '0000', usingSubacc: '0000', username: 'ccbill12', password: 'test123',
      action: 'cancelSubscription', subscriptionId: '2000000001', returnXML: '1',
    }]);
  });

  it('an admin refund of a CCBill payment is refused with a 4xx that says where to refund', async () => {
    const paid = await t.ctx.db.selectFrom('payments').select('id').where('gateway', '=', 'ccbill').where('status', '=', 'success').executeTakeFirstOrThrow();
    const res = await t.api(`/admin/payments/${paid.id}/refund`, { method: 'POST', headers: w.admin.headers, json: {} });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'GATEWAY_REFUSED' });
    expect(res.body.message).toMatch(/CCBill's admin/);
  });
});
