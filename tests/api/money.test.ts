import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { daysFromNow } from '../../server/seed/factories.js';
import { buildMoneyWorld, chargeOf, ledger, payWithSandbox, type MoneyWorld } from '../helpers/money-fixture.js';

/** Every money endpoint, its happy path and its bad inputs, on every engine. A 5xx anywhere fails the suite. */
describe.each(engines)('money API on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;
  const serverErrors: string[] = [];

  async function call(method: string, path: string, who?: TestUser, json?: unknown) {
    const res = await t.api(path, { method, headers: who?.headers, ...(json !== undefined ? { json } : {}) });
    if (res.status >= 500) serverErrors.push(`${res.status} ${method} ${path}: ${JSON.stringify(res.body)}`);
    return res;
  }
  const get = (path: string, who?: TestUser) => call('GET', path, who);
  const post = (path: string, who: TestUser | undefined, json: unknown = {}) => call('POST', path, who, json);
  const put = (path: string, who: TestUser | undefined, json: unknown) => call('PUT', path, who, json);
  /** Checkout + approve on the sandbox page; the payment id. */
  async function buy(path: string, who: TestUser, body: unknown, outcome: 'approve' | 'decline' = 'approve') {
    const c = await post(path, who, body);
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    const r = await payWithSandbox(t, who, c.body.redirectUrl, outcome);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return c.body as { paymentId: string; amount: number; orderIds: string[]; redirectUrl: string };
  }

  beforeAll(async () => {
    t = await startTestApp(engine);
    w = await buildMoneyWorld(t.ctx);
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('GET /package/subscription/search', () => {
    it('lists the active packages in order', async () => {
      const res = await get('/package/subscription/search');
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(2);
      expect(res.body.items.map((p: { type: string }) => p.type)).toEqual(['monthly', 'yearly']);
      expect(res.body.items[0]).toMatchObject({ price: 999, durationDays: 30 });
      expect((await get('/package/subscription/search?type=yearly')).body.items).toHaveLength(1);
    });
    it.each(['?limit=0', '?limit=abc', '?type=weekly', '?offset=-1'])('400 for %s', async (q) => {
      expect((await get(`/package/subscription/search${q}`)).status).toBe(400);
    });
  });

  describe('POST /coupons/{id}/apply-coupon', () => {
    it('prices an amount and a cart: price = original × (1 − value), rounded in the buyer’s favour', async () => {
      const a = await post('/coupons/WELCOME10/apply-coupon', w.fan, { amount: 1299 });
      expect(a.status).toBe(200);
      expect(a.body).toMatchObject({ coupon: { code: 'WELCOME10', valueBps: 1000, value: 0.1, usesLeft: 100 }, originalPrice: 1299, discount: 129, price: 1170 });
      const b = await post('/coupons/third/apply-coupon', w.fan, { items: [{ _id: w.products.mug.id, quantity: 2 }, { _id: w.products.ebook.id, quantity: 1 }] });
      // 3000 × 33.33 % = 999.9 → 999 off; 999 × 33.33 % = 332.96 → 332 off.
      expect(b.body).toMatchObject({ originalPrice: 3999, discount: 1331, price: 2668 });
      const bare = await post('/coupons/WELCOME10/apply-coupon', w.fan);
      expect(bare.body.coupon.code).toBe('WELCOME10');
      expect(bare.body.price).toBeUndefined();
    });
    it.each([
      ['NOPE', 404, 'COUPON_NOT_FOUND'],
      ['OLD10', 400, 'COUPON_EXPIRED'],
      ['OFF10', 400, 'COUPON_INACTIVE'],
      ['GONE10', 400, 'COUPON_USED_UP'],
      ['bad%20code', 400, 'VALIDATION_FAILED'],
    ])('%s → %i %s', async (code, status, errorCode) => {
      const res = await post(`/coupons/${code}/apply-coupon`, w.fan, { amount: 100 });
      expect(res.status).toBe(status);
      expect(res.body.code).toBe(errorCode);
    });
    it('needs a session and valid input', async () => {
      expect((await post('/coupons/WELCOME10/apply-coupon', undefined, {})).status).toBe(401);
      expect((await post('/coupons/WELCOME10/apply-coupon', w.fan, { amount: -1 })).status).toBe(400);
      expect((await post('/coupons/WELCOME10/apply-coupon', w.fan, { items: [{ _id: 'missing', quantity: 1 }] })).status).toBe(404);
    });
  });

  describe('POST /payment/subscribe, subscriptions', () => {
    let paymentId: string;
    it('answers 201 with the hosted page; paying makes it live and tells the buyer’s browsers', async () => {
      const emitted: Array<[string, string, Record<string, unknown>]> = [];
      const hub = t.ctx.realtime;
      const original = hub.emitToUser.bind(hub);
      hub.emitToUser = ((userId: string, event: string, payload: Record<string, unknown>) => {
        emitted.push([userId, event, payload]);
        return original(userId as never, event as never, payload as never);
      }) as typeof hub.emitToUser;
      const res = await post('/payment/subscribe', w.fan, { performerId: w.perf.id, type: 'monthly', couponCode: 'WELCOME10' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ status: 'pending', gateway: 'sandbox', originalPrice: 1000, discount: 100, amount: 900, currency: 'USD', orderIds: [] });
      expect(res.body.redirectUrl).toMatch(/\/payments\/sandbox\/sbx_/);
      paymentId = res.body.paymentId;
      expect((await get(`/payment/status/${paymentId}`, w.fan)).body).toMatchObject({ status: 'pending', checkoutUrl: res.body.redirectUrl });
      expect((await payWithSandbox(t, w.fan, res.body.redirectUrl)).body.status).toBe('paid');
      expect((await get(`/payment/status/${paymentId}`, w.fan)).body).toMatchObject({ status: 'success', checkoutUrl: null, couponCode: 'WELCOME10' });
      const current = await get('/subscriptions/current', w.fan);
      expect(current.body.total).toBe(1);
      expect(current.body.items[0]).toMatchObject({ performerId: w.perf.id, status: 'active', isLive: true, type: 'monthly', cancelAtPeriodEnd: false });
      expect(current.body.items[0].performer.name).toBe('Mona Money');
      const coupon = await t.ctx.db.selectFrom('coupons').select('usedCount').where('code', '=', 'WELCOME10').executeTakeFirstOrThrow();
      expect(coupon.usedCount).toBe(1);
      const perf = await t.ctx.db.selectFrom('performers').select('subscriberCount').where('id', '=', w.perf.id).executeTakeFirstOrThrow();
      expect(perf.subscriberCount).toBe(1);
      hub.emitToUser = original;
      // The buyer's browsers hear of the payment; the performer's hear of a new subscriber (a notification).
      const who = (userId: string) => (userId === w.fan.id ? 'fan' : userId === w.perf.id ? 'performer' : userId);
      expect(emitted.map(([userId, event]) => `${who(userId)}:${event}`).sort()).toEqual(['fan:payment/success', 'fan:subscription/success', 'performer:notification/count', 'performer:notification/created']);
      expect(emitted.find(([, e]) => e === 'notification/created')![2]).toMatchObject({ notification: { type: 'subscriber' } });
      expect(emitted.find(([, e]) => e === 'subscription/success')![2]).toMatchObject({ performerId: w.perf.id, subscriptionId: current.body.items[0]._id });
    });
    it('refuses what makes no sense', async () => {
      expect((await post('/payment/subscribe', undefined, { performerId: w.perf.id, type: 'monthly' })).status).toBe(401);
      expect((await post('/payment/subscribe', w.fan2, { performerId: w.perf.id, type: 'weekly' })).status).toBe(400);
      expect((await post('/payment/subscribe', w.fan2, { type: 'monthly' })).status).toBe(400);
      expect((await post('/payment/subscribe', w.fan2, { performerId: 'nobody', type: 'monthly' })).status).toBe(404);
      expect((await post('/payment/subscribe', w.perf, { performerId: w.perf.id, type: 'monthly' })).status).toBe(400);
      const again = await post('/payment/subscribe', w.fan, { performerId: w.perf.id, type: 'yearly' });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('ALREADY_SUBSCRIBED');
      for (const [code, status] of [['OLD10', 400], ['GONE10', 400], ['OFF10', 400], ['NOPE', 404]] as const) {
        expect((await post('/payment/subscribe', w.fan2, { performerId: w.perf.id, type: 'monthly', couponCode: code })).status).toBe(status);
      }
    });
    it('takes the package price when the performer has none, and accepts a username', async () => {
      const res = await post('/payment/subscribe', w.fan2, { performerId: w.perf2.username, type: 'yearly' });
      expect(res.status).toBe(201);
      expect(res.body.amount).toBe(9999);
    });
    it('lists subscriptions for the user and the performer', async () => {
      const mine = await get('/subscriptions/user/search', w.fan);
      expect(mine.body.total).toBe(1);
      expect((await get('/subscriptions/user/search?status=expired', w.fan)).body.total).toBe(0);
      const subscribers = await get('/subscriptions/performer/search', w.perf);
      expect(subscribers.body.total).toBe(1);
      expect(subscribers.body.items[0].user.username).toBe(w.fan.username);
      expect((await get('/subscriptions/performer/search', w.fan)).status).toBe(403);
      expect((await get('/subscriptions/performer/search', undefined)).status).toBe(401);
      expect((await get(`/subscriptions/performer/search?performerId=${w.perf.id}`, w.admin)).body.total).toBe(1);
      expect((await get('/subscriptions/user/search?status=whatever', w.fan)).status).toBe(400);
      expect((await get('/subscriptions/current', undefined)).status).toBe(401);
    });
    it('cancels at period end, by id or by performer; others cannot', async () => {
      const sub = (await get('/subscriptions/current', w.fan)).body.items[0];
      expect((await post(`/subscriptions/cancel/${sub._id}`, w.fan2)).status).toBe(404);
      expect((await post('/subscriptions/cancel/missing', w.fan)).status).toBe(404);
      const res = await post(`/subscriptions/cancel/${sub._id}`, w.fan);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'active', isLive: true, cancelAtPeriodEnd: true });
      expect(res.body.cancelledAt).toBeTruthy();
      // Again: nothing changes.
      const again = await post('/subscriptions/cancel', w.fan, { performerId: w.perf.id });
      expect(again.status).toBe(200);
      expect(again.body.cancelledAt).toBe(res.body.cancelledAt);
      expect((await post('/subscriptions/cancel', w.fan, {})).status).toBe(400);
      expect((await post('/subscriptions/cancel', w.fan, { performerId: w.perf2.id })).status).toBe(404);
      expect((await get('/subscriptions/user/search?status=cancelled', w.fan)).body.total).toBe(1);
      // Still open for subscribers until the end.
      expect((await get(`/user/assets/videos/${w.videos.subsVideo.id}`, w.fan)).body.locked).toBe(false);
      expect((await get(`/user/assets/videos/${w.videos.subsVideo.id}`, w.fan2)).body.locked).toBe(true);
    });
  });

  describe('POST /payment/purchase-video/{id}', () => {
    it('buys a sale video with a coupon; it opens and stays open', async () => {
      expect((await get(`/user/assets/videos/${w.videos.saleVideo.id}`, w.fan2)).body.locked).toBe(true);
      const paid = await buy(`/payment/purchase-video/${w.videos.saleVideo.id}`, w.fan2, { couponCode: 'WELCOME10' });
      expect(paid.amount).toBe(1170);
      const after = await get(`/user/assets/videos/${w.videos.saleVideo.id}`, w.fan2);
      expect(after.body.locked).toBe(false);
      expect(after.body.video.url).toBeTruthy();
      const again = await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, w.fan2, {});
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('ALREADY_PURCHASED');
    });
    it('refuses what is not for sale', async () => {
      expect((await post(`/payment/purchase-video/${w.videos.freeVideo.id}`, w.fan, {})).body.code).toBe('NOT_FOR_SALE');
      expect((await post(`/payment/purchase-video/${w.videos.subsVideo.id}`, w.fan, {})).status).toBe(400);
      expect((await post('/payment/purchase-video/nope', w.fan, {})).status).toBe(404);
      expect((await post('/payment/purchase-video/bad%20id', w.fan, {})).status).toBe(400);
      expect((await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, w.perf, {})).status).toBe(400);
      expect((await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, undefined, {})).status).toBe(401);
      expect((await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, w.fan, { couponCode: 'OLD10' })).status).toBe(400);
    });
    it('a declined payment opens nothing', async () => {
      const buyer = await createUser(t.ctx.db, 'user');
      const c = await buy(`/payment/purchase-video/${w.videos.saleVideo.id}`, buyer, {}, 'decline');
      expect((await get(`/payment/status/${c.paymentId}`, buyer)).body.status).toBe('failed');
      expect((await get(`/user/assets/videos/${w.videos.saleVideo.id}`, buyer)).body.locked).toBe(true);
    });
  });

  describe('POST /payment/purchase-products and orders', () => {
    let order: { paymentId: string; orderIds: string[] };
    it('buys a cart from two performers with a coupon: one order per performer, stock taken, download for the buyer only', async () => {
      const before = await t.ctx.db.selectFrom('products').select(['id', 'stock']).where('id', 'in', [w.products.mug.id, w.products.tee.id]).execute();
      const stock = Object.fromEntries(before.map((r) => [r.id, r.stock]));
      const res = await post('/payment/purchase-products', w.fan, {
        items: [{ _id: w.products.mug.id, quantity: 2 }, { productId: w.products.tee.id, quantity: 1 }, { _id: w.products.ebook.id }],
        shippingAddress: '  10 Downing Street, London  ',
        couponCode: 'THIRD',
      });
      expect(res.status).toBe(201);
      // 3000 − 999, 2500 − 833, 999 − 332.
      expect(res.body).toMatchObject({ originalPrice: 6499, discount: 2164, amount: 4335 });
      expect(res.body.orderIds).toHaveLength(2);
      order = res.body;
      // Stock is held from checkout.
      const held = await t.ctx.db.selectFrom('products').select(['id', 'stock']).where('id', 'in', [w.products.mug.id, w.products.tee.id]).execute();
      expect(Object.fromEntries(held.map((r) => [r.id, r.stock]))).toEqual({ [w.products.mug.id]: stock[w.products.mug.id]! - 2, [w.products.tee.id]: stock[w.products.tee.id]! - 1 });
      expect((await get(`/user/assets/products/${w.products.ebook.id}/download-link`, w.fan)).status).toBe(403);
      expect((await payWithSandbox(t, w.fan, res.body.redirectUrl)).status).toBe(200);
      expect((await get(`/user/assets/products/${w.products.ebook.id}/download-link`, w.fan)).status).toBe(200);
      expect((await get(`/user/assets/products/${w.products.ebook.id}/download-link`, w.fan2)).status).toBe(403);
      const mine = await get('/orders/users/search', w.fan);
      expect(mine.body.total).toBe(2);
      const monaOrder = mine.body.items.find((o: { performer: { _id: string } }) => o.performer._id === w.perf.id);
      expect(monaOrder).toMatchObject({ status: 'paid', deliveryStatus: 'created', shippingAddress: '10 Downing Street, London', totalPrice: 2001 + 667, currency: 'USD' });
      expect(monaOrder.items.map((i: { name: string }) => i.name).sort()).toEqual(['Ebook', 'Mug']);
      const lines = await get('/orders/users/details/search?productType=digital', w.fan);
      expect(lines.body.total).toBe(1);
      expect(lines.body.items[0]).toMatchObject({ name: 'Ebook', status: 'paid', orderNumber: monaOrder.orderNumber });
      expect((await get('/orders/users/details/search', w.fan)).body.total).toBe(3);
    });
    it('performers see and update their orders', async () => {
      const list = await get('/orders/details/search', w.perf);
      expect(list.body.total).toBe(1);
      const o = list.body.items[0];
      expect(o.buyer.username).toBe(w.fan.username);
      expect((await get(`/orders/details/search?q=${o.orderNumber}`, w.perf)).body.total).toBe(1);
      expect((await get('/orders/details/search?deliveryStatus=shipping', w.perf)).body.total).toBe(0);
      expect((await get('/orders/details/search', w.fan)).status).toBe(403);
      expect((await get(`/orders/details/${o._id}`, w.fan)).status).toBe(200);
      expect((await get(`/orders/details/${o._id}`, w.perf)).status).toBe(200);
      expect((await get(`/orders/details/${o._id}`, w.perf2)).status).toBe(404);
      expect((await get(`/orders/details/${o._id}`, w.fan2)).status).toBe(404);
      const upd = await put(`/orders/${o._id}/update`, w.perf, { deliveryStatus: 'shipping', trackingCode: 'TRACK-123' });
      expect(upd.status).toBe(200);
      expect(upd.body).toMatchObject({ deliveryStatus: 'shipping', trackingCode: 'TRACK-123' });
      expect((await get(`/orders/details/${o._id}`, w.fan)).body.trackingCode).toBe('TRACK-123');
      expect((await put(`/orders/${o._id}/update`, w.fan, { deliveryStatus: 'delivered' })).status).toBe(403);
      expect((await put(`/orders/${o._id}/update`, w.perf2, { deliveryStatus: 'delivered' })).status).toBe(404);
      expect((await put(`/orders/${o._id}/update`, w.perf, {})).status).toBe(400);
      expect((await put(`/orders/${o._id}/update`, w.perf, { deliveryStatus: 'lost' })).status).toBe(400);
      expect((await put('/orders/missing/update', w.perf, { deliveryStatus: 'delivered' })).status).toBe(404);
    });
    it('an unpaid order cannot be updated; an expired checkout gives the stock back', async () => {
      const res = await post('/payment/purchase-products', w.fan2, { items: [{ _id: w.products.tee.id, quantity: 2 }], shippingAddress: '5 Pending Place, Waiting' });
      expect(res.status).toBe(201);
      const stock = async () => (await t.ctx.db.selectFrom('products').select('stock').where('id', '=', w.products.tee.id).executeTakeFirstOrThrow()).stock;
      const held = await stock();
      expect((await put(`/orders/${res.body.orderIds[0]}/update`, w.perf2, { deliveryStatus: 'shipping' })).status).toBe(409);
      await t.ctx.db.updateTable('payments').set({ expiresAt: daysFromNow(-1) }).where('id', '=', res.body.paymentId).execute();
      // The next checkout sweeps it.
      await post('/payment/purchase-products', w.fan2, { items: [{ _id: w.products.ebook.id }] });
      expect(await stock()).toBe(held! + 2);
      expect((await get(`/payment/status/${res.body.paymentId}`, w.fan2)).body.status).toBe('cancelled');
      expect((await get(`/orders/details/${res.body.orderIds[0]}`, w.fan2)).body).toMatchObject({ status: 'cancelled', deliveryStatus: 'cancelled' });
      // The expired hosted page refuses to take the money.
      const late = await payWithSandbox(t, w.fan2, res.body.redirectUrl);
      expect(late.status).toBe(409);
    });
    it.each([
      ['an empty cart', { items: [] }, 400],
      ['quantity 0', { items: [{ _id: 'x', quantity: 0 }], shippingAddress: 'somewhere 1' }, 400],
      ['no product id', { items: [{ quantity: 1 }] }, 400],
      ['a physical product without address', { items: [{ _id: 'MUG' }] }, 400],
      ['two copies of a download', { items: [{ _id: 'EBOOK', quantity: 2 }] }, 400],
      ['an unknown product', { items: [{ _id: 'nope' }], shippingAddress: 'somewhere 1' }, 404],
      ['more than in stock', { items: [{ _id: 'MUG', quantity: 99 }], shippingAddress: 'somewhere 1' }, 409],
      ['a download already owned', { items: [{ _id: 'EBOOK' }] }, 409],
      ['a bad coupon', { items: [{ _id: 'EBOOK2' }], couponCode: 'GONE10' }, 400],
    ])('refuses %s', async (_name, body, status) => {
      const ids: Record<string, string> = { MUG: w.products.mug.id, EBOOK: w.products.ebook.id, EBOOK2: w.products.ebook.id };
      const items = (body as { items: Array<{ _id?: string }> }).items.map((i) => ({ ...i, ...(i._id ? { _id: ids[i._id] ?? i._id } : {}) }));
      const who = _name === 'a bad coupon' ? w.fan2 : w.fan;
      const res = await post('/payment/purchase-products', who, { ...body, items });
      expect(res.status, JSON.stringify(res.body)).toBe(status);
    });
    it('refuses guests and one’s own products', async () => {
      expect((await post('/payment/purchase-products', undefined, { items: [{ _id: w.products.ebook.id }] })).status).toBe(401);
      expect((await post('/payment/purchase-products', w.perf, { items: [{ _id: w.products.ebook.id }] })).status).toBe(400);
    });
  });

  describe('transactions, payment status and the sandbox page', () => {
    it('lists the user’s payments with filters', async () => {
      // A buyer and a seller of its own, so that this test also passes alone (mutation testing runs only the tests
      // that cover a mutant) and leaves the earnings counted below alone: a subscription paid with a coupon, and a
      // video checkout left open.
      const buyer = await createUser(t.ctx.db, 'user');
      const seller = await createUser(t.ctx.db, 'performer', { performer: { monthlyPrice: 1000, yearlyPrice: 9000 } });
      await buy('/payment/subscribe', buyer, { performerId: seller.id, type: 'monthly', couponCode: 'WELCOME10' });
      expect((await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, buyer, {})).status).toBe(201);
      const all = await get('/payment/transactions', buyer);
      expect(all.status).toBe(200);
      expect(all.body.total).toBe(2);
      expect(all.body.items[0].createdAt >= all.body.items.at(-1).createdAt).toBe(true);
      const subs = await get('/transactions/user/search?type=subscription&status=success', buyer);
      expect(subs.body.total).toBe(1);
      expect(subs.body.items[0]).toMatchObject({ type: 'subscription_monthly', amount: 900, performer: { _id: seller.id } });
      expect((await get(`/transactions/user/search?from=${encodeURIComponent(daysFromNow(1))}`, buyer)).body.total).toBe(0);
      expect((await get('/transactions/user/search?status=lost', buyer)).status).toBe(400);
      expect((await get('/transactions/user/search?from=yesterday', buyer)).status).toBe(400);
      expect((await get('/payment/transactions', undefined)).status).toBe(401);
      // Nobody else's payments.
      const other = await get('/payment/transactions', w.perf2);
      expect(other.body.total).toBe(0);
      expect((await get(`/payment/status/${all.body.items[0]._id}`, w.fan2)).status).toBe(404);
      expect((await get(`/payment/status/${all.body.items[0]._id}`, w.admin)).status).toBe(200);
    });
    it('the sandbox page acts only for the buyer, once', async () => {
      const buyer = await createUser(t.ctx.db, 'user');
      const c = await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, buyer, {});
      expect((await payWithSandbox(t, w.fan2, c.body.redirectUrl)).status).toBe(404);
      expect((await post(`/payment/sandbox/${c.body.redirectUrl.split('/').pop()}/complete`, buyer, { outcome: 'maybe' })).status).toBe(400);
      const cancel = await payWithSandbox(t, buyer, c.body.redirectUrl, 'cancel');
      expect(cancel.body.redirectUrl).toMatch(/\?cancelled=1$/);
      expect((await get(`/payment/status/${c.body.paymentId}`, buyer)).body.status).toBe('cancelled');
      const twice = await payWithSandbox(t, buyer, c.body.redirectUrl);
      expect(twice.status).toBe(409);
      expect(twice.body.code).toBe('CHECKOUT_COMPLETED');
      expect((await call('POST', '/payment/sandbox/sbx_missing/complete', buyer, { outcome: 'approve' })).status).toBe(404);
      // The back office is for admins.
      const charge = await chargeOf(t.ctx.db, c.body.paymentId);
      expect((await post(`/payment/sandbox/${charge.id}/reverse`, buyer, { kind: 'refunded' })).status).toBe(403);
      expect((await post(`/payment/sandbox/${charge.id}/reverse`, w.admin, { kind: 'refunded' })).status).toBe(409);
    });
  });

  describe('earnings', () => {
    it('credits each performer net of commission (own rate, else the site’s) and balances the ledger', async () => {
      const stats = await get('/earning/performer/stats', w.perf);
      expect(stats.status).toBe(200);
      // Mona (20 %): subscription 900, video 1170, mug 2001 + ebook 667.
      expect(stats.body.totals).toMatchObject({ gross: 900 + 1170 + 2001 + 667, commission: 180 + 234 + 400 + 133, net: 720 + 936 + 1601 + 534, paid: 0 });
      // Everything here went through the sandbox: test money, listed but never owed.
      expect(stats.body.totals.test).toBe(stats.body.totals.net);
      expect(stats.body.totals.unpaid).toBe(0);
      expect(stats.body.bySource.map((s: { sourceType: string }) => s.sourceType)).toEqual(['product', 'subscription', 'video']);
      expect(stats.body.series).toHaveLength(1);
      expect(stats.body.series[0].date).toBe(new Date().toISOString().slice(0, 10));
      // Otto has his own 10 %: tee 1667 → 167 commission.
      const otto = await get('/earning/performer/stats', w.perf2);
      expect(otto.body.totals).toMatchObject({ gross: 1667, commission: 167, net: 1500 });
      const list = await get('/earning/performer/search?sourceType=video', w.perf);
      expect(list.body.total).toBe(1);
      expect(list.body.items[0]).toMatchObject({ gross: 1170, net: 936, commissionBps: 2000, entry: 'credit', test: true, user: { _id: w.fan2.id } });
      expect((await get('/earning/performer/search', w.fan)).status).toBe(403);
      expect((await get('/earning/performer/stats', undefined)).status).toBe(401);
      expect((await get(`/earning/performer/stats?from=${encodeURIComponent(daysFromNow(1))}&to=${encodeURIComponent(daysFromNow(-1))}`, w.perf)).status).toBe(400);
      expect((await get('/earning/performer/search?entry=maybe', w.perf)).status).toBe(400);
      expect((await get(`/earning/performer/stats?performerId=${w.perf2.id}`, w.admin)).body.totals.net).toBe(1500);
      const l = await ledger(t.ctx.db);
      expect(l.paid).toBe(l.net + l.commission);
    });
    it('a refund adds negative rows and closes what it opened', async () => {
      const buyer = await createUser(t.ctx.db, 'user');
      const paid = await buy(`/payment/purchase-video/${w.videos.saleVideo.id}`, buyer, {});
      const charge = await chargeOf(t.ctx.db, paid.paymentId);
      expect((await post(`/payment/sandbox/${charge.id}/reverse`, w.admin, { kind: 'refunded' })).status).toBe(200);
      expect((await get(`/payment/status/${paid.paymentId}`, buyer)).body.status).toBe('refunded');
      expect((await get(`/user/assets/videos/${w.videos.saleVideo.id}`, buyer)).body.locked).toBe(true);
      const rows = await get('/earning/performer/search?entry=reversal', w.perf);
      expect(rows.body.items[0]).toMatchObject({ entry: 'reversal', gross: -1299, commission: -260, net: -1039 });
    });
  });

  it('answered no 5xx', () => {
    expect(serverErrors).toEqual([]);
  });
});
