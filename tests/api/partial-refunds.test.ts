import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { buildMoneyWorld, chargeOf, ledger, payWithSandbox, type MoneyWorld } from '../helpers/money-fixture.js';
import { sandboxWebhookSecret } from '../../server/payments/sandbox.gateway.js';
import { signPayload, SANDBOX_SIGNATURE_HEADER } from '../../server/payments/signature.js';

/**
 * Partial refunds, on every engine, through the admin console's route and the sandbox provider's real webhooks: the
 * payment stays paid (access and period kept), each refund takes its share of every item's earnings (performer and
 * site in proportion), the provider's running total makes replays and stale events count once, a refund of the rest
 * reverses exactly what is left, and the ledger stays exact at every step.
 */
describe.each(engines)('partial refunds on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;
  const post = (path: string, who: TestUser, json?: unknown) => t.api(path, { method: 'POST', headers: who.headers, ...(json === undefined ? {} : { json }) });
  const refund = (paymentId: string, amount?: number) => post(`/admin/payments/${paymentId}/refund`, w.admin, amount === undefined ? {} : { amount });

  /** Checkout + Approve on the sandbox page. */
  async function buy(path: string, who: TestUser, body: unknown) {
    const c = await post(path, who, body);
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    expect((await payWithSandbox(t, who, c.body.redirectUrl)).status).toBe(200);
    return c.body as { paymentId: string; amount: number };
  }
  const paymentRow = (id: string) => t.ctx.db.selectFrom('payments').select(['status', 'amount', 'refundedAmount']).where('id', '=', id).executeTakeFirstOrThrow();
  /** The payment's earnings summed per performer and entry. */
  const earnings = (paymentId: string) =>
    t.ctx.db
      .selectFrom('earnings')
      .select(['performerId', 'entry', sql<number | string>`sum(gross)`.as('gross'), sql<number | string>`sum(commission)`.as('commission'), sql<number | string>`sum(net)`.as('net')])
      .where('paymentId', '=', paymentId)
      .groupBy(['performerId', 'entry'])
      .execute()
      .then((rows) => rows.map((r) => ({ performerId: r.performerId, entry: r.entry, gross: Number(r.gross), commission: Number(r.commission), net: Number(r.net) })));
  const total = async (paymentId: string) => (await earnings(paymentId)).reduce((n, e) => n + e.gross, 0);
  const exact = async () => {
    const l = await ledger(t.ctx.db);
    expect(l.paid).toBe(l.net + l.commission);
    expect(l.paid).toBe(l.gross);
  };
  const entitled = async (userId: string, objectId: string) =>
    (await t.ctx.db.selectFrom('entitlements').select('userId').where('userId', '=', userId).where('objectId', '=', objectId).where('revokedAt', 'is', null).executeTakeFirst()) !== undefined;

  beforeAll(async () => {
    t = await startTestApp(engine);
    w = await buildMoneyWorld(t.ctx);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('a part of a video purchase is given back: the payment stays paid, access stays, earnings shrink by the part', async () => {
    const fan = await createUser(t.ctx.db, 'user');
    const { paymentId, amount } = await buy(`/payment/purchase-video/${w.videos.saleVideo.id}`, fan, {});
    expect(amount).toBe(1299);

    const res = await refund(paymentId, 300);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await paymentRow(paymentId)).toEqual({ status: 'success', amount: 1299, refundedAmount: 300 });
    expect(await entitled(fan.id, w.videos.saleVideo.id)).toBe(true);
    // 20 % of the part was the site's: $0.60 of it, $2.40 the performer's.
    expect((await earnings(paymentId)).find((e) => e.entry === 'partial_refund')).toEqual({ performerId: w.perf.id, entry: 'partial_refund', gross: -300, commission: -60, net: -240 });
    await exact();

    // The buyer's transactions say so.
    const tx = await t.api('/payment/transactions', { headers: fan.headers });
    expect(tx.body.items[0]).toMatchObject({ _id: paymentId, status: 'success', amount: 1299, refundedAmount: 300 });

    // A second part; then the rest: the reversal takes exactly what is left, the payment is refunded, access ends.
    expect((await refund(paymentId, 199)).status).toBe(200);
    expect((await paymentRow(paymentId)).refundedAmount).toBe(499);
    expect(await total(paymentId)).toBe(1299 - 499);
    expect((await refund(paymentId)).status).toBe(200);
    expect((await paymentRow(paymentId)).status).toBe('refunded');
    expect(await total(paymentId)).toBe(0);
    const reversal = (await earnings(paymentId)).find((e) => e.entry === 'reversal')!;
    expect(reversal.gross).toBe(-(1299 - 499));
    expect(reversal.commission + reversal.net).toBe(reversal.gross);
    expect(await entitled(fan.id, w.videos.saleVideo.id)).toBe(false);
    await exact();
  });

  it('more than is left, nothing, or not a whole number of cents: a 4xx, and nothing changes', async () => {
    const fan = await createUser(t.ctx.db, 'user');
    const { paymentId } = await buy(`/payment/purchase-video/${w.videos.saleVideo.id}`, fan, {});
    const tooMuch = await refund(paymentId, 1300);
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.code).toBe('REFUND_TOO_LARGE');
    expect((await refund(paymentId, 0)).status).toBe(400);
    expect((await refund(paymentId, 1.5)).status).toBe(400);
    expect((await post(`/admin/payments/${paymentId}/refund`, w.admin, { amount: 100, extra: 1 })).status).toBe(400);
    // Only admins.
    expect((await post(`/admin/payments/${paymentId}/refund`, fan, { amount: 100 })).status).toBe(403);
    expect(await paymentRow(paymentId)).toEqual({ status: 'success', amount: 1299, refundedAmount: 0 });
    expect(await total(paymentId)).toBe(1299);
  });

  it("a cart of two performers' products shares the part by what each item earned, site and performer in proportion", async () => {
    const fan = await createUser(t.ctx.db, 'user');
    // Mug 1500 (Mona, 20 %) and tee 2500 (Otto, 10 %): a refund of 1000 is 375 and 625.
    const { paymentId, amount } = await buy('/payment/purchase-products', fan, {
      items: [{ _id: w.products.mug.id, quantity: 1 }, { _id: w.products.tee.id, quantity: 1 }],
      shippingAddress: '1 Refund Road, Partway',
    });
    expect(amount).toBe(4000);
    expect((await refund(paymentId, 1000)).status).toBe(200);
    const parts = (await earnings(paymentId)).filter((e) => e.entry === 'partial_refund');
    expect(parts.find((e) => e.performerId === w.perf.id)).toMatchObject({ gross: -375, commission: -75, net: -300 });
    expect(parts.find((e) => e.performerId === w.perf2.id)).toMatchObject({ gross: -625, commission: -63, net: -562 });
    // The orders are still to be delivered: a partial refund is money, not a cancellation.
    const orders = await t.ctx.db.selectFrom('orders').select('status').where('paymentId', '=', paymentId).execute();
    expect(orders.map((o) => o.status)).toEqual(['paid', 'paid']);
    await exact();
  });

  it("the provider's running total counts each refund once: a replay, a stale total and a lower one move nothing", async () => {
    const fan = await createUser(t.ctx.db, 'user');
    const { paymentId } = await buy(`/payment/purchase-video/${w.videos.saleVideo.id}`, fan, {});
    const charge = await chargeOf(t.ctx.db, paymentId);
    const send = async (id: string, refundedAmount: number) => {
      const body = JSON.stringify({ id, type: 'charge.refunded', data: { chargeId: charge.id, paymentId, amount: charge.amount, currency: charge.currency, refundedAmount } });
      const headers = { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signPayload(sandboxWebhookSecret(t.config.appSecret), body) };
      return t.api('/payment/webhooks/sandbox', { method: 'POST', headers, body });
    };
    // Out of order: the second refund's event (total 500) arrives before the first's (total 200).
    expect((await send('evt_part_2', 500)).body.outcome).toBe('partially_refunded');
    expect((await send('evt_part_1', 200)).body.outcome).toBe('ignored');
    expect((await send('evt_part_2', 500)).body.outcome).toBe('duplicate');
    expect((await send('evt_part_2b', 500)).body.outcome).toBe('ignored');
    expect((await paymentRow(paymentId)).refundedAmount).toBe(500);
    expect(await total(paymentId)).toBe(1299 - 500);
    await exact();

    // Concurrent deliveries of two growing totals: the larger wins, nothing is counted twice.
    await Promise.all([send('evt_part_3', 700), send('evt_part_4', 900), send('evt_part_3', 700)]);
    expect((await paymentRow(paymentId)).refundedAmount).toBe(900);
    expect(await total(paymentId)).toBe(1299 - 900);
    await exact();
  });

  it('a chargeback after a partial refund takes back only what is left', async () => {
    const fan = await createUser(t.ctx.db, 'user');
    const { paymentId } = await buy(`/payment/purchase-video/${w.videos.saleVideo.id}`, fan, {});
    expect((await refund(paymentId, 400)).status).toBe(200);
    const charge = await chargeOf(t.ctx.db, paymentId);
    expect((await post(`/payment/sandbox/${charge.id}/reverse`, w.admin, { kind: 'chargeback' })).status).toBe(200);
    expect((await paymentRow(paymentId)).status).toBe('chargeback');
    expect(await total(paymentId)).toBe(0);
    await exact();
  });
});
