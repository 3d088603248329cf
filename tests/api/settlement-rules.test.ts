import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId, nowIso } from '../../server/db/ids.js';
import type { PaymentStatus, PaymentType } from '../../common/enums.js';
import type { ObjectType } from '../../server/db/schema.js';
import { makeCoupon, makeProduct } from '../../server/seed/factories.js';
import type { GatewayAction, GatewayEvent, GatewayName } from '../../server/payments/gateway.js';
import { createMoney, type Money } from '../../server/payments/money.js';
import type { PaymentRow } from '../../server/payments/payments.repository.js';
import { applyGatewayEvent, applyInternal, inTransaction, RetryLater } from '../../server/payments/settlement.service.js';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { buildMoneyWorld, type MoneyWorld } from '../helpers/money-fixture.js';

/**
 * The settlement state machine and the recurring billing rules at their edges (server/payments/README.md), on both
 * engines: each provider event is applied through `applyGatewayEvent` as the webhook route does (already verified),
 * and the test reads the exact outcome and the exact rows it leaves: the payment's label and holds, stock, coupon
 * uses, entitlements, earnings, the subscription's period and billing. Found by mutation testing of the settlement
 * module (docs/testing.md).
 */

const DAY = 86_400_000;
const noEffects = { notifications: [], refundsDue: [], recurringToCancel: [], mails: [], notified: [] };

