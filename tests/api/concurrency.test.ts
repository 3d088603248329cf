import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { daysFromNow, makeCoupon, makeProduct } from '../../server/seed/factories.js';
import { newId } from '../../server/db/ids.js';
import { buildMoneyWorld, chargeOf, ledger, payWithSandbox, postWebhook, sandboxEvent, type MoneyWorld } from '../helpers/money-fixture.js';
import { isSubscribed } from '../../server/access/access.service.js';
import { sweepExpiredCheckouts } from '../../server/payments/maintenance.service.js';
import { createMoney } from '../../server/payments/money.js';

/**
 * Real concurrency, on every engine: requests that race for the same row are sent at the same moment over HTTP
 * (PostgreSQL serves them on a pool of connections, so they truly interleave), and every round is checked against
 * the ledger and the final states. Each race is repeated so that an unguarded rule loses at least once:
 *   - "paid" and "refunded" (or "chargeback") of one payment at once, 50 payments each: the refund must be applied,
 *     never stored and forgotten (the payment row lock, lockPayment);
 *   - checkouts racing for a coupon's last use, and for the last item in stock: exactly one wins;
 *   - paying for a subscription and cancelling it at once: the answer the fan got is the state that was kept.
 */

const ROUNDS = 50;

describe.each(engines)('concurrency on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;
  const serverErrors: string[] = [];

  async function api(path: string, init: Parameters<TestApp['api']>[1] = {}) {
    const res = await t.api(path, init);
    if (res.status >= 500) serverErrors.push(`${res.status} ${init.method ?? 'GET'} ${path}: ${JSON.stringify(res.body)}`);
    return res;
  }
  const post = (path: string, who: TestUser, json: unknown) => api(path, { method: 'POST', headers: who.headers, json });
  const fans = (n: number) => Promise.all(Array.from({ length: n }, () => createUser(t.ctx.db, 'user')));
  const statusOf = async (ids: string[]) =>
    new Map((await t.ctx.db.selectFrom('payments').select(['id', 'status']).where('id', 'in', ids).execute()).map((r) => [r.id, r.status]));
  const expectBalanced = async () => {
    const l = await ledger(t.ctx.db);
    expect(l.paid).toBe(l.net + l.commission);
    expect(l.gross).toBe(l.paid);
  };

  beforeAll(async () => {
    t = await startTestApp(engine);
    w = await buildMoneyWorld(t.ctx);
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    ['refunded', 'charge.refunded'],
    ['chargeback', 'charge.dispute.created'],
  ] as const)(`paid and %s of the same video purchase at the same instant, ${ROUNDS} times: the reversal is always applied`, async (kind, eventType) => {
    const db = t.ctx.db;
    const buyers = await fans(ROUNDS);
    const checkouts = await Promise.all(buyers.map((b) => post(`/payment/purchase-video/${w.videos.saleVideo.id}`, b, {})));
    expect(checkouts.map((c) => c.status)).toEqual(Array(ROUNDS).fill(201));
    const ids = checkouts.map((c) => c.body.paymentId as string);
    const charges = await Promise.all(ids.map((id) => chargeOf(db, id)));

    // Both events of every payment, all at once.
    const answers = await Promise.all(charges.flatMap((c) => [postWebhook(t, sandboxEvent(t, 'charge.succeeded', c)), postWebhook(t, sandboxEvent(t, eventType, c))]));
    expect(answers.map((a) => a.status)).toEqual(Array(ROUNDS * 2).fill(200));

    const statuses = await statusOf(ids);
    expect(ids.map((id) => statuses.get(id))).toEqual(Array(ROUNDS).fill(kind));
    // Each payment was credited once and reversed once; the buyer owns nothing.
    const earnings = await db.selectFrom('earnings').select(['paymentId', 'entry', 'gross']).where('paymentId', 'in', ids).execute();
    for (const id of ids) {
      const rows = earnings.filter((e) => e.paymentId === id);
      expect(rows.map((r) => r.entry).sort()).toEqual(['credit', 'reversal']);
      expect(rows.reduce((n, r) => n + r.gross, 0)).toBe(0);
    }
    const owned = await db.selectFrom('entitlements').select('userId').where('objectId', '=', w.videos.saleVideo.id).where('revokedAt', 'is', null).where('userId', 'in', buyers.map((b) => b.id)).execute();
    expect(owned).toEqual([]);
    const open = await db.selectFrom('payments').select('id').where('id', 'in', ids).where('deferredReversal', 'is not', null).execute();
    expect(open).toEqual([]);
    await expectBalanced();
  }, 120_000);

  it(`paid and chargeback of the same subscription payment at the same instant, ${ROUNDS} times: no period is kept`, async () => {
    const db = t.ctx.db;
    const subscribers = await fans(ROUNDS);
    const checkouts = await Promise.all(subscribers.map((f) => post('/payment/subscribe', f, { performerId: w.perf2.id, type: 'monthly' })));
    expect(checkouts.map((c) => c.status)).toEqual(Array(ROUNDS).fill(201));
    const ids = checkouts.map((c) => c.body.paymentId as string);
    const charges = await Promise.all(ids.map((id) => chargeOf(db, id)));
    await Promise.all(charges.flatMap((c) => [postWebhook(t, sandboxEvent(t, 'charge.dispute.created', c)), postWebhook(t, sandboxEvent(t, 'charge.succeeded', c))]));

    const statuses = await statusOf(ids);
    expect(ids.map((id) => statuses.get(id))).toEqual(Array(ROUNDS).fill('chargeback'));
    const now = new Date().toISOString();
    for (const f of subscribers) expect(await isSubscribed(db, { id: f.id, role: 'user' }, w.perf2.id, new Date(now))).toBe(false);
    const live = await db.selectFrom('subscriptions').select('id').where('performerId', '=', w.perf2.id).where('status', '=', 'active').where('expiresAt', '>', now).execute();
    const perf = await db.selectFrom('performers').select('subscriberCount').where('id', '=', w.perf2.id).executeTakeFirstOrThrow();
    expect(perf.subscriberCount).toBe(live.length);
    await expectBalanced();
  }, 120_000);

  describe('a coupon with uses left for one', () => {
    const newCoupon = (maxUses: number) => makeCoupon(t.ctx.db, { name: 'race', code: `RACE${newId().slice(-8).toUpperCase()}`, valueBps: 2000, maxUses });
    const usedCount = async (id: string) => (await t.ctx.db.selectFrom('coupons').select('usedCount').where('id', '=', id).executeTakeFirstOrThrow()).usedCount;

    it('three fans one after another: the first checkout takes the use, the others are refused, and a paid payment keeps it', async () => {
      const coupon = await newCoupon(1);
      const [a, b, c] = await fans(3);
      const first = await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, a!, { couponCode: coupon.code });
      expect(first.status).toBe(201);
      expect(first.body.discount).toBe(Math.floor((1299 * 2000) / 10_000));
      expect(await usedCount(coupon.id)).toBe(1);
      for (const fan of [b!, c!]) {
        const refused = await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, fan, { couponCode: coupon.code });
        expect(refused.status).toBe(400);
        expect(refused.body.code).toBe('COUPON_USED_UP');
      }
      expect((await payWithSandbox(t, a!, first.body.redirectUrl)).status).toBe(200);
      expect(await usedCount(coupon.id)).toBe(1);
      const third = await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, c!, { couponCode: coupon.code });
      expect(third.body.code).toBe('COUPON_USED_UP');
      const paid = await t.ctx.db.selectFrom('payments').select('id').where('couponId', '=', coupon.id).where('status', '=', 'success').execute();
      expect(paid).toHaveLength(1);
    });

    it('a declined checkout and an expired one give their use back, exactly once', async () => {
      const coupon = await newCoupon(1);
      const [a, b, c] = await fans(3);
      const first = await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, a!, { couponCode: coupon.code });
      expect(first.status).toBe(201);
      expect((await payWithSandbox(t, a!, first.body.redirectUrl, 'decline')).status).toBe(200);
      // The provider repeats its "failed" and adds a "cancelled": the use comes back once.
      const charge = await chargeOf(t.ctx.db, first.body.paymentId);
      await postWebhook(t, sandboxEvent(t, 'charge.failed', charge));
      await postWebhook(t, sandboxEvent(t, 'checkout.expired', charge));
      expect(await usedCount(coupon.id)).toBe(0);

      const second = await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, b!, { couponCode: coupon.code });
      expect(second.status).toBe(201);
      expect(await usedCount(coupon.id)).toBe(1);
      await t.ctx.db.updateTable('payments').set({ expiresAt: daysFromNow(-1) }).where('id', '=', second.body.paymentId).execute();
      expect(await sweepExpiredCheckouts(createMoney(t.ctx))).toBeGreaterThanOrEqual(1);
      expect(await sweepExpiredCheckouts(createMoney(t.ctx))).toBe(0);
      expect(await usedCount(coupon.id)).toBe(0);

      const third = await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, c!, { couponCode: coupon.code });
      expect(third.status).toBe(201);
      expect((await payWithSandbox(t, c!, third.body.redirectUrl)).status).toBe(200);
      expect(await usedCount(coupon.id)).toBe(1);
      // The expired checkout is paid after all (its page was still open): the buyer paid the quoted price, so the
      // use is honoured and the payment says it went over the limit.
      const late = await postWebhook(t, sandboxEvent(t, 'charge.succeeded', await chargeOf(t.ctx.db, second.body.paymentId)));
      expect(late.body.outcome).toBe('paid');
      expect(await usedCount(coupon.id)).toBe(2);
      const details = await t.ctx.db.selectFrom('payments').select('details').where('id', '=', second.body.paymentId).executeTakeFirstOrThrow();
      expect(JSON.parse(details.details)).toMatchObject({ couponOverLimit: true });
      await expectBalanced();
    });

    it(`${ROUNDS / 5} rounds of five fans racing for the last use: exactly one checkout gets it each time`, async () => {
      for (let round = 0; round < ROUNDS / 5; round++) {
        const coupon = await newCoupon(1);
        const racers = await fans(5);
        const results = await Promise.all(racers.map((f) => post(`/payment/purchase-video/${w.videos.saleVideo.id}`, f, { couponCode: coupon.code })));
        expect(results.filter((r) => r.status === 201)).toHaveLength(1);
        expect(results.filter((r) => r.status === 400).map((r) => r.body.code)).toEqual(Array(4).fill('COUPON_USED_UP'));
        expect(await usedCount(coupon.id)).toBe(1);
        const withCoupon = await t.ctx.db.selectFrom('payments').select('id').where('couponId', '=', coupon.id).execute();
        expect(withCoupon).toHaveLength(1);
      }
    }, 120_000);
  });

  it(`${ROUNDS / 5} rounds of five buyers racing for the last item: one order holds it, the stock never goes below zero`, async () => {
    const db = t.ctx.db;
    for (let round = 0; round < ROUNDS / 5; round++) {
      const product = await makeProduct(t.ctx, w.perf.id, { name: `Last one ${round}`, type: 'physical', price: 700, stock: 1 });
      const buyers = await fans(5);
      const results = await Promise.all(buyers.map((b) => post('/payment/purchase-products', b, { items: [{ _id: product.id, quantity: 1 }], shippingAddress: '5 Race Row, Rush' })));
      const won = results.filter((r) => r.status === 201);
      expect(won).toHaveLength(1);
      expect(results.filter((r) => r.status === 409).map((r) => r.body.code)).toEqual(Array(4).fill('OUT_OF_STOCK'));
      const winner = buyers[results.indexOf(won[0]!)]!;
      // The winner pays while the others try again: still nothing for them.
      const [paid, ...again] = await Promise.all([
        payWithSandbox(t, winner, won[0]!.body.redirectUrl),
        ...buyers.filter((b) => b !== winner).map((b) => post('/payment/purchase-products', b, { items: [{ _id: product.id, quantity: 1 }], shippingAddress: '5 Race Row, Rush' })),
      ]);
      expect(paid!.status).toBe(200);
      expect(again.map((r) => r.status)).toEqual(Array(4).fill(409));
      expect((await db.selectFrom('products').select('stock').where('id', '=', product.id).executeTakeFirstOrThrow()).stock).toBe(0);
      const orders = await db.selectFrom('orders').innerJoin('orderItems', 'orderItems.orderId', 'orders.id').select('orders.status').where('orderItems.productId', '=', product.id).execute();
      expect(orders.map((o) => o.status)).toEqual(['paid']);
    }
    await expectBalanced();
  }, 120_000);

  it(`paying for a subscription and cancelling it at the same instant, ${ROUNDS} fans: the answer each fan got is the state kept`, async () => {
    const db = t.ctx.db;
    const subscribers = await fans(ROUNDS);
    const checkouts = await Promise.all(subscribers.map((f) => post('/payment/subscribe', f, { performerId: w.perf.id, type: 'monthly' })));
    expect(checkouts.map((c) => c.status)).toEqual(Array(ROUNDS).fill(201));
    const charges = await Promise.all(checkouts.map((c) => chargeOf(db, c.body.paymentId)));
    const raced = await Promise.all(
      subscribers.map(async (f, i) => {
        // Staggered by a few milliseconds either way, so some cancels land before the payment and some after.
        const later = (ms: number) => new Promise((r) => setTimeout(r, ms));
        const [paid, cancel] = await Promise.all([
          later(i % 2 ? (i % 7) * 2 : 0).then(() => postWebhook(t, sandboxEvent(t, 'charge.succeeded', charges[i]!))),
          later(i % 2 ? 0 : (i % 7) * 2).then(() => post('/subscriptions/cancel', f, { performerId: w.perf.id })),
        ]);
        return { fan: f, paid, cancel };
      }),
    );
    const now = new Date().toISOString();
    let cancelled = 0;
    for (const { fan, paid, cancel } of raced) {
      expect(paid.status).toBe(200);
      expect(paid.body.outcome).toBe('paid');
      const sub = await db.selectFrom('subscriptions').selectAll().where('userId', '=', fan.id).where('performerId', '=', w.perf.id).executeTakeFirstOrThrow();
      // Paid once: one period of 30 days from about now, live either way (a cancellation keeps access to the end).
      expect(sub.status).toBe('active');
      expect(Date.parse(sub.expiresAt!) - Date.now()).toBeGreaterThan(29 * 86_400_000);
      expect(Date.parse(sub.expiresAt!) - Date.now()).toBeLessThanOrEqual(30 * 86_400_000);
      if (cancel.status === 200) {
        cancelled++;
        expect(cancel.body.cancelAtPeriodEnd).toBe(true);
        expect(sub.cancelAtPeriodEnd).toBe(1);
      } else {
        // Cancelled before the payment landed: nothing to cancel yet, and nothing was.
        expect(cancel.status).toBe(400);
        expect(sub.cancelAtPeriodEnd).toBe(0);
      }
      // Either way the fan can cancel now, once.
      const after = await post('/subscriptions/cancel', fan, { performerId: w.perf.id });
      expect(after.status).toBe(200);
      expect(after.body.cancelAtPeriodEnd).toBe(true);
    }
    console.info(`[${engine}] subscribe+cancel: ${cancelled} of ${ROUNDS} cancels landed after the payment`);
    const live = await db.selectFrom('subscriptions').select('id').where('performerId', '=', w.perf.id).where('status', '=', 'active').where('expiresAt', '>', now).execute();
    expect((await db.selectFrom('performers').select('subscriberCount').where('id', '=', w.perf.id).executeTakeFirstOrThrow()).subscriberCount).toBe(live.length);
    await expectBalanced();
  }, 120_000);

  it('answered no 5xx', () => {
    expect(serverErrors).toEqual([]);
  });
});
