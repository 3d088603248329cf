import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { makeProduct } from '../../server/seed/factories.js';
import { payWithSandbox } from '../helpers/money-fixture.js';

/**
 * Stock cannot be hoarded: an unpaid checkout holds its items for the hold time (setting checkoutExpiryMinutes),
 * then gives them back; a buyer holds at most `stockHoldMaxPerBuyer` units of one product in unpaid checkouts;
 * stock held by others answers 409 OUT_OF_STOCK. Race-safe on both engines.
 */
describe.each(engines)('stock holds on %s', (engine) => {
  let t: TestApp;
  let admin: TestUser;
  let performer: TestUser;
  const checkout = (who: TestUser, productId: string, quantity = 1) =>
    t.api('/payment/purchase-products', { method: 'POST', headers: who.headers, json: { items: [{ _id: productId, quantity }], shippingAddress: '9 Shelf Street' } });
  const stockOf = async (id: string) => (await t.ctx.db.selectFrom('products').select('stock').where('id', '=', id).executeTakeFirstOrThrow()).stock;
  const pendingHolds = async (productId: string) =>
    Number(
      (
        await t.ctx.db
          .selectFrom('paymentItems')
          .innerJoin('payments', 'payments.id', 'paymentItems.paymentId')
          .select(sql<number>`coalesce(sum(payment_items.quantity), 0)`.as('n'))
          .where('paymentItems.objectId', '=', productId)
          .where('payments.status', '=', 'pending')
          .where('payments.stockHeld', '=', 1)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const setPayment = async (json: Record<string, unknown>) => {
    const res = await t.api('/admin/settings/payment', { method: 'PUT', headers: admin.headers, json });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const fans = (n: number) => Promise.all(Array.from({ length: n }, () => createUser(t.ctx.db, 'user')));

  beforeAll(async () => {
    t = await startTestApp(engine);
    admin = await createUser(t.ctx.db, 'admin');
    performer = await createUser(t.ctx.db, 'performer');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('N parallel checkouts of the last item: exactly one holds it, the others are 409 OUT_OF_STOCK', async () => {
    const product = await makeProduct(t.ctx, performer.id, { name: 'Last print', stock: 1 });
    const buyers = await fans(8);
    const answers = await Promise.all(buyers.map((b) => checkout(b, product.id)));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of answers.filter((x) => x.status === 409)) expect(r.body.code).toBe('OUT_OF_STOCK');
    expect(await stockOf(product.id)).toBe(0);
    expect(await pendingHolds(product.id)).toBe(1);
  });

  it('a buyer holds at most the cap of one product in unpaid checkouts (also when racing); others are not affected', async () => {
    const view = await setPayment({ stockHoldMaxPerBuyer: 3 });
    expect(view.stockHoldMaxPerBuyer).toBe(3);
    try {
      const product = await makeProduct(t.ctx, performer.id, { name: 'Tour shirt', stock: 20 });
      const [hoarder, racer, other] = await fans(3);
      expect((await checkout(hoarder!, product.id, 2)).status).toBe(201);
      const over = await checkout(hoarder!, product.id, 2);
      expect(over.status).toBe(409);
      expect(over.body).toMatchObject({ code: 'HOLD_LIMIT', details: { held: 2, max: 3 } });
      const last = await checkout(hoarder!, product.id, 1);
      expect(last.status).toBe(201);
      expect((await checkout(hoarder!, product.id, 1)).status).toBe(409);
      // One checkout above the cap on its own is refused too.
      expect((await checkout(other!, product.id, 4)).body.code).toBe('HOLD_LIMIT');
      // Another buyer has their own cap.
      expect((await checkout(other!, product.id, 3)).status).toBe(201);
      expect(await stockOf(product.id)).toBe(20 - 3 - 3);

      // Six checkouts of one unit at once by one buyer: exactly three hold.
      const burst = await Promise.all(Array.from({ length: 6 }, () => checkout(racer!, product.id, 1)));
      expect(burst.map((r) => r.status).sort()).toEqual([201, 201, 201, 409, 409, 409]);
      for (const r of burst.filter((x) => x.status === 409)) expect(r.body.code).toBe('HOLD_LIMIT');
      expect(await stockOf(product.id)).toBe(20 - 3 - 3 - 3);
      expect(await pendingHolds(product.id)).toBe(9);

      // A paid checkout no longer counts as a hold: the buyer may start another.
      expect((await payWithSandbox(t, hoarder!, last.body.redirectUrl)).status).toBe(200);
      expect((await checkout(hoarder!, product.id, 1)).status).toBe(201);
    } finally {
      await setPayment({ stockHoldMaxPerBuyer: 10 });
    }
  });

  it('a hold ends after the hold time: the item goes back on the shelf for the next buyer', async () => {
    await setPayment({ checkoutExpiryMinutes: 5 });
    try {
      const product = await makeProduct(t.ctx, performer.id, { name: 'Only vinyl', stock: 1 });
      const [first, second] = await fans(2);
      const held = await checkout(first!, product.id);
      expect(held.status).toBe(201);
      const payment = await t.ctx.db.selectFrom('payments').select(['createdAt', 'expiresAt']).where('id', '=', held.body.paymentId).executeTakeFirstOrThrow();
      // The hold lasts exactly the hold time.
      expect(Date.parse(payment.expiresAt!) - Date.parse(payment.createdAt)).toBe(5 * 60_000);
      expect(held.body.expiresAt).toBe(payment.expiresAt);

      const start = Date.now();
      // The server's clock (same process) moves; timers stay real.
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(start + 4 * 60_000);
      const early = await checkout(second!, product.id);
      expect(early.status).toBe(409);
      expect(early.body.code).toBe('OUT_OF_STOCK');

      vi.setSystemTime(Date.parse(payment.expiresAt!) + 1000);
      const after = await checkout(second!, product.id);
      expect(after.status, JSON.stringify(after.body)).toBe(201);
      expect(await stockOf(product.id)).toBe(0);
      const firstNow = await t.ctx.db.selectFrom('payments').select(['status', 'stockHeld']).where('id', '=', held.body.paymentId).executeTakeFirstOrThrow();
      expect(firstNow).toEqual({ status: 'cancelled', stockHeld: 0 });
      // The first buyer's hosted page no longer takes the money.
      const late = await payWithSandbox(t, first!, held.body.redirectUrl);
      expect(late.status).toBe(409);
      expect(await pendingHolds(product.id)).toBe(1);
    } finally {
      vi.useRealTimers();
      await setPayment({ checkoutExpiryMinutes: 30 });
    }
  });
});