describe.each(engines)('settlement rules on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;
  let money: Money;
  const db = () => t.ctx.db;

  beforeAll(async () => {
    t = await startTestApp(engine);
    w = await buildMoneyWorld(t.ctx);
    money = createMoney(t.ctx);
  });
  afterAll(async () => {
    await t?.close();
  });

  // -- helpers ------------------------------------------------------------------------------------------------------

  /** A verified provider event (what a gateway's parseWebhook returns). */
  const ev = (action: GatewayAction | null, o: Partial<GatewayEvent> = {}): GatewayEvent => ({ id: `evt_rules_${newId()}`, type: `test.${action}`, action, ...o });
  const apply = (e: GatewayEvent, gateway: GatewayName = 'sandbox') => applyGatewayEvent(money.settlement, gateway, e, JSON.stringify(e));
  /** An event about this payment, naming it as the providers do (our id and the checkout's reference). */
  const about = (p: Pick<PaymentRow, 'id' | 'gatewayRef'>, action: GatewayAction, o: Partial<GatewayEvent> = {}) => ev(action, { paymentId: p.id, gatewayRef: p.gatewayRef, ...o });
  const outcomeOf = async (e: GatewayEvent, gateway: GatewayName = 'sandbox') => (await apply(e, gateway)).outcome;

  const paymentRow = (id: string) => db().selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  /** The columns a transition changes. */
  const state = async (id: string) => {
    const p = await paymentRow(id);
    return { status: p.status, stockHeld: p.stockHeld, couponHeld: p.couponHeld, deferredReversal: p.deferredReversal, paid: p.paidAt !== null, reversed: p.reversedAt !== null };
  };
  const detailsOf = async (id: string) => JSON.parse((await paymentRow(id)).details) as Record<string, unknown>;
  const stockOf = async (id: string) => (await db().selectFrom('products').select('stock').where('id', '=', id).executeTakeFirstOrThrow()).stock;
  const usesOf = async (id: string) => (await db().selectFrom('coupons').select('usedCount').where('id', '=', id).executeTakeFirstOrThrow()).usedCount;
  const openEntitlements = (userId: string) =>
    db().selectFrom('entitlements').select(['objectType', 'objectId']).where('userId', '=', userId).where('revokedAt', 'is', null).orderBy('objectType').orderBy('objectId').execute();
  const earningsOf = (paymentId: string) =>
    db().selectFrom('earnings').select(['entry', 'sourceType', 'gross', 'testMoney']).where('paymentId', '=', paymentId).orderBy('entry').orderBy('sourceType').orderBy('gross').execute();
  const ordersOf = async (paymentId: string) => (await db().selectFrom('orders').select('status').where('paymentId', '=', paymentId).execute()).map((o) => o.status);
  const recorded = (eventId: string) => db().selectFrom('webhookEvents').select(['outcome', 'paymentId']).where('eventId', '=', eventId).execute();
  const subRow = (userId: string, performerId = w.perf.id) =>
    db().selectFrom('subscriptions').selectAll().where('userId', '=', userId).where('performerId', '=', performerId).executeTakeFirstOrThrow();
  const post = (path: string, who: TestUser, json: unknown) => t.api(path, { method: 'POST', headers: who.headers, json });

  /** A product checkout through the API: it holds the stock (and the coupon's use) until it settles. */
  async function productCheckout(who: TestUser, items: Array<{ _id: string; quantity?: number }>, couponCode?: string) {
    const res = await post('/payment/purchase-products', who, { items, shippingAddress: '1 Rule Road, Testville', ...(couponCode ? { couponCode } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return paymentRow(res.body.paymentId);
  }
  async function videoCheckout(who: TestUser) {
    const res = await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, who, {});
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return paymentRow(res.body.paymentId);
  }

  /**
   * A payment written directly, in a state the API does not make on its own: a checkout from before stock and coupon
   * holds existed (migrations 0005 and 0010 gave those 0), details that are not what a checkout writes, another gateway.
   */
  async function payment(o: {
    userId: string; type: PaymentType; items: Array<{ objectType: ObjectType; objectId: string; unitPrice: number; quantity?: number; performerId?: string }>;
    status?: PaymentStatus; gateway?: GatewayName; gatewayRef?: string | null; currency?: string; couponId?: string; couponHeld?: 0 | 1; stockHeld?: 0 | 1; details?: string; performerId?: string | null;
  }): Promise<PaymentRow> {
    const id = newId();
    const now = nowIso();
    const amount = o.items.reduce((n, i) => n + i.unitPrice * (i.quantity ?? 1), 0);
    await db().insertInto('payments').values({
      id, userId: o.userId, performerId: o.performerId === undefined ? w.perf.id : o.performerId, type: o.type, status: o.status ?? 'pending', gateway: o.gateway ?? 'sandbox',
      gatewayRef: o.gatewayRef === undefined ? `ref_${id}` : o.gatewayRef, targetId: null, originalPrice: amount, discount: 0, amount, currency: o.currency ?? 'USD',
      couponId: o.couponId ?? null, couponHeld: o.couponHeld ?? 0, stockHeld: o.stockHeld ?? 0, details: o.details ?? '{}', createdAt: now, updatedAt: now, expiresAt: new Date(Date.now() + DAY).toISOString(),
    }).execute();
    await db().insertInto('paymentItems').values(o.items.map((i) => ({
      id: newId(), paymentId: id, objectType: i.objectType, objectId: i.objectId, performerId: i.performerId ?? w.perf.id, quantity: i.quantity ?? 1, unitPrice: i.unitPrice,
    }))).execute();
    return paymentRow(id);
  }
  const subscriptionPayment = (userId: string, o: { type?: 'monthly' | 'yearly'; amount?: number; details?: string; gateway?: GatewayName; performerId?: string } = {}) =>
    payment({
      userId, type: o.type === 'yearly' ? 'subscription_yearly' : 'subscription_monthly', gateway: o.gateway, details: o.details, performerId: o.performerId ?? w.perf.id,
      items: [{ objectType: 'performer', objectId: o.performerId ?? w.perf.id, performerId: o.performerId ?? w.perf.id, unitPrice: o.amount ?? 1000 }],
    });

  // -- the payment state machine -------------------------------------------------------------------------------------

  it('"paid" settles a held checkout once: exact rows, what it opens and credits; refunds and chargebacks then only raise the label', async () => {
    const fan = await createUser(db(), 'user');
    const shelf = await makeProduct(t.ctx, w.perf.id, { name: 'Rule mug', type: 'physical', price: 1500, stock: 4 });
    const usesBefore = await usesOf(w.coupons.welcome.id);
    const p = await productCheckout(fan, [{ _id: shelf.id, quantity: 2 }, { _id: w.products.ebook.id }], 'WELCOME10');
    expect(await stockOf(shelf.id)).toBe(2);
    expect(await usesOf(w.coupons.welcome.id)).toBe(usesBefore + 1);
    expect(await state(p.id)).toEqual({ status: 'pending', stockHeld: 1, couponHeld: 1, deferredReversal: null, paid: false, reversed: false });

    const paid = about(p, 'paid', { intentRef: 'ch_rules_paid', amount: p.amount, currency: 'USD' });
    expect(await apply(paid)).toEqual({
      outcome: 'paid', paymentId: p.id,
      effects: {
        ...noEffects,
        notifications: [{ userId: fan.id, event: 'payment/success', payload: { paymentId: p.id, type: 'products', targetId: p.targetId, amount: p.amount, currency: 'USD' } }],
        mails: [expect.objectContaining({ kind: 'receipt', paymentId: p.id, userId: fan.id, amount: p.amount, paymentType: 'products' })],
        // The products' performer is told of the sale (a notification row, its count pushed after the commit).
        notified: [expect.any(String)],
      },
    });
    expect(await recorded(paid.id)).toEqual([{ outcome: 'paid', paymentId: p.id }]);
    expect(await state(p.id)).toEqual({ status: 'success', stockHeld: 1, couponHeld: 1, deferredReversal: null, paid: true, reversed: false });
    expect((await paymentRow(p.id)).gatewayIntentRef).toBe('ch_rules_paid');
    // The held stock and coupon use are kept, not taken a second time.
    expect(await stockOf(shelf.id)).toBe(2);
    expect(await usesOf(w.coupons.welcome.id)).toBe(usesBefore + 1);
    // The digital product opens; the physical one is shipped, not opened.
    expect(await openEntitlements(fan.id)).toEqual([{ objectType: 'product', objectId: w.products.ebook.id }]);
    // Line prices after the 10 % coupon: 2 × 1500 − 300 and 999 − 99.
    expect(await earningsOf(p.id)).toEqual([
      { entry: 'credit', sourceType: 'product', gross: 900, testMoney: 1 },
      { entry: 'credit', sourceType: 'product', gross: 2700, testMoney: 1 },
    ]);
    expect(await ordersOf(p.id)).toEqual(['paid']);

    // Another event saying "paid" again changes nothing.
    expect(await apply(about(p, 'paid'))).toEqual({ outcome: 'already_paid', paymentId: p.id, effects: noEffects });
    expect(await earningsOf(p.id)).toHaveLength(2);

    // Refunded: money back once, entitlement revoked, stock not returned (the goods may have shipped), use kept.
    expect(await outcomeOf(about(p, 'refunded'))).toBe('refunded');
    expect(await state(p.id)).toEqual({ status: 'refunded', stockHeld: 1, couponHeld: 1, deferredReversal: null, paid: true, reversed: true });
    expect(await stockOf(shelf.id)).toBe(2);
    expect(await usesOf(w.coupons.welcome.id)).toBe(usesBefore + 1);
    expect(await openEntitlements(fan.id)).toEqual([]);
    expect(await ordersOf(p.id)).toEqual(['refunded']);
    const afterRefund = [
      { entry: 'credit', sourceType: 'product', gross: 900, testMoney: 1 },
      { entry: 'credit', sourceType: 'product', gross: 2700, testMoney: 1 },
      { entry: 'reversal', sourceType: 'product', gross: -2700, testMoney: 1 },
      { entry: 'reversal', sourceType: 'product', gross: -900, testMoney: 1 },
    ];
    expect(await earningsOf(p.id)).toEqual(afterRefund);

    // Labels only move up (refunded < chargeback); nothing else moves again.
    const sequence: Array<[GatewayAction, string, PaymentStatus]> = [
      ['refunded', 'ignored', 'refunded'],
      ['paid', 'already_paid', 'refunded'],
      ['chargeback', 'relabelled', 'chargeback'],
      ['chargeback', 'ignored', 'chargeback'],
      ['refunded', 'ignored', 'chargeback'],
      ['failed', 'ignored', 'chargeback'],
      ['cancelled', 'ignored', 'chargeback'],
      ['paid', 'already_paid', 'chargeback'],
    ];
    for (const [action, outcome, status] of sequence) {
      expect([action, await outcomeOf(about(p, action)), (await paymentRow(p.id)).status]).toEqual([action, outcome, status]);
    }
    expect(await earningsOf(p.id)).toEqual(afterRefund);
    expect(await stockOf(shelf.id)).toBe(2);
  });

  it('"failed" and "cancelled" give the stock and the coupon use back exactly once; then they only raise the label (cancelled < failed)', async () => {
    const fan = await createUser(db(), 'user');
    const shelf = await makeProduct(t.ctx, w.perf.id, { name: 'Rule cap', type: 'physical', price: 800, stock: 3 });
    const coupon = await makeCoupon(db(), { code: `CAP${newId().slice(-6)}`, maxUses: 5 });

    const a = await productCheckout(fan, [{ _id: shelf.id }], coupon.code);
    expect([await stockOf(shelf.id), await usesOf(coupon.id)]).toEqual([2, 1]);
    expect(await apply(about(a, 'cancelled'))).toEqual({ outcome: 'cancelled', paymentId: a.id, effects: noEffects });
    expect(await state(a.id)).toEqual({ status: 'cancelled', stockHeld: 0, couponHeld: 0, deferredReversal: null, paid: false, reversed: false });
    expect([await stockOf(shelf.id), await usesOf(coupon.id)]).toEqual([3, 0]);
    expect(await ordersOf(a.id)).toEqual(['cancelled']);
    for (const [action, outcome, status] of [
      ['cancelled', 'ignored', 'cancelled'],
      ['failed', 'relabelled', 'failed'],
      ['failed', 'ignored', 'failed'],
      ['cancelled', 'ignored', 'failed'],
    ] as const) {
      expect([action, await outcomeOf(about(a, action)), (await paymentRow(a.id)).status]).toEqual([action, outcome, status]);
    }
    expect([await stockOf(shelf.id), await usesOf(coupon.id)]).toEqual([3, 0]);

    // The other order: failed first, then the checkout's cancellation changes nothing.
    const b = await productCheckout(fan, [{ _id: shelf.id, quantity: 2 }], coupon.code);
    expect([await stockOf(shelf.id), await usesOf(coupon.id)]).toEqual([1, 1]);
    expect(await outcomeOf(about(b, 'failed'))).toBe('failed');
    expect(await outcomeOf(about(b, 'cancelled'))).toBe('ignored');
    expect(await state(b.id)).toEqual({ status: 'failed', stockHeld: 0, couponHeld: 0, deferredReversal: null, paid: false, reversed: false });
    expect([await stockOf(shelf.id), await usesOf(coupon.id)]).toEqual([3, 0]);
  });

  it('"paid" after a failure takes the stock and the coupon use again; a video takes no stock', async () => {
    const fan = await createUser(db(), 'user');
    const shelf = await makeProduct(t.ctx, w.perf.id, { name: 'Rule scarf', type: 'physical', price: 1000, stock: 5 });
    const coupon = await makeCoupon(db(), { code: `SCARF${newId().slice(-6)}`, maxUses: 3 });
    const p = await productCheckout(fan, [{ _id: shelf.id, quantity: 2 }], coupon.code);
    expect(await outcomeOf(about(p, 'failed'))).toBe('failed');
    expect([await stockOf(shelf.id), await usesOf(coupon.id)]).toEqual([5, 0]);
    expect(await outcomeOf(about(p, 'paid'))).toBe('paid');
    expect(await state(p.id)).toEqual({ status: 'success', stockHeld: 1, couponHeld: 1, deferredReversal: null, paid: true, reversed: false });
    expect([await stockOf(shelf.id), await usesOf(coupon.id)]).toEqual([3, 1]);
    expect((await detailsOf(p.id)).couponOverLimit).toBeUndefined();
    expect(await outcomeOf(about(p, 'paid'))).toBe('already_paid');
    expect([await stockOf(shelf.id), await usesOf(coupon.id)]).toEqual([3, 1]);

    const v = await videoCheckout(fan);
    expect(await outcomeOf(about(v, 'failed'))).toBe('failed');
    expect(await outcomeOf(about(v, 'paid'))).toBe('paid');
    expect(await state(v.id)).toEqual({ status: 'success', stockHeld: 0, couponHeld: 0, deferredReversal: null, paid: true, reversed: false });
    expect(await openEntitlements(fan.id)).toEqual([{ objectType: 'video', objectId: w.videos.saleVideo.id }]);
    expect(await earningsOf(v.id)).toEqual([{ entry: 'credit', sourceType: 'video', gross: 1299, testMoney: 1 }]);
  });

  it('a checkout from before holds existed gives nothing back when it fails, and takes both when paid; past the last use the use is still counted', async () => {
    const fan = await createUser(db(), 'user');
    const shelf = await makeProduct(t.ctx, w.perf.id, { name: 'Rule poster', type: 'physical', price: 700, stock: 3 });
    const usedUp = await makeCoupon(db(), { code: `LAST${newId().slice(-6)}`, maxUses: 1, usedCount: 1 });
    const p = await payment({ userId: fan.id, type: 'products', couponId: usedUp.id, couponHeld: 0, stockHeld: 0, items: [{ objectType: 'product', objectId: shelf.id, unitPrice: 700 }] });
    expect(await outcomeOf(about(p, 'failed'))).toBe('failed');
    expect([await stockOf(shelf.id), await usesOf(usedUp.id)]).toEqual([3, 1]);
    expect(await outcomeOf(about(p, 'paid'))).toBe('paid');
    expect([await stockOf(shelf.id), await usesOf(usedUp.id)]).toEqual([2, 2]);
    expect(await state(p.id)).toEqual({ status: 'success', stockHeld: 1, couponHeld: 1, deferredReversal: null, paid: true, reversed: false });
    expect(await detailsOf(p.id)).toEqual({ couponOverLimit: true });
  });

  it('a late payment whose stock is gone is paid and refunded at once; what it took of its other lines goes back', async () => {
    const fan = await createUser(db(), 'user');
    // Ids in this order, so the settlement takes the available product first and must give it back.
    const plenty = await makeProduct(t.ctx, w.perf.id, { id: newId(), name: 'Rule plenty', type: 'physical', price: 500, stock: 5 });
    const gone = await makeProduct(t.ctx, w.perf.id, { id: newId(Date.now() + 1000), name: 'Rule gone', type: 'physical', price: 900, stock: 0 });
    const p = await payment({
      userId: fan.id, type: 'products', status: 'failed', stockHeld: 0,
      items: [{ objectType: 'product', objectId: plenty.id, unitPrice: 500, quantity: 2 }, { objectType: 'product', objectId: gone.id, unitPrice: 900 }],
    });
    const r = await apply(about(p, 'paid'));
    expect(r.outcome).toBe('paid_out_of_stock_refunded');
    expect(r.effects.refundsDue.map((x) => x.id)).toEqual([p.id]);
    expect(r.effects.notifications.map((n) => n.event)).toEqual(['payment/success']);
    expect([await stockOf(plenty.id), await stockOf(gone.id)]).toEqual([5, 0]);
    expect(await state(p.id)).toEqual({ status: 'refunded', stockHeld: 0, couponHeld: 0, deferredReversal: null, paid: true, reversed: true });
    expect(await detailsOf(p.id)).toEqual({ reason: 'out_of_stock' });
    expect((await earningsOf(p.id)).map((e) => [e.entry, e.gross])).toEqual([['credit', 900], ['credit', 1000], ['reversal', -1000], ['reversal', -900]]);
  });

  it('a late payment out of stock whose refund or chargeback came first: that reversal is applied, as in the other order, and no refund is asked for', async () => {
    const fan = await createUser(db(), 'user');
    const gone = await makeProduct(t.ctx, w.perf.id, { name: 'Rule sold out', type: 'physical', price: 600, stock: 0 });
    const late = () => payment({ userId: fan.id, type: 'products', status: 'failed', stockHeld: 0, items: [{ objectType: 'product', objectId: gone.id, unitPrice: 600 }] });
    const ended = async (id: string) => ({ ...(await state(id)), reason: (await detailsOf(id)).reason });

    // Paid first: refunded at once and the provider asked for the money back; the chargeback then raises the label.
    const a = await late();
    const paidFirst = await apply(about(a, 'paid'));
    expect([paidFirst.outcome, paidFirst.effects.refundsDue.map((x) => x.id)]).toEqual(['paid_out_of_stock_refunded', [a.id]]);
    expect(await outcomeOf(about(a, 'chargeback'))).toBe('relabelled');
    // The chargeback first: the buyer has the money back already.
    const b = await late();
    expect(await outcomeOf(about(b, 'chargeback'))).toBe('deferred');
    const chargebackFirst = await apply(about(b, 'paid'));
    expect([chargebackFirst.outcome, chargebackFirst.effects.refundsDue]).toEqual(['paid_then_chargeback', []]);
    const done = { status: 'chargeback', stockHeld: 0, couponHeld: 0, deferredReversal: null, paid: true, reversed: true, reason: 'out_of_stock' };
    expect([await ended(a.id), await ended(b.id)]).toEqual([done, done]);
    // A refund that came first: already refunded at the provider, so nothing more is asked.
    const c = await late();
    expect(await outcomeOf(about(c, 'refunded'))).toBe('deferred');
    const refundFirst = await apply(about(c, 'paid'));
    expect([refundFirst.outcome, refundFirst.effects.refundsDue]).toEqual(['paid_then_refunded', []]);
    expect(await ended(c.id)).toEqual({ ...done, status: 'refunded' });
    expect(await stockOf(gone.id)).toBe(0);
    for (const p of [a, b, c]) expect((await earningsOf(p.id)).map((e) => e.gross)).toEqual([600, -600]);
  });

  it('a reversal before the payment is deferred (the stronger one kept) and applied by "paid"', async () => {
    const fan = await createUser(db(), 'user');
    const v = await videoCheckout(fan);
    for (const [action, kept] of [['refunded', 'refunded'], ['chargeback', 'chargeback'], ['refunded', 'chargeback']] as const) {
      expect([action, await outcomeOf(about(v, action))]).toEqual([action, 'deferred']);
      expect(await state(v.id)).toEqual({ status: 'pending', stockHeld: 0, couponHeld: 0, deferredReversal: kept, paid: false, reversed: false });
    }
    expect(await outcomeOf(about(v, 'paid'))).toBe('paid_then_chargeback');
    expect(await state(v.id)).toEqual({ status: 'chargeback', stockHeld: 0, couponHeld: 0, deferredReversal: null, paid: true, reversed: true });
    expect(await openEntitlements(fan.id)).toEqual([]);
    expect((await earningsOf(v.id)).map((e) => [e.entry, e.gross])).toEqual([['credit', 1299], ['reversal', -1299]]);

    // Deferred on a failed payment too, and applied when the provider reports it paid after all.
    const f = await videoCheckout(fan);
    expect(await outcomeOf(about(f, 'failed'))).toBe('failed');
    expect(await outcomeOf(about(f, 'refunded'))).toBe('deferred');
    expect(await state(f.id)).toEqual({ status: 'failed', stockHeld: 0, couponHeld: 0, deferredReversal: 'refunded', paid: false, reversed: false });
    expect(await outcomeOf(about(f, 'paid'))).toBe('paid_then_refunded');
    expect(await state(f.id)).toEqual({ status: 'refunded', stockHeld: 0, couponHeld: 0, deferredReversal: null, paid: true, reversed: true });
    expect(await openEntitlements(fan.id)).toEqual([]);
  });

  it('an event we cannot match is unknown_payment, or RetryLater (nothing recorded) when a reversal names only a charge we do not know yet', async () => {
    for (const action of ['refunded', 'chargeback'] as const) {
      const e = ev(action, { intentRef: `pi_unknown_${newId()}` });
      const err = await apply(e).then(() => null, (x: unknown) => x);
      expect(err).toBeInstanceOf(RetryLater);
      expect(err).toMatchObject({ statusCode: 409, code: 'RETRY_LATER', message: 'The charge of this event is not known yet; retry later' });
      expect(await recorded(e.id)).toEqual([]);
    }
    const unknown: GatewayEvent[] = [
      ev('refunded', { paymentId: 'no_such_payment', intentRef: `pi_unknown_${newId()}` }),
      ev('paid', { intentRef: `pi_unknown_${newId()}` }),
      ev('failed', { intentRef: `pi_unknown_${newId()}` }),
      ev('refunded', {}),
    ];
    for (const e of unknown) {
      expect(await apply(e)).toEqual({ outcome: 'unknown_payment', paymentId: null, effects: noEffects });
      expect(await recorded(e.id)).toEqual([{ outcome: 'unknown_payment', paymentId: null }]);
    }
    // A type we do not act on is recorded as such; the same event again is a duplicate and changes nothing.
    const other = ev(null, { type: 'customer.updated' });
    expect(await apply(other)).toEqual({ outcome: 'ignored_type', paymentId: null, effects: noEffects });
    expect(await apply(other)).toEqual({ outcome: 'duplicate', paymentId: null, effects: noEffects });
    expect(await recorded(other.id)).toEqual([{ outcome: 'ignored_type', paymentId: null }]);
  });

  it('an event naming another checkout is reference_mismatch; "paid" with another amount or currency is amount_mismatch', async () => {
    const fan = await createUser(db(), 'user');
    const v = await videoCheckout(fan);
    const mismatch = about(v, 'paid', { gatewayRef: 'sbx_another_checkout' });
    expect(await apply(mismatch)).toEqual({ outcome: 'reference_mismatch', paymentId: v.id, effects: noEffects });
    expect(await recorded(mismatch.id)).toEqual([{ outcome: 'reference_mismatch', paymentId: v.id }]);
    expect(await outcomeOf(about(v, 'paid', { amount: v.amount + 1, currency: 'USD' }))).toBe('amount_mismatch');
    expect(await outcomeOf(about(v, 'paid', { amount: v.amount, currency: 'EUR' }))).toBe('amount_mismatch');
    expect((await paymentRow(v.id)).status).toBe('pending');
    // Naming no checkout and no amount is no contradiction.
    expect(await outcomeOf(ev('paid', { paymentId: v.id }))).toBe('paid');
    // Amounts are checked on "paid" only: a reversal names what it gave back.
    expect(await outcomeOf(about(v, 'refunded', { amount: 1, currency: 'EUR' }))).toBe('refunded');

    // A payment whose checkout reference was never stored accepts the provider's.
    const bare = await payment({ userId: fan.id, type: 'video', gatewayRef: null, items: [{ objectType: 'video', objectId: w.videos.saleVideo.id, unitPrice: 1299 }] });
    expect(await outcomeOf(ev('paid', { paymentId: bare.id, gatewayRef: 'sbx_whatever' }))).toBe('paid');
  });

  it('each kind of purchase opens what it bought; a physical product and a subscription open nothing; earnings are named by source', async () => {
    const fan = await createUser(db(), 'user');
    const shelf = await makeProduct(t.ctx, w.perf.id, { name: 'Rule tote', type: 'physical', price: 400, stock: 2 });
    const galleryId = newId();
    const postId = newId();
    const bought = [
      await payment({ userId: fan.id, type: 'gallery', items: [{ objectType: 'gallery', objectId: galleryId, unitPrice: 300 }] }),
      await payment({ userId: fan.id, type: 'post', items: [{ objectType: 'post', objectId: postId, unitPrice: 200 }] }),
      await payment({ userId: fan.id, type: 'video', items: [{ objectType: 'video', objectId: w.videos.saleVideo.id, unitPrice: 1299 }] }),
      await payment({ userId: fan.id, type: 'products', stockHeld: 1, items: [{ objectType: 'product', objectId: w.products.ebook.id, unitPrice: 999 }, { objectType: 'product', objectId: shelf.id, unitPrice: 400 }] }),
      await subscriptionPayment(fan.id, { details: JSON.stringify({ durationDays: 30 }) }),
    ];
    for (const p of bought) expect(await outcomeOf(about(p, 'paid'))).toBe('paid');
    expect(await openEntitlements(fan.id)).toEqual(
      [
        { objectType: 'gallery', objectId: galleryId },
        { objectType: 'post', objectId: postId },
        { objectType: 'product', objectId: w.products.ebook.id },
        { objectType: 'video', objectId: w.videos.saleVideo.id },
      ].sort((a, b) => (a.objectType + a.objectId < b.objectType + b.objectId ? -1 : 1)),
    );
    const sources = await Promise.all(bought.map(async (p) => (await earningsOf(p.id)).map((e) => `${e.sourceType}:${e.gross}`)));
    expect(sources).toEqual([['gallery:300'], ['post:200'], ['video:1299'], ['product:400', 'product:999'], ['subscription:1000']]);
  });

  it('test money is the sandbox\'s only: a payment taken by another provider credits real earnings', async () => {
    const fan = await createUser(db(), 'user');
    const p = await payment({ userId: fan.id, type: 'video', gateway: 'stripe', items: [{ objectType: 'video', objectId: w.videos.saleVideo.id, unitPrice: 1299 }] });
    expect(await outcomeOf(about(p, 'paid'), 'stripe')).toBe('paid');
    expect(await earningsOf(p.id)).toEqual([{ entry: 'credit', sourceType: 'video', gross: 1299, testMoney: 0 }]);
    expect(await outcomeOf(about(p, 'refunded'), 'stripe')).toBe('refunded');
    expect((await earningsOf(p.id)).map((e) => [e.entry, e.testMoney])).toEqual([['credit', 0], ['reversal', 0]]);
  });

  it('a subscription payment adds its days (by its type when its details do not say) and a refund takes exactly those days out', async () => {
    const fan = await createUser(db(), 'user');
    const perf = w.perf2.id;
    const count = async () => (await db().selectFrom('performers').select('subscriberCount').where('id', '=', perf).executeTakeFirstOrThrow()).subscriberCount;
    const countBefore = await count();
    // Details unreadable as JSON: a monthly payment is 30 days.
    const monthly = await subscriptionPayment(fan.id, { performerId: perf, details: 'not json', amount: 500 });
    const before = Date.now();
    const r = await apply(about(monthly, 'paid'));
    const sub = await subRow(fan.id, perf);
    expect(r).toEqual({
      outcome: 'paid', paymentId: monthly.id,
      effects: {
        ...noEffects,
        notifications: [
          { userId: fan.id, event: 'subscription/success', payload: { subscriptionId: sub.id, performerId: perf, paymentId: monthly.id, expiresAt: sub.expiresAt } },
          { userId: fan.id, event: 'payment/success', payload: { paymentId: monthly.id, type: 'subscription_monthly', targetId: null, amount: 500, currency: 'USD' } },
        ],
        mails: [
          expect.objectContaining({ kind: 'new-subscriber', performerId: perf, fanId: fan.id, type: 'monthly' }),
          expect.objectContaining({ kind: 'receipt', paymentId: monthly.id, userId: fan.id, amount: 500 }),
        ],
        notified: [perf],
      },
    });
    const end1 = Date.parse(sub.expiresAt!);
    expect(end1 - before).toBeGreaterThanOrEqual(30 * DAY);
    expect(end1 - Date.now()).toBeLessThanOrEqual(30 * DAY);
    expect(sub).toMatchObject({ status: 'active', type: 'monthly', autoRenew: 0, gatewaySubscriptionId: null });
    expect(await count()).toBe(countBefore + 1);

    // Details "null": a yearly payment is 365 days, added to the end of the live period.
    const yearly = await subscriptionPayment(fan.id, { performerId: perf, type: 'yearly', details: 'null', amount: 5000 });
    expect(await outcomeOf(about(yearly, 'paid'))).toBe('paid');
    expect(await subRow(fan.id, perf)).toMatchObject({ type: 'yearly', expiresAt: new Date(end1 + 365 * DAY).toISOString() });
    // The days its details say, whatever its type.
    const week = await subscriptionPayment(fan.id, { performerId: perf, details: JSON.stringify({ durationDays: 7 }), amount: 100 });
    expect(await outcomeOf(about(week, 'paid'))).toBe('paid');
    expect((await subRow(fan.id, perf)).expiresAt).toBe(new Date(end1 + 372 * DAY).toISOString());
    expect(await count()).toBe(countBefore + 1);

    // Each reversal takes its payment's days out: the period is what the payments still paid add up to, from the
    // time each was paid (the first one left starts the run).
    const paidAt = async (id: string) => Date.parse((await db().selectFrom('payments').select('paidAt').where('id', '=', id).executeTakeFirstOrThrow()).paidAt!);
    expect(await outcomeOf(about(monthly, 'refunded'))).toBe('refunded');
    expect(await subRow(fan.id, perf)).toMatchObject({ status: 'active', expiresAt: new Date((await paidAt(yearly.id)) + 372 * DAY).toISOString() });
    expect(await outcomeOf(about(yearly, 'refunded'))).toBe('refunded');
    expect(await subRow(fan.id, perf)).toMatchObject({ status: 'active', expiresAt: new Date((await paidAt(week.id)) + 7 * DAY).toISOString() });
    // Nothing paid left: closed at once, and no longer counted.
    expect(await outcomeOf(about(week, 'chargeback'))).toBe('chargeback');
    const closed = await subRow(fan.id, perf);
    expect(closed.status).toBe('cancelled');
    expect(Date.parse(closed.expiresAt!)).toBeLessThanOrEqual(Date.now());
    expect(await count()).toBe(countBefore);
  });

  it('the first payment of a recurring subscription starts its billing; a billing it replaces is stopped at its own provider', async () => {
    const fan = await createUser(db(), 'user');
    const month = (o: { amount: number; renewalAmount?: number; gateway?: GatewayName }) =>
      subscriptionPayment(fan.id, { amount: o.amount, gateway: o.gateway, details: JSON.stringify({ durationDays: 30, ...(o.renewalAmount ? { renewalAmount: o.renewalAmount } : {}) }) });
    const billing = async () => {
      const s = await subRow(fan.id);
      return { gateway: s.gateway, ref: s.gatewaySubscriptionId, autoRenew: s.autoRenew, renewalAmount: s.renewalAmount, renewalCurrency: s.renewalCurrency, periodDays: s.periodDays };
    };

    // First at Stripe, with a coupon on the first period: renewals charge the list price.
    const first = await month({ amount: 900, renewalAmount: 1000, gateway: 'stripe' });
    const r1 = await apply(about(first, 'paid', { subscriptionRef: 'sub_rules_stripe' }), 'stripe');
    expect([r1.outcome, r1.effects.recurringToCancel]).toEqual(['paid', []]);
    expect(await billing()).toEqual({ gateway: 'stripe', ref: 'sub_rules_stripe', autoRenew: 1, renewalAmount: 1000, renewalCurrency: 'USD', periodDays: 30 });

    // The site moved to the sandbox and the fan subscribed again there: the Stripe billing is stopped at Stripe.
    const second = await month({ amount: 950 });
    const r2 = await apply(about(second, 'paid', { subscriptionRef: 'sbs_rules_second' }));
    expect([r2.outcome, r2.effects.recurringToCancel]).toEqual(['paid', [{ gateway: 'stripe', ref: 'sub_rules_stripe' }]]);
    expect(await billing()).toEqual({ gateway: 'sandbox', ref: 'sbs_rules_second', autoRenew: 1, renewalAmount: 950, renewalCurrency: 'USD', periodDays: 30 });

    // The same billing named again stops nothing.
    const third = await month({ amount: 950 });
    expect((await apply(about(third, 'paid', { subscriptionRef: 'sbs_rules_second' }))).effects.recurringToCancel).toEqual([]);
    // A billing the subscriber had already cancelled is not stopped again.
    await db().updateTable('subscriptions').set({ autoRenew: 0 }).where('id', '=', (await subRow(fan.id)).id).execute();
    const fourth = await month({ amount: 950 });
    expect((await apply(about(fourth, 'paid', { subscriptionRef: 'sbs_rules_fourth' }))).effects.recurringToCancel).toEqual([]);
    expect(await billing()).toMatchObject({ ref: 'sbs_rules_fourth', autoRenew: 1 });
    // A one-time payment leaves the billing alone.
    const once = await month({ amount: 950 });
    expect((await apply(about(once, 'paid'))).effects.recurringToCancel).toEqual([]);
    expect(await billing()).toMatchObject({ ref: 'sbs_rules_fourth', autoRenew: 1 });
  });

  it('a transition decided by us: an unknown payment, a cancelled checkout with its reason, and one that changes nothing keeps its details', async () => {
    expect(await applyInternal(money.settlement, 'no_such_payment', 'cancelled', 'expired')).toEqual({ outcome: 'unknown_payment', paymentId: null, effects: noEffects });
    const fan = await createUser(db(), 'user');
    const v = await videoCheckout(fan);
    const described = await detailsOf(v.id);
    expect((await applyInternal(money.settlement, v.id, 'cancelled', 'expired')).outcome).toBe('cancelled');
    expect(await detailsOf(v.id)).toEqual({ ...described, reason: 'expired' });
    expect((await applyInternal(money.settlement, v.id, 'failed', 'gateway_error')).outcome).toBe('relabelled');
    expect((await applyInternal(money.settlement, v.id, 'cancelled', 'again')).outcome).toBe('ignored');
    expect(await detailsOf(v.id)).toEqual({ ...described, reason: 'expired' });
    expect((await paymentRow(v.id)).status).toBe('failed');

    // Details that are not a JSON object are read as none.
    for (const details of ['not json', 'null', '"text"', '42']) {
      const p = await payment({ userId: fan.id, type: 'video', details, items: [{ objectType: 'video', objectId: w.videos.saleVideo.id, unitPrice: 1299 }] });
      expect((await applyInternal(money.settlement, p.id, 'cancelled', 'expired')).outcome).toBe('cancelled');
      expect([details, await detailsOf(p.id)]).toEqual([details, { reason: 'expired' }]);
    }
  });

  // -- retries -------------------------------------------------------------------------------------------------------

  describe('inTransaction', () => {
    const dbError = (code?: string) => Object.assign(new Error(`database error ${code ?? '(no code)'}`), code ? { code } : {});

    it('retries an attempt that failed with a deadlock, serialisation or busy code; the failed attempt\'s writes are rolled back', async () => {
      for (const code of ['40P01', '40001', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_LOCKED']) {
        const eventId = `evt_retry_${newId()}`;
        let calls = 0;
        const out = await inTransaction(db(), async (trx) => {
          calls++;
          await trx.insertInto('webhookEvents').values({ gateway: 'sandbox', eventId, type: 'test', payload: '{}', paymentId: null, outcome: `attempt ${calls}`, receivedAt: nowIso() }).execute();
          if (calls === 1) throw dbError(code);
          return 'done';
        });
        expect([code, out, calls]).toEqual([code, 'done', 2]);
        expect(await recorded(eventId)).toEqual([{ outcome: 'attempt 2', paymentId: null }]);
      }
    });

    it('does not retry another error: another code, no code, not an error at all', async () => {
      for (const thrown of [dbError('23505'), dbError(), null]) {
        let calls = 0;
        const err = await inTransaction(db(), async () => {
          calls++;
          throw thrown;
        }).then(() => 'resolved', (x: unknown) => x);
        expect([err === thrown, calls]).toEqual([true, 1]);
      }
    });

    it('gives up after its attempts (six by default), waiting 5 ms more before each retry plus up to 20 ms of jitter', async () => {
      const busy = dbError('SQLITE_BUSY');
      const run = async (attempts?: number) => {
        let calls = 0;
        // A runaway retry loop ends here instead of never.
        const err = await inTransaction(db(), async () => (++calls > 20 ? 'kept retrying' : Promise.reject(busy)), attempts).then((x) => x, (x: unknown) => x);
        return { thrown: err === busy, calls };
      };
      expect(await run(1)).toEqual({ thrown: true, calls: 1 });
      expect(await run(3)).toEqual({ thrown: true, calls: 3 });
      // The waits are counted, not timed: the jitter is pinned to half its range.
      vi.spyOn(Math, 'random').mockReturnValue(0.5);
      const timers = vi.spyOn(globalThis, 'setTimeout');
      try {
        expect(await run()).toEqual({ thrown: true, calls: 6 });
        const waits = timers.mock.calls.map((c) => c[1]).filter((ms) => typeof ms === 'number' && ms < 100);
        expect(waits).toEqual([15, 20, 25, 30, 35]);
      } finally {
        vi.restoreAllMocks();
      }
    });
  });

  // -- recurring billing (renewals.ts) -----------------------------------------------------------------------------

  describe('recurring billing events', () => {
    /** A fan whose first payment started the billing `ref` (30 days, 1000 USD unless said). */
    async function recurring(o: { type?: 'monthly' | 'yearly'; days?: number } = {}) {
      const fan = await createUser(db(), 'user');
      const ref = `sbs_rules_${newId()}`;
      const days = o.days ?? (o.type === 'yearly' ? 365 : 30);
      const first = await subscriptionPayment(fan.id, { type: o.type, amount: 1000, details: JSON.stringify({ durationDays: days, renewalAmount: 1000 }) });
      expect(await outcomeOf(about(first, 'paid', { subscriptionRef: ref }))).toBe('paid');
      return { fan, ref, sub: await subRow(fan.id) };
    }
    const charge = () => `sbx_charge_${newId()}`;

    it('an event without a billing reference, or of a billing we do not know', async () => {
      for (const action of ['renewed', 'renewal_failed', 'subscription_ended'] as const) {
        const e = ev(action, { gatewayRef: charge(), amount: 1000, currency: 'USD' });
        expect(await apply(e)).toEqual({ outcome: 'no_subscription_ref', paymentId: null, effects: noEffects });
        expect(await recorded(e.id)).toEqual([{ outcome: 'no_subscription_ref', paymentId: null }]);
      }
      for (const action of ['renewal_failed', 'subscription_ended'] as const) {
        expect(await outcomeOf(ev(action, { subscriptionRef: 'sbs_nobody' }))).toBe('unknown_subscription');
      }
      // A renewal of a billing whose first payment has not arrived yet: the provider must retry; nothing is recorded.
      const early = ev('renewed', { subscriptionRef: 'sbs_nobody', gatewayRef: charge(), amount: 1000, currency: 'USD' });
      const err = await apply(early).then(() => null, (x: unknown) => x);
      expect(err).toBeInstanceOf(RetryLater);
      expect(err).toMatchObject({ code: 'RETRY_LATER', message: 'The subscription of this renewal is not known yet; retry later' });
      expect(await recorded(early.id)).toEqual([]);
      // A renewal that names no charge makes no payment.
      const { fan, ref } = await recurring();
      expect(await outcomeOf(ev('renewed', { subscriptionRef: ref, amount: 1000, currency: 'USD' }))).toBe('no_charge_ref');
      expect(await db().selectFrom('payments').select('id').where('userId', '=', fan.id).execute()).toHaveLength(1);
    });

    it('a renewal is a new payment for what the provider charged, else the subscription\'s terms, for the subscription\'s period', async () => {
      const { fan, ref, sub } = await recurring({ days: 7 });
      // A subscription billed in euros.
      await db().updateTable('subscriptions').set({ renewalCurrency: 'EUR' }).where('id', '=', sub.id).execute();
      const end = Date.parse(sub.expiresAt!);
      const first = charge();
      const r = await apply(ev('renewed', { subscriptionRef: ref, gatewayRef: first, intentRef: 'pi_renewal_1', amount: null, currency: null, occurredAt: new Date().toISOString() }));
      expect(r.outcome).toBe('renewed');
      const p = await paymentRow(r.paymentId!);
      expect(p).toMatchObject({
        userId: fan.id, performerId: w.perf.id, type: 'subscription_monthly', status: 'success', gateway: 'sandbox', gatewayRef: first, gatewayIntentRef: 'pi_renewal_1',
        amount: 1000, originalPrice: 1000, discount: 0, currency: 'EUR', targetId: w.perf.id, couponId: null,
      });
      expect(JSON.parse(p.details)).toEqual({ description: 'Renewal (monthly)', durationDays: 7, subscriptionType: 'monthly', renewal: true, subscriptionId: sub.id });
      expect(await db().selectFrom('paymentItems').select(['objectType', 'objectId', 'performerId', 'quantity', 'unitPrice', 'discount']).where('paymentId', '=', p.id).execute()).toEqual([
        { objectType: 'performer', objectId: w.perf.id, performerId: w.perf.id, quantity: 1, unitPrice: 1000, discount: 0 },
      ]);
      expect((await subRow(fan.id)).expiresAt).toBe(new Date(end + 7 * DAY).toISOString());

      // What the provider says it took wins over the stored terms.
      const r2 = await apply(ev('renewed', { subscriptionRef: ref, gatewayRef: charge(), amount: 1200, currency: 'gbp', occurredAt: new Date().toISOString() }));
      expect(r2.outcome).toBe('renewed');
      expect(await paymentRow(r2.paymentId!)).toMatchObject({ amount: 1200, currency: 'GBP', gatewayIntentRef: null });
      expect((await subRow(fan.id)).expiresAt).toBe(new Date(end + 14 * DAY).toISOString());
    });

    it('a yearly billing whose terms were never stored renews for 365 days in US dollars', async () => {
      const { fan, ref, sub } = await recurring({ type: 'yearly' });
      await db().updateTable('subscriptions').set({ periodDays: null, renewalCurrency: null, renewalAmount: null }).where('id', '=', sub.id).execute();
      const r = await apply(ev('renewed', { subscriptionRef: ref, gatewayRef: charge(), amount: 9000, occurredAt: new Date().toISOString() }));
      expect(r.outcome).toBe('renewed');
      const p = await paymentRow(r.paymentId!);
      expect(p).toMatchObject({ type: 'subscription_yearly', amount: 9000, currency: 'USD' });
      expect(JSON.parse(p.details)).toMatchObject({ description: 'Renewal (yearly)', durationDays: 365, subscriptionType: 'yearly' });
      expect((await subRow(fan.id)).expiresAt).toBe(new Date(Date.parse(sub.expiresAt!) + 365 * DAY).toISOString());

      // A monthly one: 30 days.
      const monthly = await recurring({ type: 'monthly' });
      await db().updateTable('subscriptions').set({ periodDays: null }).where('id', '=', monthly.sub.id).execute();
      const m = await apply(ev('renewed', { subscriptionRef: monthly.ref, gatewayRef: charge(), amount: 1000, currency: 'USD', occurredAt: new Date().toISOString() }));
      expect(JSON.parse((await paymentRow(m.paymentId!)).details)).toMatchObject({ description: 'Renewal (monthly)', durationDays: 30, subscriptionType: 'monthly' });
      expect((await subRow(monthly.fan.id)).expiresAt).toBe(new Date(Date.parse(monthly.sub.expiresAt!) + 30 * DAY).toISOString());
    });

    it('a renewal that crossed a cancellation still gives its period; failures and endings of a stopped billing are ignored', async () => {
      const { fan, ref, sub } = await recurring();
      await db().updateTable('subscriptions').set({ autoRenew: 0, cancelAtPeriodEnd: 1 }).where('id', '=', sub.id).execute();
      const at = new Date().toISOString();
      expect(await outcomeOf(ev('renewal_failed', { subscriptionRef: ref, occurredAt: at }))).toBe('ignored');
      expect(await outcomeOf(ev('subscription_ended', { subscriptionRef: ref, occurredAt: at }))).toBe('ignored');
      expect(await subRow(fan.id)).toMatchObject({ renewalFailedAt: null, graceUntil: null, cancelledAt: null, expiresAt: sub.expiresAt });
      expect(await outcomeOf(ev('renewed', { subscriptionRef: ref, gatewayRef: charge(), amount: 1000, currency: 'USD', occurredAt: at }))).toBe('renewed');
      expect((await subRow(fan.id)).expiresAt).toBe(new Date(Date.parse(sub.expiresAt!) + 30 * DAY).toISOString());
    });

    it('a failure is stale only when the paid period ends more than a day after it; the grace period runs from the period\'s end', async () => {
      await t.ctx.settings.set('renewalGraceDays', 5);
      try {
        const { fan, ref, sub } = await recurring();
        const end = Date.parse(sub.expiresAt!);
        const failAt = (ms: number) => ev('renewal_failed', { subscriptionRef: ref, occurredAt: new Date(ms).toISOString() });
        expect(await outcomeOf(failAt(end - DAY - 1))).toBe('stale_failure');
        expect(await subRow(fan.id)).toMatchObject({ renewalFailedAt: null, graceUntil: null });
        expect(await outcomeOf(failAt(end - DAY))).toBe('renewal_failed');
        expect(await subRow(fan.id)).toMatchObject({ renewalFailedAt: new Date(end - DAY).toISOString(), graceUntil: new Date(end + 5 * DAY).toISOString(), autoRenew: 1, expiresAt: sub.expiresAt });

        // A failure the provider dates unreadably is dated when we receive it.
        const late = await recurring();
        const lateEnd = Date.now() - 3_600_000;
        await db().updateTable('subscriptions').set({ expiresAt: new Date(lateEnd).toISOString() }).where('id', '=', late.sub.id).execute();
        const before = Date.now();
        expect(await outcomeOf(ev('renewal_failed', { subscriptionRef: late.ref, occurredAt: 'yesterday-ish' }))).toBe('renewal_failed');
        const failed = await subRow(late.fan.id);
        expect(Date.parse(failed.renewalFailedAt!)).toBeGreaterThanOrEqual(before);
        expect(Date.parse(failed.renewalFailedAt!)).toBeLessThanOrEqual(Date.now());
        expect(failed.graceUntil).toBe(new Date(lateEnd + 5 * DAY).toISOString());

        // Without a paid end, the grace period runs from the failure.
        const open = await recurring();
        await db().updateTable('subscriptions').set({ expiresAt: null }).where('id', '=', open.sub.id).execute();
        const at = Date.now() - 1000;
        expect(await outcomeOf(ev('renewal_failed', { subscriptionRef: open.ref, occurredAt: new Date(at).toISOString() }))).toBe('renewal_failed');
        expect(await subRow(open.fan.id)).toMatchObject({ renewalFailedAt: new Date(at).toISOString(), graceUntil: new Date(at + 5 * DAY).toISOString() });
      } finally {
        await t.ctx.settings.set('renewalGraceDays', 3);
      }
    });

    it('the provider ending a billing: shown cancelled (dated by the provider) whatever came before; after failed renewals the fan is told it expired', async () => {
      const cancelled = await recurring();
      const at = new Date(Date.now() - 60_000).toISOString();
      expect(await apply(ev('subscription_ended', { subscriptionRef: cancelled.ref, occurredAt: at }))).toEqual({
        outcome: 'ended', paymentId: null,
        effects: { ...noEffects, mails: [expect.objectContaining({ kind: 'subscription-cancelled', userId: cancelled.fan.id, atProvider: true, at })] },
      });
      expect(await subRow(cancelled.fan.id)).toMatchObject({ status: 'active', autoRenew: 0, cancelAtPeriodEnd: 1, cancelledAt: at, expiresAt: cancelled.sub.expiresAt });

      const lapsed = await recurring();
      const end = Date.parse(lapsed.sub.expiresAt!);
      expect(await outcomeOf(ev('renewal_failed', { subscriptionRef: lapsed.ref, occurredAt: new Date(end).toISOString() }))).toBe('renewal_failed');
      const ended = await apply(ev('subscription_ended', { subscriptionRef: lapsed.ref, occurredAt: new Date(end + 4 * DAY).toISOString() }));
      expect(ended.outcome).toBe('ended');
      expect(ended.effects.mails).toEqual([expect.objectContaining({ kind: 'subscription-expired', userId: lapsed.fan.id })]);
      // The row does not depend on the order: the failure is moot once nothing renews.
      expect(await subRow(lapsed.fan.id)).toMatchObject({
        status: 'active', autoRenew: 0, cancelAtPeriodEnd: 1, cancelledAt: new Date(end + 4 * DAY).toISOString(), renewalFailedAt: null, graceUntil: null,
      });
    });
  });
});
