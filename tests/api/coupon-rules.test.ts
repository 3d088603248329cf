import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { buildMoneyWorld, payWithSandbox, type MoneyWorld } from '../helpers/money-fixture.js';
import { makeCoupon } from '../../server/seed/factories.js';

/**
 * Coupon rules at their edges, over real HTTP on both engines: a stored rate outside 0–100 % is refused whatever put
 * it there, 100 % off is a valid rate, the uses left count down from real redemptions, and a coupon a payment used
 * is deactivated rather than deleted. Found by mutation testing of server/coupons (docs/testing.md).
 */
describe.each(engines)('coupon rules at their edges on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;
  beforeAll(async () => {
    t = await startTestApp(engine);
    w = await buildMoneyWorld(t.ctx);
  });
  afterAll(async () => {
    await t?.close();
  });

  const apply = (code: string, amount = 1000) => t.api(`/coupons/${code}/apply-coupon`, { method: 'POST', headers: w.fan.headers, json: { amount } });

  it('refuses a stored rate of 0 % or above 100 % as inactive, and takes 100 % off as a valid rate', async () => {
    await makeCoupon(t.ctx.db, { code: 'ZERO', valueBps: 0 });
    await makeCoupon(t.ctx.db, { code: 'TOOMUCH', valueBps: 10_001 });
    await makeCoupon(t.ctx.db, { code: 'ALLFREE', valueBps: 10_000 });
    await makeCoupon(t.ctx.db, { code: 'ONEBP', valueBps: 1 });
    for (const code of ['ZERO', 'TOOMUCH']) {
      const res = await apply(code);
      expect([res.status, res.body.code, res.body.message], code).toEqual([400, 'COUPON_INACTIVE', 'This coupon is not active']);
    }
    expect((await apply('ALLFREE')).body).toMatchObject({ coupon: { valueBps: 10_000, value: 1 }, originalPrice: 1000, discount: 1000, price: 0 });
    expect((await apply('ONEBP', 10_000)).body).toMatchObject({ originalPrice: 10_000, discount: 1, price: 9999 });
  });

  it('counts the uses left down from real redemptions', async () => {
    await makeCoupon(t.ctx.db, { code: 'FIVEUSES', maxUses: 5, usedCount: 3 });
    expect((await apply('FIVEUSES')).body.coupon.usesLeft).toBe(2);
    const checkout = await t.api(`/payment/purchase-video/${w.videos.saleVideo.id}`, { method: 'POST', headers: w.fan.headers, json: { couponCode: 'FIVEUSES' } });
    expect(checkout.status).toBe(201);
    // Reserved at checkout: the last but one use is taken before the payment settles.
    expect((await apply('FIVEUSES')).body.coupon.usesLeft).toBe(1);
    expect((await payWithSandbox(t, w.fan, checkout.body.redirectUrl)).body.status).toBe('paid');
    expect((await apply('FIVEUSES')).body.coupon.usesLeft).toBe(1);
  });

  it('deactivates a coupon a payment used instead of deleting it, and deletes an unused one', async () => {
    const used = await makeCoupon(t.ctx.db, { code: 'USEDONCE' });
    const checkout = await t.api(`/payment/purchase-video/${w.videos.saleVideo.id}`, { method: 'POST', headers: w.fan2.headers, json: { couponCode: 'USEDONCE' } });
    expect(checkout.status).toBe(201);
    const unused = await makeCoupon(t.ctx.db, { code: 'NEVERUSED' });
    const del = (id: string) => t.api(`/admin/coupons/${id}`, { method: 'DELETE', headers: w.admin.headers });
    expect((await del(used.id)).status).toBe(200);
    expect((await del(unused.id)).status).toBe(200);
    const rows = await t.ctx.db.selectFrom('coupons').select(['code', 'status']).where('id', 'in', [used.id, unused.id]).execute();
    expect(rows).toEqual([{ code: 'USEDONCE', status: 'inactive' }]);
    expect((await t.ctx.db.selectFrom('payments').select('couponId').where('id', '=', checkout.body.paymentId).executeTakeFirstOrThrow()).couponId).toBe(used.id);
    const audit = await t.ctx.db.selectFrom('auditLog').select('action').where('targetId', 'in', [used.id, unused.id]).orderBy('action').execute();
    expect(audit.map((a) => a.action)).toEqual(['coupon.deactivate', 'coupon.delete']);
  });
});
