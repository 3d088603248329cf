import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { buildMoneyWorld, payWithSandbox, type MoneyWorld } from '../helpers/money-fixture.js';
import { daysFromNow, entitle, makeCoupon, makeGallery, makePost, makeProduct, makeVideo } from '../../server/seed/factories.js';
import { SandboxGateway } from '../../server/payments/sandbox.gateway.js';
import { StripeGateway } from '../../server/payments/stripe.gateway.js';

/**
 * The rules of every checkout (subscription, video, gallery, post, cart), each from both sides: what is refused is
 * answered with its exact status, code and message and writes nothing (no payment, item, order, subscription, provider
 * charge; stock and coupon uses unchanged); what is accepted writes exactly the rows and amounts (cents) it says.
 */

type Res = { status: number; body: any };

describe.each(engines)('checkout rules on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;
  const post = (path: string, who: TestUser, json: unknown = {}, headers: Record<string, string> = {}): Promise<Res> =>
    t.api(path, { method: 'POST', headers: { ...who.headers, ...headers }, json });
  const fan = () => createUser(t.ctx.db, 'user');
  const db = () => t.ctx.db;

  const count = async (table: 'payments' | 'paymentItems' | 'orders' | 'orderItems' | 'subscriptions' | 'sandboxCharges' | 'entitlements') =>
    Number((await db().selectFrom(table).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);
  /** Everything a checkout may write. */
  const state = async () => ({
    payments: await count('payments'),
    paymentItems: await count('paymentItems'),
    orders: await count('orders'),
    orderItems: await count('orderItems'),
    subscriptions: await count('subscriptions'),
    sandboxCharges: await count('sandboxCharges'),
    stock: Object.fromEntries((await db().selectFrom('products').select(['id', 'stock']).orderBy('id').execute()).map((p) => [p.id, p.stock])),
    couponUses: Object.fromEntries((await db().selectFrom('coupons').select(['code', 'usedCount']).orderBy('code').execute()).map((c) => [c.code, c.usedCount])),
  });
  /** The request is refused with exactly this answer, and nothing was written. */
  async function refused(request: () => Promise<Res>, status: number, code: string, message: string, details?: unknown) {
    const before = await state();
    const res = await request();
    expect({ status: res.status, code: res.body?.code, message: res.body?.message }, JSON.stringify(res.body)).toEqual({ status, code, message });
    if (details !== undefined) expect(res.body.details).toEqual(details);
    expect(await state()).toEqual(before);
    return res;
  }
  async function accepted(res: Res) {
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { paymentId: string; amount: number; originalPrice: number; discount: number; orderIds: string[]; redirectUrl: string; gateway: string; currency: string; expiresAt: string; status: string };
  }
  const paymentRow = (id: string) => db().selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const itemRows = (paymentId: string) =>
    db().selectFrom('paymentItems').select(['objectType', 'objectId', 'performerId', 'quantity', 'unitPrice', 'discount']).where('paymentId', '=', paymentId).orderBy('unitPrice').execute();
  const chargeRow = (paymentId: string) => db().selectFrom('sandboxCharges').select(['amount', 'currency', 'description']).where('paymentId', '=', paymentId).executeTakeFirstOrThrow();
  const stockOf = async (id: string) => (await db().selectFrom('products').select('stock').where('id', '=', id).executeTakeFirstOrThrow()).stock;
  const usesOf = async (code: string) => (await db().selectFrom('coupons').select('usedCount').where('code', '=', code).executeTakeFirstOrThrow()).usedCount;
  const setPayment = async (json: Record<string, unknown>) => {
    const res = await t.api('/admin/settings/payment', { method: 'PUT', headers: w.admin.headers, json });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  const unapproved = async () => {
    const p = await createUser(t.ctx.db, 'performer', { performer: { monthlyPrice: 1000, yearlyPrice: 9000 } });
    await db().updateTable('performers').set({ approved: 0 }).where('id', '=', p.id).execute();
    return p;
  };

  beforeAll(async () => {
    // The visitor's country comes from this header (a CDN's), so a test can be a visitor from a blocked country.
    t = await startTestApp(engine, { env: { COUNTRY_HEADER: 'X-Country' } });
    w = await buildMoneyWorld(t.ctx);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  describe('every checkout', () => {
    it('a coupon that takes the whole price leaves nothing to pay: 400 AMOUNT_TOO_LOW, the coupon use is not taken', async () => {
      await makeCoupon(db(), { code: 'FREEALL', valueBps: 10_000 });
      const buyer = await fan();
      await refused(
        () => post(`/payment/purchase-video/${w.videos.saleVideo.id}`, buyer, { couponCode: 'FREEALL' }),
        400,
        'AMOUNT_TOO_LOW',
        'Nothing to pay: the total after the coupon must be at least one cent',
      );
      expect(await usesOf('FREEALL')).toBe(0);
    });

    it('one cent is enough to pay: a video at 1 cent is sold for 1 cent', async () => {
      const video = await makeVideo(t.ctx, w.perf.id, { title: 'Penny clip', access: 'sale', price: 1 });
      const c = await accepted(await post(`/payment/purchase-video/${video.id}`, await fan()));
      expect({ originalPrice: c.originalPrice, discount: c.discount, amount: c.amount }).toEqual({ originalPrice: 1, discount: 0, amount: 1 });
    });

    it('the pending payment records the coupon it used and what the provider is asked to charge; the answer says the same', async () => {
      const buyer = await fan();
      const before = await usesOf('WELCOME10');
      const c = await accepted(await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, buyer, { couponCode: 'WELCOME10' }));
      expect(c).toMatchObject({ status: 'pending', gateway: 'sandbox', currency: 'USD', originalPrice: 1299, discount: 129, amount: 1170, orderIds: [] });
      const p = await paymentRow(c.paymentId);
      expect(p).toMatchObject({
        userId: buyer.id, performerId: w.perf.id, type: 'video', status: 'pending', gateway: 'sandbox', targetId: w.videos.saleVideo.id,
        originalPrice: 1299, discount: 129, amount: 1170, currency: 'USD', couponId: w.coupons.welcome.id, shippingAddress: null, stockHeld: 0, couponHeld: 1,
        expiresAt: c.expiresAt, checkoutUrl: c.redirectUrl,
      });
      expect(JSON.parse(p.details)).toEqual({ description: 'Video: Pay per view', couponCode: 'WELCOME10' });
      expect(await itemRows(c.paymentId)).toEqual([
        { objectType: 'video', objectId: w.videos.saleVideo.id, performerId: w.perf.id, quantity: 1, unitPrice: 1299, discount: 129 },
      ]);
      expect(await chargeRow(c.paymentId)).toEqual({ amount: 1170, currency: 'USD', description: 'Video: Pay per view' });
      expect(await usesOf('WELCOME10')).toBe(before + 1);
    });

    it('a provider that cannot open its checkout: 502 GATEWAY_ERROR, the payment is cancelled, stock and coupon use come back, the order is cancelled', async () => {
      const buyer = await fan();
      const product = await makeProduct(t.ctx, w.perf.id, { name: 'Gateway mug', type: 'physical', price: 1500, stock: 4 });
      const uses = await usesOf('WELCOME10');
      const failure = new Error('provider down');
      vi.spyOn(SandboxGateway.prototype, 'createCheckout').mockRejectedValueOnce(failure);
      const logged = vi.spyOn(t.ctx.logger, 'error');
      const res = await post('/payment/purchase-products', buyer, { items: [{ _id: product.id, quantity: 2 }], shippingAddress: '1 Broken Road', couponCode: 'WELCOME10' });
      expect({ status: res.status, code: res.body.code, message: res.body.message }).toEqual({
        status: 502, code: 'GATEWAY_ERROR', message: 'The payment provider is not available, please try again later',
      });
      const p = await db().selectFrom('payments').select(['id', 'status', 'stockHeld', 'couponHeld', 'checkoutUrl', 'details']).where('userId', '=', buyer.id).executeTakeFirstOrThrow();
      expect(p).toMatchObject({ status: 'cancelled', stockHeld: 0, couponHeld: 0, checkoutUrl: null });
      expect(JSON.parse(p.details).reason).toBe('gateway_error');
      expect(await stockOf(product.id)).toBe(4);
      expect(await usesOf('WELCOME10')).toBe(uses);
      expect((await db().selectFrom('orders').select('status').where('paymentId', '=', p.id).executeTakeFirstOrThrow()).status).toBe('cancelled');
      expect(logged).toHaveBeenCalledWith({ err: failure, paymentId: p.id, gateway: 'sandbox' }, 'checkout could not be created at the gateway');
    });

    /**
     * What another buyer does between the checks and the checkout's transaction (a race, made deterministic): `during`
     * runs once, when the checkout reads its currency, after every check passed and before anything is written.
     */
    function meanwhile(during: () => Promise<void>) {
      const get = t.ctx.settings.get.bind(t.ctx.settings);
      let ran = 0;
      vi.spyOn(t.ctx.settings, 'get').mockImplementation((async (key: Parameters<typeof get>[0]) => {
        if (key === 'currency' && !ran++) await during();
        return get(key);
      }) as typeof get);
      return () => ran;
    }

    it('stock taken by another buyer after the checks: 409 OUT_OF_STOCK names the first short product in lock order (by id); stock taken so far is given back', async () => {
      const made = await Promise.all(['Race print A', 'Race print B', 'Race print C', 'Race print D'].map((name) => makeProduct(t.ctx, w.perf.id, { name, stock: 2 })));
      const [p1, p2, p3, p4] = made.sort((x, y) => (x.id < y.id ? -1 : 1));
      const before = await state();
      const ran = meanwhile(async () => {
        await db().updateTable('products').set({ stock: 0 }).where('id', 'in', [p2!.id, p3!.id, p4!.id]).execute();
      });
      // Listed out of order (neither the cart's order nor its reverse finds p2 first): the checkout takes the lowest id
      // first (p1), then fails on p2 and gives p1 back.
      const res = await post('/payment/purchase-products', w.fan2, { items: [p3, p2, p4, p1].map((p) => ({ _id: p!.id })), shippingAddress: '2 Race Road' });
      expect(ran()).toBe(1);
      expect({ status: res.status, code: res.body.code, message: res.body.message, details: res.body.details }).toEqual({
        status: 409, code: 'OUT_OF_STOCK', message: `${p2!.name} is out of stock (or fewer are left than you asked for)`, details: { productId: p2!.id },
      });
      expect(await state()).toEqual({ ...before, stock: { ...before.stock, [p1!.id]: 2, [p2!.id]: 0, [p3!.id]: 0, [p4!.id]: 0 } });
    });

    it('the coupon’s last use taken by another buyer after the checks: 400 COUPON_USED_UP, and the stock this checkout took is given back', async () => {
      await makeCoupon(db(), { code: 'LASTONE', maxUses: 1 });
      const product = await makeProduct(t.ctx, w.perf.id, { name: 'Coupon race mug', stock: 3 });
      const before = await state();
      const ran = meanwhile(async () => {
        await db().updateTable('coupons').set({ usedCount: 1 }).where('code', '=', 'LASTONE').execute();
      });
      const res = await post('/payment/purchase-products', w.fan2, { items: [{ _id: product.id }], shippingAddress: '3 Race Road', couponCode: 'LASTONE' });
      expect(ran()).toBe(1);
      expect({ status: res.status, code: res.body.code, message: res.body.message }).toEqual({ status: 400, code: 'COUPON_USED_UP', message: 'This coupon has no uses left' });
      expect(await state()).toEqual({ ...before, couponUses: { ...before.couponUses, LASTONE: 1 } });
      expect(await stockOf(product.id)).toBe(3);
    });

    it('a checkout sweep that fails does not stop the checkout, and is logged', async () => {
      const buyer = await fan();
      const real = t.ctx.db.selectFrom.bind(t.ctx.db);
      let failed = 0;
      // The sweep's first read (the expired pending payments) fails once.
      vi.spyOn(t.ctx.db, 'selectFrom').mockImplementation(((from: never) => {
        if (!failed && String(from) === 'payments') {
          failed++;
          throw new Error('sweep read failed');
        }
        return real(from);
      }) as never);
      const warned = vi.spyOn(t.ctx.logger, 'warn');
      const c = await accepted(await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, buyer));
      expect(failed).toBe(1);
      expect(c.amount).toBe(1299);
      expect(warned).toHaveBeenCalledWith({ err: 'sweep read failed' }, 'checkout sweep failed');
    });
  });

  describe('POST /payment/subscribe', () => {
    it('a suspended or country-blocked performer is not found; an unapproved one is 403; nothing is written', async () => {
      const suspended = await createUser(t.ctx.db, 'performer', { performer: { monthlyPrice: 1000, status: 'suspended' } });
      const buyer = await fan();
      await refused(() => post('/payment/subscribe', buyer, { performerId: suspended.id, type: 'monthly' }), 404, 'NOT_FOUND', 'Performer not found');
      const blocker = await createUser(t.ctx.db, 'performer', { performer: { monthlyPrice: 1000 } });
      await db().insertInto('performerBlockedCountries').values({ performerId: blocker.id, countryCode: 'DE' }).execute();
      await refused(() => post('/payment/subscribe', buyer, { performerId: blocker.id, type: 'monthly' }, { 'x-country': 'DE' }), 404, 'NOT_FOUND', 'Performer not found');
      const from = await accepted(await post('/payment/subscribe', buyer, { performerId: blocker.id, type: 'monthly' }, { 'x-country': 'FR' }));
      expect(from.amount).toBe(1000);
      const fresh = await unapproved();
      await refused(
        () => post('/payment/subscribe', buyer, { performerId: fresh.id, type: 'monthly' }),
        403,
        'PERFORMER_NOT_APPROVED',
        'This performer is not approved yet: nothing of theirs can be bought',
      );
    });

    it('nobody subscribes to themselves, nor twice while subscribed; a performer without any price sells nothing', async () => {
      await refused(() => post('/payment/subscribe', w.perf, { performerId: w.perf.id, type: 'monthly' }), 400, 'BAD_REQUEST', 'You cannot subscribe to yourself');
      const buyer = await fan();
      const c = await accepted(await post('/payment/subscribe', buyer, { performerId: w.perf.id, type: 'monthly' }));
      expect((await payWithSandbox(t, buyer, c.redirectUrl)).status).toBe(200);
      const sub = await db().selectFrom('subscriptions').select(['id', 'expiresAt']).where('userId', '=', buyer.id).executeTakeFirstOrThrow();
      const again = await refused(
        () => post('/payment/subscribe', buyer, { performerId: w.perf.id, type: 'yearly' }),
        409,
        'ALREADY_SUBSCRIBED',
        `You are already subscribed until ${sub.expiresAt!.slice(0, 10)}`,
      );
      expect(again.body.details).toEqual({ subscriptionId: sub.id });
    });

    it('writes one pending line at the performer’s price and the package’s days, and a pending subscription row', async () => {
      await db().updateTable('subscriptionPackages').set({ durationDays: 28 }).where('name', '=', 'Monthly').execute();
      try {
        const buyer = await fan();
        const c = await accepted(await post('/payment/subscribe', buyer, { performerId: w.perf.id, type: 'monthly' }));
        const p = await paymentRow(c.paymentId);
        expect(p).toMatchObject({ type: 'subscription_monthly', performerId: w.perf.id, targetId: w.perf.id, amount: 1000, couponId: null, couponHeld: 0 });
        expect(JSON.parse(p.details)).toEqual({ description: 'Mona Money: monthly subscription', couponCode: null, durationDays: 28, subscriptionType: 'monthly', renewalAmount: 1000 });
        // The provider is asked to bill the same price every package period until cancelled.
        expect(await db().selectFrom('sandboxCharges').select(['amount', 'recurringDays', 'renewalAmount']).where('paymentId', '=', c.paymentId).executeTakeFirst()).toEqual({
          amount: 1000, recurringDays: 28, renewalAmount: 1000,
        });
        expect(await itemRows(c.paymentId)).toEqual([{ objectType: 'performer', objectId: w.perf.id, performerId: w.perf.id, quantity: 1, unitPrice: 1000, discount: 0 }]);
        expect(await db().selectFrom('subscriptions').select(['performerId', 'type', 'status', 'gateway']).where('userId', '=', buyer.id).execute()).toEqual([
          { performerId: w.perf.id, type: 'monthly', status: 'pending', gateway: 'sandbox' },
        ]);
        // Paid: the period is the package's 28 days.
        expect((await payWithSandbox(t, buyer, c.redirectUrl)).status).toBe(200);
        const sub = await db().selectFrom('subscriptions').select(['startedAt', 'expiresAt']).where('userId', '=', buyer.id).executeTakeFirstOrThrow();
        expect(Math.round((Date.parse(sub.expiresAt!) - Date.parse(sub.startedAt!)) / 86_400_000)).toBe(28);
        const yearly = await accepted(await post('/payment/subscribe', await fan(), { performerId: w.perf.id, type: 'yearly' }));
        const y = await paymentRow(yearly.paymentId);
        expect(y.type).toBe('subscription_yearly');
        expect(JSON.parse(y.details)).toMatchObject({ description: 'Mona Money: yearly subscription', durationDays: 365, subscriptionType: 'yearly' });
      } finally {
        await db().updateTable('subscriptionPackages').set({ durationDays: 30 }).where('name', '=', 'Monthly').execute();
      }
    });

    it('without a package, a month is 30 days and a year 365; a price of one cent sells, none does not', async () => {
      await db().updateTable('subscriptionPackages').set({ status: 'inactive' }).execute();
      try {
        const cheap = await createUser(t.ctx.db, 'performer', { name: 'Cent Cat', performer: { monthlyPrice: 1, yearlyPrice: 0 } });
        const buyer = await fan();
        const m = await accepted(await post('/payment/subscribe', buyer, { performerId: cheap.id, type: 'monthly' }));
        expect(m.amount).toBe(1);
        expect(JSON.parse((await paymentRow(m.paymentId)).details)).toEqual({ description: 'Cent Cat: monthly subscription', couponCode: null, durationDays: 30, subscriptionType: 'monthly', renewalAmount: 1 });
        const other = await fan();
        await refused(() => post('/payment/subscribe', other, { performerId: cheap.id, type: 'yearly' }), 400, 'NOT_FOR_SALE', 'This performer has no subscription price yet');
        const y = await accepted(await post('/payment/subscribe', await fan(), { performerId: w.perf.id, type: 'yearly' }));
        expect(JSON.parse((await paymentRow(y.paymentId)).details)).toMatchObject({ durationDays: 365 });
      } finally {
        await db().updateTable('subscriptionPackages').set({ status: 'active' }).where('name', '!=', 'Old').execute();
      }
    });
  });

  describe('POST /payment/purchase-video/{id}', () => {
    it('a hidden, unapproved, free, unpriced, own or owned video is refused with its own answer', async () => {
      const buyer = await fan();
      await refused(() => post('/payment/purchase-video/no-such-video', buyer), 404, 'NOT_FOUND', 'Video not found');
      const hidden = await makeVideo(t.ctx, w.perf.id, { access: 'sale', price: 500, status: 'inactive' });
      await refused(() => post(`/payment/purchase-video/${hidden.id}`, buyer), 404, 'NOT_FOUND', 'Video not found');
      const later = await makeVideo(t.ctx, w.perf.id, { access: 'sale', price: 500, publishedAt: daysFromNow(2) });
      await refused(() => post(`/payment/purchase-video/${later.id}`, buyer), 404, 'NOT_FOUND', 'Video not found');
      const fresh = await unapproved();
      const theirs = await makeVideo(t.ctx, fresh.id, { access: 'sale', price: 500 });
      await refused(() => post(`/payment/purchase-video/${theirs.id}`, buyer), 403, 'PERFORMER_NOT_APPROVED', 'This performer is not approved yet: nothing of theirs can be bought');
      const unpriced = await makeVideo(t.ctx, w.perf.id, { access: 'sale', price: 0 });
      await refused(() => post(`/payment/purchase-video/${unpriced.id}`, buyer), 400, 'NOT_FOR_SALE', 'This video is not for sale');
      const members = await makeVideo(t.ctx, w.perf.id, { access: 'subscribers', price: 500 });
      await refused(() => post(`/payment/purchase-video/${members.id}`, buyer), 400, 'NOT_FOR_SALE', 'This video is not for sale');
      await refused(() => post(`/payment/purchase-video/${w.videos.saleVideo.id}`, w.perf), 400, 'BAD_REQUEST', 'You cannot buy your own video');
      await entitle(db(), buyer.id, 'video', w.videos.saleVideo.id);
      await refused(() => post(`/payment/purchase-video/${w.videos.saleVideo.id}`, buyer), 409, 'ALREADY_PURCHASED', 'You already own this video');
    });
  });

  describe('POST /payment/purchase-gallery/{id}', () => {
    it('sells a gallery for sale: one gallery line at its price, the coupon on it', async () => {
      const gallery = await makeGallery(t.ctx, w.perf2.id, { title: 'Beach set', access: 'sale', price: 1250 });
      const buyer = await fan();
      const c = await accepted(await post(`/payment/purchase-gallery/${gallery.slug}`, buyer, { couponCode: 'THIRD' }));
      // 1250 × 33.33 % = 416.6 → 416 off.
      expect({ originalPrice: c.originalPrice, discount: c.discount, amount: c.amount, orderIds: c.orderIds }).toEqual({ originalPrice: 1250, discount: 416, amount: 834, orderIds: [] });
      const p = await paymentRow(c.paymentId);
      expect(p).toMatchObject({ type: 'gallery', performerId: w.perf2.id, targetId: gallery.id, amount: 834, couponId: w.coupons.third.id });
      expect(JSON.parse(p.details)).toEqual({ description: 'Gallery: Beach set', couponCode: 'THIRD' });
      expect(await itemRows(c.paymentId)).toEqual([{ objectType: 'gallery', objectId: gallery.id, performerId: w.perf2.id, quantity: 1, unitPrice: 1250, discount: 416 }]);
      expect(await chargeRow(c.paymentId)).toEqual({ amount: 834, currency: 'USD', description: 'Gallery: Beach set' });
      const penny = await makeGallery(t.ctx, w.perf2.id, { access: 'sale', price: 1, photos: 0 });
      expect((await accepted(await post(`/payment/purchase-gallery/${penny.id}`, buyer))).amount).toBe(1);
    });

    it('an unknown, hidden, unapproved, unpriced, members-only, own or owned gallery is refused with its own answer', async () => {
      const buyer = await fan();
      await refused(() => post('/payment/purchase-gallery/no-such-gallery', buyer), 404, 'NOT_FOUND', 'Gallery not found');
      const hidden = await makeGallery(t.ctx, w.perf.id, { access: 'sale', price: 500, status: 'inactive', photos: 0 });
      await refused(() => post(`/payment/purchase-gallery/${hidden.id}`, buyer), 404, 'NOT_FOUND', 'Gallery not found');
      const blocked = await createUser(t.ctx.db, 'performer');
      await db().insertInto('performerBlockedCountries').values({ performerId: blocked.id, countryCode: 'DE' }).execute();
      const far = await makeGallery(t.ctx, blocked.id, { access: 'sale', price: 500, photos: 0 });
      await refused(() => post(`/payment/purchase-gallery/${far.id}`, buyer, {}, { 'x-country': 'DE' }), 404, 'NOT_FOUND', 'Gallery not found');
      const fresh = await unapproved();
      const theirs = await makeGallery(t.ctx, fresh.id, { access: 'sale', price: 500, photos: 0 });
      await refused(() => post(`/payment/purchase-gallery/${theirs.id}`, buyer), 403, 'PERFORMER_NOT_APPROVED', 'This performer is not approved yet: nothing of theirs can be bought');
      const unpriced = await makeGallery(t.ctx, w.perf.id, { access: 'sale', price: 0, photos: 0 });
      await refused(() => post(`/payment/purchase-gallery/${unpriced.id}`, buyer), 400, 'NOT_FOR_SALE', 'This gallery is not for sale');
      const members = await makeGallery(t.ctx, w.perf.id, { access: 'subscribers', price: 500, photos: 0 });
      await refused(() => post(`/payment/purchase-gallery/${members.id}`, buyer), 400, 'NOT_FOR_SALE', 'This gallery is not for sale');
      const mine = await makeGallery(t.ctx, w.perf.id, { access: 'sale', price: 500, photos: 0 });
      await refused(() => post(`/payment/purchase-gallery/${mine.id}`, w.perf), 400, 'BAD_REQUEST', 'You cannot buy your own gallery');
      await entitle(db(), buyer.id, 'gallery', mine.id);
      await refused(() => post(`/payment/purchase-gallery/${mine.id}`, buyer), 409, 'ALREADY_PURCHASED', 'You already own this gallery');
      // A revoked entitlement (a refund) does not count as owning it.
      const other = await fan();
      await entitle(db(), other.id, 'gallery', mine.id, { revokedAt: daysFromNow(-1) });
      expect((await accepted(await post(`/payment/purchase-gallery/${mine.id}`, other))).amount).toBe(500);
    });
  });

  describe('POST /payment/purchase-post/{id}', () => {
    const performerPost = (performerId: string | null, o: Record<string, unknown> = {}) =>
      makePost(t.ctx, { performerId, authorId: performerId, access: 'sale', price: 700, imageFileId: null, ...o });

    it('sells a performer’s pay-per-view post: one post line at its price', async () => {
      const p0 = await performerPost(w.perf.id, { title: 'Backstage diary', price: 700 });
      const buyer = await fan();
      const c = await accepted(await post(`/payment/purchase-post/${p0.id}`, buyer, { couponCode: 'WELCOME10' }));
      expect({ originalPrice: c.originalPrice, discount: c.discount, amount: c.amount }).toEqual({ originalPrice: 700, discount: 70, amount: 630 });
      const p = await paymentRow(c.paymentId);
      expect(p).toMatchObject({ type: 'post', performerId: w.perf.id, targetId: p0.id, amount: 630 });
      expect(JSON.parse(p.details)).toEqual({ description: 'Post: Backstage diary', couponCode: 'WELCOME10' });
      expect(await itemRows(c.paymentId)).toEqual([{ objectType: 'post', objectId: p0.id, performerId: w.perf.id, quantity: 1, unitPrice: 700, discount: 70 }]);
      const penny = await performerPost(w.perf.id, { price: 1 });
      expect((await accepted(await post(`/payment/purchase-post/${penny.id}`, buyer))).amount).toBe(1);
    });

    it('an unknown, site, page, hidden, unapproved, unpriced, free, own or owned post is refused with its own answer', async () => {
      const buyer = await fan();
      await refused(() => post('/payment/purchase-post/no-such-post', buyer), 404, 'NOT_FOUND', 'Post not found');
      const site = await performerPost(null);
      await refused(() => post(`/payment/purchase-post/${site.id}`, buyer), 404, 'NOT_FOUND', 'Post not found');
      const page = await performerPost(w.perf.id, { type: 'page' });
      await refused(() => post(`/payment/purchase-post/${page.id}`, buyer), 404, 'NOT_FOUND', 'Post not found');
      const hidden = await performerPost(w.perf.id, { status: 'hidden' });
      await refused(() => post(`/payment/purchase-post/${hidden.id}`, buyer), 404, 'NOT_FOUND', 'Post not found');
      const fresh = await unapproved();
      const theirs = await performerPost(fresh.id);
      await refused(() => post(`/payment/purchase-post/${theirs.id}`, buyer), 403, 'PERFORMER_NOT_APPROVED', 'This performer is not approved yet: nothing of theirs can be bought');
      const unpriced = await performerPost(w.perf.id, { price: 0 });
      await refused(() => post(`/payment/purchase-post/${unpriced.id}`, buyer), 400, 'NOT_FOR_SALE', 'This post is not for sale');
      const free = await performerPost(w.perf.id, { access: 'free', price: 700 });
      await refused(() => post(`/payment/purchase-post/${free.id}`, buyer), 400, 'NOT_FOR_SALE', 'This post is not for sale');
      const mine = await performerPost(w.perf.id);
      await refused(() => post(`/payment/purchase-post/${mine.id}`, w.perf), 400, 'BAD_REQUEST', 'You cannot buy your own post');
      await entitle(db(), buyer.id, 'post', mine.id);
      await refused(() => post(`/payment/purchase-post/${mine.id}`, buyer), 409, 'ALREADY_PURCHASED', 'You already own this post');
    });
  });

  describe('POST /payment/purchase-products', () => {
    const cart = (who: TestUser, items: Array<{ _id: string; quantity?: number }>, more: Record<string, unknown> = {}) =>
      post('/payment/purchase-products', who, { items, ...more });
    const ordersOf = (paymentId: string) =>
      db()
        .selectFrom('orders')
        .select(['id', 'orderNumber', 'buyerId', 'performerId', 'status', 'deliveryStatus', 'shippingAddress', 'trackingCode', 'totalPrice'])
        .where('paymentId', '=', paymentId)
        .execute();
    const orderItemsOf = (orderId: string) =>
      db().selectFrom('orderItems').select(['productId', 'name', 'productType', 'quantity', 'unitPrice', 'totalPrice']).where('orderId', '=', orderId).orderBy('unitPrice').execute();

    it('one performer’s cart: the same product twice is one line, one order with its items and number, the address on payment and order', async () => {
      const buyer = await fan();
      const mug = await makeProduct(t.ctx, w.perf.id, { name: 'Cart mug', type: 'physical', price: 1500, stock: 10 });
      const book = await makeProduct(t.ctx, w.perf.id, { name: 'Cart book', type: 'digital', price: 999 });
      const c = await accepted(await cart(buyer, [{ _id: mug.id, quantity: 1 }, { _id: book.id }, { _id: mug.id, quantity: 2 }], { shippingAddress: '  7 Cart Lane  ', couponCode: 'WELCOME10' }));
      // 4500 − 450, 999 − 99.
      expect({ originalPrice: c.originalPrice, discount: c.discount, amount: c.amount }).toEqual({ originalPrice: 5499, discount: 549, amount: 4950 });
      expect(await stockOf(mug.id)).toBe(7);
      const p = await paymentRow(c.paymentId);
      expect(p).toMatchObject({ type: 'products', performerId: w.perf.id, targetId: null, shippingAddress: '7 Cart Lane', stockHeld: 1, couponId: w.coupons.welcome.id });
      expect(JSON.parse(p.details)).toEqual({ description: '4 items', couponCode: 'WELCOME10' });
      expect(await itemRows(c.paymentId)).toEqual([
        { objectType: 'product', objectId: book.id, performerId: w.perf.id, quantity: 1, unitPrice: 999, discount: 99 },
        { objectType: 'product', objectId: mug.id, performerId: w.perf.id, quantity: 3, unitPrice: 1500, discount: 450 },
      ]);
      const orders = await ordersOf(c.paymentId);
      expect(orders).toHaveLength(1);
      expect(c.orderIds).toEqual([orders[0]!.id]);
      expect(orders[0]).toMatchObject({ buyerId: buyer.id, performerId: w.perf.id, status: 'pending', deliveryStatus: 'created', shippingAddress: '7 Cart Lane', trackingCode: null, totalPrice: 4950 });
      expect(orders[0]!.orderNumber).toMatch(/^ORD-[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{10}$/);
      expect(await orderItemsOf(orders[0]!.id)).toEqual([
        { productId: book.id, name: 'Cart book', productType: 'digital', quantity: 1, unitPrice: 999, totalPrice: 900 },
        { productId: mug.id, name: 'Cart mug', productType: 'physical', quantity: 3, unitPrice: 1500, totalPrice: 4050 },
      ]);
    });

    it('two performers’ cart: no single performer on the payment, one order each, the address only on the order that ships', async () => {
      const buyer = await fan();
      const tee = await makeProduct(t.ctx, w.perf2.id, { name: 'Two tee', type: 'physical', price: 2500, stock: 3 });
      const book = await makeProduct(t.ctx, w.perf.id, { name: 'Two book', type: 'digital', price: 999 });
      const c = await accepted(await cart(buyer, [{ _id: tee.id }, { _id: book.id }], { shippingAddress: '8 Split Street' }));
      expect(c.amount).toBe(3499);
      expect(c.orderIds).toHaveLength(2);
      const p = await paymentRow(c.paymentId);
      expect(p).toMatchObject({ performerId: null, shippingAddress: '8 Split Street', couponId: null, couponHeld: 0 });
      expect(JSON.parse(p.details)).toEqual({ description: '2 items', couponCode: null });
      const orders = Object.fromEntries((await ordersOf(c.paymentId)).map((o) => [o.performerId, o]));
      expect(orders[w.perf2.id]).toMatchObject({ shippingAddress: '8 Split Street', totalPrice: 2500 });
      expect(orders[w.perf.id]).toMatchObject({ shippingAddress: null, totalPrice: 999 });
      expect(new Set(Object.values(orders).map((o) => o.id))).toEqual(new Set(c.orderIds));
    });

    it('a download alone needs no address and keeps none; a single line is named by its product, with × for more than one', async () => {
      const book = await makeProduct(t.ctx, w.perf.id, { name: 'Solo book', type: 'digital', price: 999 });
      const c = await accepted(await cart(await fan(), [{ _id: book.id }], { shippingAddress: '9 Unneeded Road' }));
      const p = await paymentRow(c.paymentId);
      expect(p).toMatchObject({ shippingAddress: null, stockHeld: 0 });
      expect(JSON.parse(p.details).description).toBe('Solo book');
      expect((await ordersOf(c.paymentId))[0]!.shippingAddress).toBeNull();
      const cap = await makeProduct(t.ctx, w.perf.id, { name: 'Solo cap', type: 'physical', price: 800, stock: 5 });
      const two = await accepted(await cart(await fan(), [{ _id: cap.id, quantity: 2 }], { shippingAddress: '9 Cap Road' }));
      expect(JSON.parse((await paymentRow(two.paymentId)).details).description).toBe('Solo cap × 2');
      expect(await chargeRow(two.paymentId)).toEqual({ amount: 1600, currency: 'USD', description: 'Solo cap × 2' });
    });

    it('a cart with a physical item needs a shipping address: none, or only blanks, is 400 VALIDATION_FAILED on body.shippingAddress; downloads alone need none', async () => {
      const required = ['A shipping address is required for physical products', [{ path: 'body.shippingAddress', message: 'Required for physical products' }]] as const;
      await refused(() => cart(w.fan2, [{ _id: w.products.mug.id }]), 400, 'VALIDATION_FAILED', ...required);
      const book = await makeProduct(t.ctx, w.perf.id, { name: 'Mixed book', type: 'digital', price: 999 });
      await refused(() => cart(w.fan2, [{ _id: book.id }, { _id: w.products.mug.id }]), 400, 'VALIDATION_FAILED', ...required);
      const c = await accepted(await cart(await fan(), [{ _id: book.id }]));
      expect((await paymentRow(c.paymentId)).shippingAddress).toBeNull();
    });

    it('unknown or hidden products are 404 and named; one’s own product is 400', async () => {
      const hidden = await makeProduct(t.ctx, w.perf.id, { name: 'Hidden hat', status: 'inactive' });
      await refused(
        () => cart(w.fan2, [{ _id: w.products.mug.id }, { _id: hidden.id }, { _id: 'no-such-product' }], { shippingAddress: '1 Any Road' }),
        404,
        'NOT_FOUND',
        'Some products are not available',
        { productIds: [hidden.id, 'no-such-product'] },
      );
      const fresh = await unapproved();
      const theirs = await makeProduct(t.ctx, fresh.id, { name: 'New poster' });
      await refused(() => cart(w.fan2, [{ _id: theirs.id }], { shippingAddress: '1 Any Road' }), 403, 'PERFORMER_NOT_APPROVED', 'This performer is not approved yet: nothing of theirs can be bought');
      await refused(() => cart(w.perf, [{ _id: w.products.ebook.id }]), 400, 'BAD_REQUEST', 'You cannot buy your own product (Ebook)');
    });

    it('at most 100 of one product per order, counted over merged lines', async () => {
      await setPayment({ stockHoldMaxPerBuyer: 100 });
      try {
        const bulk = await makeProduct(t.ctx, w.perf.id, { name: 'Bulk pin', type: 'physical', price: 2, stock: null });
        await refused(
          () => cart(w.fan2, [{ _id: bulk.id, quantity: 60 }, { _id: bulk.id, quantity: 41 }], { shippingAddress: '1 Bulk Road' }),
          400,
          'BAD_REQUEST',
          'At most 100 of one product per order',
        );
        const c = await accepted(await cart(w.fan2, [{ _id: bulk.id, quantity: 60 }, { _id: bulk.id, quantity: 40 }], { shippingAddress: '1 Bulk Road' }));
        expect(c.amount).toBe(200);
        // Unlimited stock stays unlimited.
        expect(await stockOf(bulk.id)).toBeNull();
        expect(await itemRows(c.paymentId)).toEqual([{ objectType: 'product', objectId: bulk.id, performerId: w.perf.id, quantity: 100, unitPrice: 2, discount: 0 }]);
      } finally {
        await setPayment({ stockHoldMaxPerBuyer: 10 });
      }
    });

    it('a download is bought once: quantity 2 is 400, owning it is 409', async () => {
      const book = await makeProduct(t.ctx, w.perf.id, { name: 'Once book', type: 'digital', price: 999 });
      const buyer = await fan();
      await refused(() => cart(buyer, [{ _id: book.id, quantity: 2 }]), 400, 'BAD_REQUEST', 'Once book is a download: buy it once (quantity 1)');
      await entitle(db(), buyer.id, 'product', book.id);
      await refused(() => cart(buyer, [{ _id: book.id }]), 409, 'ALREADY_PURCHASED', 'You already own Once book', { productId: book.id });
    });

    it('stock: none left is "out of stock", fewer left says how many, exactly what is left sells', async () => {
      const gone = await makeProduct(t.ctx, w.perf.id, { name: 'Gone print', stock: 0 });
      const few = await makeProduct(t.ctx, w.perf.id, { name: 'Few prints', stock: 2 });
      const buyer = await fan();
      const address = { shippingAddress: '3 Stock Street' };
      await refused(() => cart(buyer, [{ _id: gone.id }], address), 409, 'OUT_OF_STOCK', 'Gone print is out of stock', { productId: gone.id, available: 0 });
      await refused(() => cart(buyer, [{ _id: few.id, quantity: 3 }], address), 409, 'OUT_OF_STOCK', 'Only 2 of Few prints left', { productId: few.id, available: 2 });
      const c = await accepted(await cart(buyer, [{ _id: few.id, quantity: 2 }], address));
      expect(c.amount).toBe(3000);
      expect(await stockOf(few.id)).toBe(0);
    });

    it('a product without a price is not for sale; one cent is', async () => {
      const free = await makeProduct(t.ctx, w.perf.id, { name: 'Free sticker', type: 'digital', price: 0 });
      await refused(() => cart(w.fan2, [{ _id: free.id }]), 400, 'NOT_FOR_SALE', 'Free sticker has no price');
      const penny = await makeProduct(t.ctx, w.perf.id, { name: 'Penny sticker', type: 'digital', price: 1 });
      expect((await accepted(await cart(w.fan2, [{ _id: penny.id }]))).amount).toBe(1);
    });

    it('the hold cap names the product and what the buyer already holds', async () => {
      await setPayment({ stockHoldMaxPerBuyer: 3 });
      try {
        const shirt = await makeProduct(t.ctx, w.perf.id, { name: 'Cap shirt', stock: 20 });
        const other = await makeProduct(t.ctx, w.perf.id, { name: 'Cap other', stock: 20 });
        const buyer = await fan();
        const address = { shippingAddress: '4 Cap Close' };
        await refused(() => cart(buyer, [{ _id: other.id }, { _id: shirt.id, quantity: 4 }], address), 409, 'HOLD_LIMIT', 'At most 3 of Cap shirt per buyer at a time', {
          productId: shirt.id, held: 0, max: 3,
        });
        await accepted(await cart(buyer, [{ _id: shirt.id, quantity: 2 }], address));
        await refused(
          () => cart(buyer, [{ _id: shirt.id, quantity: 2 }], address),
          409,
          'HOLD_LIMIT',
          'You already hold 2 of Cap shirt in unpaid checkouts: pay or cancel them first (at most 3 per product)',
          { productId: shirt.id, held: 2, max: 3 },
        );
        // Up to the cap exactly is allowed.
        await accepted(await cart(buyer, [{ _id: shirt.id, quantity: 1 }], address));
        expect(await stockOf(shirt.id)).toBe(17);
      } finally {
        await setPayment({ stockHoldMaxPerBuyer: 10 });
      }
    });
  });
});

// SMTP_URL: production refuses to start without a mail server (nothing here sends mail).
const production = { NODE_ENV: 'production', SMTP_URL: 'smtp://127.0.0.1:9', APP_SECRET: 'a-long-random-production-secret-0123456789', LOG_LEVEL: 'silent' };

describe.each(engines)('a live site checks out through Stripe on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;

  beforeAll(async () => {
    t = await startTestApp(engine, { env: production });
    w = await buildMoneyWorld(t.ctx);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('while the sandbox is the gateway, its refusal comes before any other answer: 403 SANDBOX_DISABLED, nothing swept or written', async () => {
    const expired = await t.ctx.db
      .insertInto('payments')
      .values({
        id: 'expired-pending', userId: w.fan2.id, performerId: w.perf.id, type: 'video', status: 'pending', gateway: 'sandbox', targetId: w.videos.saleVideo.id,
        originalPrice: 1299, amount: 1299, currency: 'USD', expiresAt: daysFromNow(-1), createdAt: daysFromNow(-2), updatedAt: daysFromNow(-2),
      })
      .execute();
    expect(expired).toHaveLength(1);
    const answers = [
      await t.api(`/payment/purchase-video/${w.videos.saleVideo.id}`, { method: 'POST', headers: w.perf.headers, json: {} }),
      await t.api('/payment/purchase-video/no-such-video', { method: 'POST', headers: w.fan.headers, json: {} }),
      await t.api('/payment/purchase-gallery/no-such-gallery', { method: 'POST', headers: w.fan.headers, json: {} }),
      await t.api('/payment/purchase-post/no-such-post', { method: 'POST', headers: w.fan.headers, json: {} }),
      await t.api('/payment/subscribe', { method: 'POST', headers: w.perf.headers, json: { performerId: w.perf.id, type: 'monthly' } }),
      await t.api('/payment/purchase-products', { method: 'POST', headers: w.fan.headers, json: { items: [{ _id: 'no-such-product' }] } }),
    ];
    expect(answers.map((r) => [r.status, r.body.code])).toEqual(Array.from({ length: 6 }, () => [403, 'SANDBOX_DISABLED']));
    const rows = await t.ctx.db.selectFrom('payments').select(['id', 'status']).execute();
    expect(rows).toEqual([{ id: 'expired-pending', status: 'pending' }]);
  });

  it('the sandbox being off does not refuse a Stripe checkout: the provider’s page is where the buyer goes', async () => {
    const chosen = await t.api('/admin/settings/payment', { method: 'PUT', headers: w.admin.headers, json: { paymentGateway: 'stripe' } });
    expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);
    const session = vi.spyOn(StripeGateway.prototype, 'createCheckout').mockResolvedValue({ gatewayRef: 'cs_test_live', redirectUrl: 'https://checkout.stripe.test/cs_test_live' });
    const res = await t.api(`/payment/purchase-video/${w.videos.saleVideo.id}`, { method: 'POST', headers: w.fan.headers, json: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ gateway: 'stripe', redirectUrl: 'https://checkout.stripe.test/cs_test_live', amount: 1299, currency: 'USD' });
    expect(session).toHaveBeenCalledTimes(1);
    expect(session.mock.calls[0]![0]).toMatchObject({ paymentId: res.body.paymentId, amount: 1299, currency: 'USD', description: 'Video: Pay per view', customerEmail: w.fan.email });
    const p = await t.ctx.db.selectFrom('payments').select(['gateway', 'gatewayRef', 'status']).where('id', '=', res.body.paymentId).executeTakeFirstOrThrow();
    expect(p).toEqual({ gateway: 'stripe', gatewayRef: 'cs_test_live', status: 'pending' });
  });
});
