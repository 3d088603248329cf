import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { buildMoneyWorld, ledger, payWithSandbox, sandboxBillingOf, type MoneyWorld } from '../helpers/money-fixture.js';
import { createInProcessMoney, type Money } from '../../server/payments/money.js';
import { subscriptionOffer } from '../../server/subscriptions/subscriptions.service.js';
import { PROMOTION_UNLIMITED } from '../../common/offers.js';
import type { SubscriptionOffer } from '../../common/schemas/money.js';

/**
 * Offers a performer makes (server/payments/README.md, "Offers"): a free trial once per fan, bundles of monthly
 * periods, promotions for new subscribers held exactly like coupon uses. Every refusal is a 4xx that writes nothing.
 */

const DAY = 86_400_000;
const HOUR = 3_600_000;

describe.each(engines)('subscription offers on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;
  let money: Money;
  const db = () => t.ctx.db;
  const post = (path: string, who: TestUser | undefined, json: unknown = {}) => t.api(path, { method: 'POST', headers: who?.headers ?? {}, json });
  const get = (path: string, who?: TestUser) => t.api(path, { headers: who?.headers ?? {} });
  const put = (path: string, who: TestUser, json: unknown) => t.api(path, { method: 'PUT', headers: who.headers, json });

  const subRow = (userId: string, performerId: string) =>
    db().selectFrom('subscriptions').selectAll().where('userId', '=', userId).where('performerId', '=', performerId).executeTakeFirst();
  const paymentsOf = (userId: string, performerId: string) =>
    db().selectFrom('payments').selectAll().where('userId', '=', userId).where('performerId', '=', performerId).orderBy('createdAt').orderBy('id').execute();
  const coupon = (id: string) => db().selectFrom('coupons').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const billingOf = (userId: string, performerId: string) => sandboxBillingOf(db(), userId, performerId);
  /** What a refusal must leave untouched. */
  const snapshot = async () => ({
    payments: Number((await db().selectFrom('payments').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n),
    subscriptions: (await db().selectFrom('subscriptions').select(['id', 'status', 'expiresAt']).orderBy('id').execute()),
    coupons: (await db().selectFrom('coupons').select(['id', 'usedCount', 'status']).orderBy('id').execute()),
    charges: Number((await db().selectFrom('sandboxCharges').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n),
  });

  /** A performer with a monthly price of $9.99 and the offers given. */
  const performer = (o: { trialDays?: number; bundle3Bps?: number; bundle6Bps?: number; bundle12Bps?: number } = {}) =>
    createUser(db(), 'performer', { performer: { monthlyPrice: 999, yearlyPrice: 9999, ...o } });

  /** Moves a fan's subscription, its payments and its provider billing `ms` into the past (tests/api/renewals.test.ts). */
  async function age(fan: TestUser, performerId: string, ms: number) {
    const sub = (await subRow(fan.id, performerId))!;
    const back = (iso: string | null) => (iso ? new Date(Date.parse(iso) - ms).toISOString() : null);
    await db().updateTable('subscriptions').set({ startedAt: back(sub.startedAt), expiresAt: back(sub.expiresAt) }).where('id', '=', sub.id).execute();
    for (const p of await paymentsOf(fan.id, performerId)) await db().updateTable('payments').set({ paidAt: back(p.paidAt) }).where('id', '=', p.id).execute();
    const billing = await billingOf(fan.id, performerId);
    await db().updateTable('sandboxSubscriptions').set({ periodEnd: back(billing.periodEnd)!, nextChargeAt: back(billing.nextChargeAt)! }).where('id', '=', billing.id).execute();
  }
  /** Ages the subscription so its period ends `inMs` from now (negative: ended that long ago). */
  async function endsIn(fan: TestUser, performerId: string, inMs: number) {
    const sub = (await subRow(fan.id, performerId))!;
    await age(fan, performerId, Date.parse(sub.expiresAt!) - Date.now() - inMs);
  }

  async function subscribeAndPay(fan: TestUser, body: Record<string, unknown>) {
    const res = await post('/payment/subscribe', fan, { type: 'monthly', ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await payWithSandbox(t, fan, res.body.redirectUrl)).status).toBe(200);
    return res.body;
  }

  async function promotion(perf: TestUser, o: { valueBps?: number; startsAt?: number; endsAt?: number; maxUses?: number | null } = {}) {
    const res = await post('/performer/promotions', perf, {
      valueBps: o.valueBps ?? 2000,
      startsAt: new Date(Date.now() + (o.startsAt ?? -HOUR)).toISOString(),
      endsAt: new Date(Date.now() + (o.endsAt ?? DAY)).toISOString(),
      ...(o.maxUses !== undefined ? { maxUses: o.maxUses } : {}),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { _id: string; state: string; maxUses: number | null };
  }

  beforeAll(async () => {
    t = await startTestApp(engine);
    w = await buildMoneyWorld(t.ctx);
    money = createInProcessMoney(t.ctx);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  // -- free trial -----------------------------------------------------------------------------------------------

  it('the performer sets trial days and bundle discounts in the studio; bad values are refused and change nothing', async () => {
    const perf = await performer();
    const ok = await put('/performer/profile', perf, { trialDays: 7, bundle3Bps: 1000, bundle12Bps: 2500 });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ trialDays: 7, bundle3Bps: 1000, bundle6Bps: 0, bundle12Bps: 2500 });
    for (const bad of [{ trialDays: 31 }, { trialDays: -1 }, { bundle6Bps: 9500 }, { trialDays: 1.5 }]) {
      const res = await put('/performer/profile', perf, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.any(String) });
    }
    expect((await get('/performer/profile', perf)).body).toMatchObject({ trialDays: 7, bundle3Bps: 1000, bundle6Bps: 0, bundle12Bps: 2500 });
    expect((await put('/performer/profile', w.fan, { trialDays: 3 })).status).toBe(403);
  });

  it('a new subscriber starts the trial for 0 through the provider; its paid event settles the trial days; renewals charge the monthly price every 30 days', async () => {
    const perf = await performer({ trialDays: 7 });
    const fan = await createUser(db(), 'user');
    const offer = await subscriptionOffer(db(), perf.id, fan.id);
    expect(offer.plans.find((p) => p.type === 'monthly' && !p.bundleMonths)).toMatchObject({ price: 999, firstPrice: 0, trialDays: 7, periodDays: 30 });
    const checkout = await subscribeAndPay(fan, { performerId: perf.id });
    expect(checkout).toMatchObject({ amount: 0, originalPrice: 0, discount: 0, trialDays: 7, promotionId: null });

    const [payment] = await paymentsOf(fan.id, perf.id);
    expect(payment).toMatchObject({ status: 'success', amount: 0, type: 'subscription_monthly' });
    expect(JSON.parse(payment!.details)).toMatchObject({ trial: true, trialDays: 7, durationDays: 7, periodDays: 30, renewalAmount: 999 });
    const charge = await db().selectFrom('sandboxCharges').selectAll().where('paymentId', '=', payment!.id).executeTakeFirstOrThrow();
    expect(charge).toMatchObject({ amount: 0, recurringDays: 30, firstPeriodDays: 7, renewalAmount: 999 });
    const sub = (await subRow(fan.id, perf.id))!;
    expect(sub).toMatchObject({ status: 'active', autoRenew: 1, renewalAmount: 999, periodDays: 30 });
    expect(Date.parse(sub.expiresAt!) - Date.parse(payment!.paidAt!)).toBe(7 * DAY);
    const billing = await billingOf(fan.id, perf.id);
    expect(billing).toMatchObject({ amount: 999, periodDays: 30, renewals: 0 });
    expect(Math.abs(Date.parse(billing.periodEnd) - Date.parse(sub.expiresAt!))).toBeLessThan(5_000);
    // The paywall is open during the trial.
    expect((await get(`/subscriptions/current?performerId=${perf.id}`, fan)).body.items[0]).toMatchObject({ isLive: true, renewalAmount: 999 });

    await endsIn(fan, perf.id, 5 * 60_000);
    const before = (await subRow(fan.id, perf.id))!;
    await money.sandbox().renewDue(new Date());
    const payments = await paymentsOf(fan.id, perf.id);
    expect(payments.map((p) => [p.status, p.amount])).toEqual([['success', 0], ['success', 999]]);
    expect(JSON.parse(payments[1]!.details)).toMatchObject({ renewal: true, durationDays: 30 });
    const after = (await subRow(fan.id, perf.id))!;
    expect(Date.parse(after.expiresAt!) - Date.parse(before.expiresAt!)).toBe(30 * DAY);
    expect((await billingOf(fan.id, perf.id)).renewals).toBe(1);
    const l = await ledger(db());
    expect(l.paid).toBe(l.net + l.commission);
  });

  it('the trial is once per fan: after cancelling and lapsing, the next checkout is a normal paid subscription', async () => {
    const perf = await performer({ trialDays: 5 });
    const fan = await createUser(db(), 'user');
    expect((await subscribeAndPay(fan, { performerId: perf.id })).amount).toBe(0);
    expect((await post('/subscriptions/cancel', fan, { performerId: perf.id })).status).toBe(200);
    await endsIn(fan, perf.id, -HOUR);
    expect((await subscriptionOffer(db(), perf.id, fan.id)).plans[0]).toMatchObject({ firstPrice: 999, trialDays: null });
    const again = await post('/payment/subscribe', fan, { performerId: perf.id, type: 'monthly' });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(again.body).toMatchObject({ amount: 999, trialDays: null });
    // A fan whose trial checkout was cancelled on the provider's page never had the trial: they may start it again.
    const other = await createUser(db(), 'user');
    const first = await post('/payment/subscribe', other, { performerId: perf.id, type: 'monthly' });
    expect(first.body.amount).toBe(0);
    expect((await payWithSandbox(t, other, first.body.redirectUrl, 'cancel')).status).toBe(200);
    const retry = await post('/payment/subscribe', other, { performerId: perf.id, type: 'monthly' });
    expect(retry.body).toMatchObject({ amount: 0, trialDays: 5 });
  });

  it('a fan with a refunded subscription payment had a subscription: no trial', async () => {
    const perf = await performer();
    const fan = await createUser(db(), 'user');
    await subscribeAndPay(fan, { performerId: perf.id });
    const [p] = await paymentsOf(fan.id, perf.id);
    expect((await post(`/payment/sandbox/${p!.gatewayRef}/reverse`, w.admin, { kind: 'refunded' })).status).toBe(200);
    await db().updateTable('performers').set({ trialDays: 7 }).where('id', '=', perf.id).execute();
    const res = await post('/payment/subscribe', fan, { performerId: perf.id, type: 'monthly' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ amount: 999, trialDays: null });
  });

  it('concurrent trial checkouts of one fan give one trial; the others are refused and write nothing', async () => {
    const perf = await performer({ trialDays: 7 });
    const fan = await createUser(db(), 'user');
    const results = await Promise.all(Array.from({ length: 4 }, () => post('/payment/subscribe', fan, { performerId: perf.id, type: 'monthly' })));
    const created = results.filter((r) => r.status === 201);
    const trials = created.filter((r) => r.body.trialDays !== null);
    expect(trials.length, JSON.stringify(results.map((r) => r.body))).toBe(1);
    expect(trials[0]!.body).toMatchObject({ amount: 0, trialDays: 7 });
    // A request that reached the server after the trial's checkout was written is no new subscriber's: it is offered
    // the regular price (on a busy machine one of the four can be that late). The ones that raced it are refused.
    for (const r of created.filter((x) => x !== trials[0])) expect(r.body).toMatchObject({ amount: 999, trialDays: null });
    for (const r of results.filter((x) => x.status !== 201)) expect(r).toMatchObject({ status: 409, body: { code: 'OFFER_TAKEN', message: expect.any(String) } });
    const payments = await paymentsOf(fan.id, perf.id);
    expect(payments.length).toBe(created.length);
    expect(payments.filter((p) => p.amount === 0)).toHaveLength(1);
    // Once it is open, the next checkout is the regular price (it is not a trial).
    const next = await post('/payment/subscribe', fan, { performerId: perf.id, type: 'monthly' });
    expect(next.body).toMatchObject({ amount: 999, trialDays: null });
  });

  it('a coupon code on a trial is refused (nothing to lower) and writes nothing; a trial is monthly only', async () => {
    const perf = await performer({ trialDays: 7, bundle3Bps: 1000 });
    const fan = await createUser(db(), 'user');
    const before = await snapshot();
    const res = await post('/payment/subscribe', fan, { performerId: perf.id, type: 'monthly', couponCode: 'WELCOME10' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'COUPON_NOT_NEEDED', message: expect.any(String) });
    expect(await snapshot()).toEqual(before);
    const yearly = await post('/payment/subscribe', fan, { performerId: perf.id, type: 'yearly' });
    expect(yearly.body).toMatchObject({ amount: 9999, trialDays: null });
    const other = await createUser(db(), 'user');
    const bundle = await post('/payment/subscribe', other, { performerId: perf.id, type: 'monthly', bundleMonths: 3 });
    expect(bundle.body).toMatchObject({ amount: 2697, trialDays: null });
  });

  // -- bundles --------------------------------------------------------------------------------------------------

  it('a 3-month bundle costs round(3 × monthly × (1 − discount)), lasts 90 days and renews at the same price every 90 days', async () => {
    const perf = await performer({ bundle3Bps: 1000, bundle6Bps: 1500, bundle12Bps: 2500 });
    const plans = (await subscriptionOffer(db(), perf.id)).plans;
    expect(plans.map((p) => [p.bundleMonths, p.price, p.periodDays, p.discountBps])).toEqual([
      [null, 999, 30, null], [3, 2697, 90, 1000], [6, 5095, 180, 1500], [12, 8991, 360, 2500], [null, 9999, 365, null],
    ]);
    const fan = await createUser(db(), 'user');
    const checkout = await subscribeAndPay(fan, { performerId: perf.id, bundleMonths: 3 });
    expect(checkout).toMatchObject({ amount: 2697, originalPrice: 2697 });
    const [payment] = await paymentsOf(fan.id, perf.id);
    expect(JSON.parse(payment!.details)).toMatchObject({ bundleMonths: 3, durationDays: 90, renewalAmount: 2697 });
    const sub = (await subRow(fan.id, perf.id))!;
    expect(sub).toMatchObject({ type: 'monthly', renewalAmount: 2697, periodDays: 90, autoRenew: 1 });
    expect(Date.parse(sub.expiresAt!) - Date.parse(payment!.paidAt!)).toBe(90 * DAY);
    expect(await billingOf(fan.id, perf.id)).toMatchObject({ amount: 2697, periodDays: 90 });
    // The fan's list names the bundle.
    expect((await t.api('/subscriptions/user/search', { headers: fan.headers })).body.items).toMatchObject([{ performerId: perf.id, type: 'monthly', bundleMonths: 3 }]);

    await endsIn(fan, perf.id, 5 * 60_000);
    const before = (await subRow(fan.id, perf.id))!;
    await money.sandbox().renewDue(new Date());
    expect((await paymentsOf(fan.id, perf.id)).map((p) => p.amount)).toEqual([2697, 2697]);
    expect(Date.parse((await subRow(fan.id, perf.id))!.expiresAt!) - Date.parse(before.expiresAt!)).toBe(90 * DAY);
  });

  it('a bundle that is not offered, or not monthly, is refused and writes nothing', async () => {
    const perf = await performer({ bundle3Bps: 1000 });
    const fan = await createUser(db(), 'user');
    const before = await snapshot();
    const six = await post('/payment/subscribe', fan, { performerId: perf.id, type: 'monthly', bundleMonths: 6 });
    expect(six.status).toBe(400);
    expect(six.body).toMatchObject({ code: 'BUNDLE_NOT_OFFERED', message: expect.any(String) });
    const yearly = await post('/payment/subscribe', fan, { performerId: perf.id, type: 'yearly', bundleMonths: 3 });
    expect(yearly.status).toBe(400);
    expect(yearly.body.code).toBe('VALIDATION_FAILED');
    const odd = await post('/payment/subscribe', fan, { performerId: perf.id, type: 'monthly', bundleMonths: 4 });
    expect(odd.status).toBe(400);
    expect(await snapshot()).toEqual(before);
  });

  // -- promotions -----------------------------------------------------------------------------------------------

  it('a promotion lowers new subscribers’ first period only inside its window; renewals charge the list price', async () => {
    const perf = await performer({ bundle3Bps: 1000 });
    const later = await promotion(perf, { valueBps: 5000, startsAt: HOUR, endsAt: 2 * DAY });
    expect(later.state).toBe('scheduled');
    const fan = await createUser(db(), 'user');
    // A signed-in fan's performer page asks whether a promotion runs with the performer's row: not yet.
    const pageOffer = async (who: TestUser) => (await get(`/users/me/header?performer=${perf.id}`, who)).body.performer.offer as SubscriptionOffer;
    expect((await pageOffer(fan)).plans[0]).toMatchObject({ firstPrice: 999, promotion: null });
    expect((await post('/payment/subscribe', fan, { performerId: perf.id, type: 'monthly' })).body).toMatchObject({ amount: 999, promotionId: null });
    expect((await coupon(later._id)).usedCount).toBe(0);

    // Ended: its window closed an hour ago.
    await db().updateTable('coupons').set({ startsAt: new Date(Date.now() - 2 * DAY).toISOString(), expiresAt: new Date(Date.now() - HOUR).toISOString() }).where('id', '=', later._id).execute();
    const fan2 = await createUser(db(), 'user');
    expect((await post('/payment/subscribe', fan2, { performerId: perf.id, type: 'monthly' })).body).toMatchObject({ amount: 999, promotionId: null });
    expect((await get('/performer/promotions', perf)).body.items[0]).toMatchObject({ _id: later._id, state: 'ended' });

    const running = await promotion(perf, { valueBps: 2000, maxUses: null });
    const guestView = await subscriptionOffer(db(), perf.id);
    expect(guestView.plans.find((p) => p.bundleMonths === 3)).toMatchObject({ price: 2697, firstPrice: 2158, promotion: { _id: running._id, valueBps: 2000, left: null } });
    const fan3 = await createUser(db(), 'user');
    // The fan's page offers what the checkout then charges.
    expect((await pageOffer(fan3)).plans.find((p) => p.bundleMonths === 3)).toMatchObject({ firstPrice: 2158, promotion: { _id: running._id } });
    const checkout = await subscribeAndPay(fan3, { performerId: perf.id });
    expect(checkout).toMatchObject({ originalPrice: 999, discount: 199, amount: 800, promotionId: running._id });
    expect(guestView.plans[0]!.firstPrice).toBe(800);
    expect((await coupon(running._id)).usedCount).toBe(1);
    expect((await subRow(fan3.id, perf.id))!.renewalAmount).toBe(999);
    await endsIn(fan3, perf.id, 5 * 60_000);
    await money.sandbox().renewDue(new Date());
    expect((await paymentsOf(fan3.id, perf.id)).map((p) => p.amount)).toEqual([800, 999]);
  });

  it('N+5 fans racing for a promotion of N: exactly N get it; a cancelled checkout gives its use back', async () => {
    const perf = await performer();
    const N = 3;
    const promo = await promotion(perf, { valueBps: 3000, maxUses: N });
    const fans = await Promise.all(Array.from({ length: N + 5 }, () => createUser(db(), 'user')));
    const results = await Promise.all(fans.map((fan) => post('/payment/subscribe', fan, { performerId: perf.id, type: 'monthly' })));
    const discounted = results.filter((r) => r.status === 201 && r.body.promotionId === promo._id);
    expect(discounted.length).toBe(N);
    for (const r of discounted) expect(r.body.amount).toBe(700);
    for (const r of results.filter((x) => !discounted.includes(x))) {
      // Too late for the promotion: refused before anything was written, or (when it had already run out) the regular price.
      if (r.status === 201) expect(r.body).toMatchObject({ amount: 999, promotionId: null });
      else expect(r).toMatchObject({ status: 409, body: { code: 'PROMOTION_ENDED', message: expect.any(String) } });
    }
    expect((await coupon(promo._id)).usedCount).toBe(N);
    const held = await db().selectFrom('payments').select('id').where('couponId', '=', promo._id).where('couponHeld', '=', 1).execute();
    expect(held.length).toBe(N);
    expect((await subscriptionOffer(db(), perf.id)).plans[0]).toMatchObject({ firstPrice: 999, promotion: null });

    // One of them cancels on the provider's page: the use comes back and the next new fan gets it.
    const winner = fans[results.indexOf(discounted[0]!)]!;
    expect((await payWithSandbox(t, winner, discounted[0]!.body.redirectUrl, 'cancel')).status).toBe(200);
    expect((await coupon(promo._id)).usedCount).toBe(N - 1);
    expect((await subscriptionOffer(db(), perf.id)).plans[0]).toMatchObject({ firstPrice: 700, promotion: { left: 1 } });
    const late = await createUser(db(), 'user');
    expect((await post('/payment/subscribe', late, { performerId: perf.id, type: 'monthly' })).body).toMatchObject({ amount: 700, promotionId: promo._id });
    expect((await coupon(promo._id)).usedCount).toBe(N);
  });

  it('a promotion is not for returning subscribers', async () => {
    const perf = await performer();
    const fan = await createUser(db(), 'user');
    await subscribeAndPay(fan, { performerId: perf.id });
    expect((await post('/subscriptions/cancel', fan, { performerId: perf.id })).status).toBe(200);
    await endsIn(fan, perf.id, -HOUR);
    const promo = await promotion(perf, { valueBps: 5000, maxUses: 10 });
    expect((await subscriptionOffer(db(), perf.id, fan.id)).plans[0]).toMatchObject({ firstPrice: 999, promotion: null });
    expect((await subscriptionOffer(db(), perf.id)).plans[0]).toMatchObject({ firstPrice: 500 });
    const res = await post('/payment/subscribe', fan, { performerId: perf.id, type: 'monthly' });
    expect(res.body).toMatchObject({ amount: 999, promotionId: null });
    expect((await coupon(promo._id)).usedCount).toBe(0);
  });

  it('a typed coupon and a promotion do not stack: the larger discount applies, the other is not taken', async () => {
    const perf = await performer();
    const promo = await promotion(perf, { valueBps: 2000, maxUses: 10 });
    const welcome = w.coupons.welcome.id; // 10 %
    const third = w.coupons.third.id; // 33.33 %
    const fan = await createUser(db(), 'user');
    const usedWelcome = (await coupon(welcome)).usedCount;
    const res = await post('/payment/subscribe', fan, { performerId: perf.id, type: 'monthly', couponCode: 'WELCOME10' });
    expect(res.body).toMatchObject({ amount: 800, promotionId: promo._id });
    expect((await coupon(welcome)).usedCount).toBe(usedWelcome);
    expect((await coupon(promo._id)).usedCount).toBe(1);

    const fan2 = await createUser(db(), 'user');
    const usedThird = (await coupon(third)).usedCount;
    const res2 = await post('/payment/subscribe', fan2, { performerId: perf.id, type: 'monthly', couponCode: 'THIRD' });
    expect(res2.body).toMatchObject({ amount: 999 - Math.floor((999 * 3333) / 10_000), promotionId: null });
    expect((await coupon(third)).usedCount).toBe(usedThird + 1);
    expect((await coupon(promo._id)).usedCount).toBe(1);
    // A promotion's internal code cannot be typed.
    const fan3 = await createUser(db(), 'user');
    const typed = await post('/payment/subscribe', fan3, { performerId: perf.id, type: 'monthly', couponCode: `PROMO-${promo._id}` });
    expect(typed.status).toBe(404);
    expect(typed.body.code).toBe('COUPON_NOT_FOUND');
  });

  it('promotions in the studio: own only, validated, ended on demand; refusals write nothing', async () => {
    const perf = await performer();
    const other = await performer();
    const before = await snapshot();
    const bad = [
      { valueBps: 9500, startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + DAY).toISOString() },
      { valueBps: 1000, startsAt: new Date(Date.now() + DAY).toISOString(), endsAt: new Date().toISOString() },
      { valueBps: 1000, startsAt: new Date(Date.now() - 2 * DAY).toISOString(), endsAt: new Date(Date.now() - DAY).toISOString() },
      { valueBps: 1000, startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 400 * DAY).toISOString() },
      { valueBps: 1000, startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + DAY).toISOString(), maxUses: 0 },
    ];
    for (const body of bad) {
      const res = await post('/performer/promotions', perf, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.any(String) });
    }
    expect((await post('/performer/promotions', w.fan, bad[0])).status).toBe(403);
    expect(await snapshot()).toEqual(before);

    const promo = await promotion(perf, { maxUses: 5 });
    expect(promo).toMatchObject({ state: 'running', maxUses: 5 });
    expect((await coupon(promo._id))).toMatchObject({ performerId: perf.id, autoApply: 1, newSubscribersOnly: 1, maxUses: 5 });
    expect((await get('/performer/promotions', other)).body.items).toEqual([]);
    expect((await post(`/performer/promotions/${promo._id}/end`, other)).status).toBe(404);
    const ended = await post(`/performer/promotions/${promo._id}/end`, perf);
    expect(ended.status).toBe(200);
    expect(ended.body.state).toBe('ended');
    const fan = await createUser(db(), 'user');
    expect((await post('/payment/subscribe', fan, { performerId: perf.id, type: 'monthly' })).body).toMatchObject({ amount: 999, promotionId: null });
    // No maximum: stored as the "unlimited" count, shown as none.
    const open = await promotion(perf, { maxUses: null });
    expect(open.maxUses).toBeNull();
    expect((await coupon(open._id)).maxUses).toBe(PROMOTION_UNLIMITED);
  });
});
