import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import {
  ageSubscription, buildMoneyWorld, endPeriodAgo, ledger, payWithSandbox, postWebhook, sandboxBillingOf, subscribeWithSandbox, subscriptionOf, type MoneyWorld,
} from '../helpers/money-fixture.js';
import { createInProcessMoney, type Money } from '../../server/payments/money.js';
import { lapseUnrenewed, moneyClock } from '../../server/payments/maintenance.service.js';
import { SandboxGateway } from '../../server/payments/sandbox.gateway.js';
import { seededRandom } from '../../common/random.js';

/**
 * Subscriptions renew until cancelled, on the sandbox provider's clock (server/payments/README.md, "Recurring
 * billing"). A test "ages" a subscription by moving its dates, ours and the provider's, into the past by the same
 * amount, as if it had been bought that long ago; then the provider's clock runs at the real now, so the paywall (which
 * reads the real time) sees what a fan would.
 */

const DAY = 86_400_000;

describe.each(engines)('recurring subscriptions on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;
  let money: Money;
  const db = () => t.ctx.db;
  const post = (path: string, who: TestUser | undefined, json: unknown = {}) => t.api(path, { method: 'POST', headers: who?.headers ?? {}, json });
  const get = (path: string, who?: TestUser) => t.api(path, { headers: who?.headers ?? {} });

  const subRow = (userId: string, performerId = w.perf.id) => subscriptionOf(db(), userId, performerId);
  const billingOf = (userId: string, performerId = w.perf.id) => sandboxBillingOf(db(), userId, performerId);
  const paymentsOf = (userId: string) =>
    db().selectFrom('payments').select(['id', 'status', 'amount', 'details', 'gatewayRef']).where('userId', '=', userId).orderBy('createdAt').orderBy('id').execute();
  const locked = async (fan: TestUser) => (await get(`/user/assets/videos/${w.videos.subsVideo.id}`, fan)).body.locked as boolean;

  /** A new fan subscribed (monthly unless said) through the checkout and the sandbox's Approve. */
  async function subscribed(o: { type?: 'monthly' | 'yearly'; couponCode?: string; performer?: TestUser } = {}) {
    const fan = await createUser(db(), 'user');
    await subscribeWithSandbox(t, fan, { performerId: (o.performer ?? w.perf).id, type: o.type ?? 'monthly', ...(o.couponCode ? { couponCode: o.couponCode } : {}) });
    return fan;
  }

  const age = (fan: TestUser, ms: number, performerId = w.perf.id) => ageSubscription(db(), fan.id, performerId, ms);
  /** Ages the subscription so its period ended `ago` ms before now. */
  const endedAgo = (fan: TestUser, ago: number) => endPeriodAgo(db(), fan.id, w.perf.id, ago);

  beforeAll(async () => {
    t = await startTestApp(engine);
    w = await buildMoneyWorld(t.ctx);
    money = createInProcessMoney(t.ctx);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('a subscription checkout starts a billing at the provider; the fan sees the next billing date and amount', async () => {
    const fan = await subscribed();
    const sub = await subRow(fan.id);
    expect(sub).toMatchObject({ status: 'active', autoRenew: 1, renewalAmount: 1000, renewalCurrency: 'USD', periodDays: 30, gateway: 'sandbox' });
    const billing = await billingOf(fan.id);
    expect(billing).toMatchObject({ status: 'active', amount: 1000, currency: 'USD', periodDays: 30, renewals: 0 });
    expect(Math.abs(Date.parse(billing.periodEnd) - Date.parse(sub.expiresAt!))).toBeLessThan(5_000);
    const current = await get(`/subscriptions/current?performerId=${w.perf.id}`, fan);
    expect(current.body.items[0]).toMatchObject({ autoRenew: true, nextBillingAt: sub.expiresAt, renewalAmount: 1000, renewalCurrency: 'USD', renewalFailedAt: null, graceUntil: null });
  });

  it('a renewal charges the kept price, extends the period exactly once, and credits earnings; running the clock again changes nothing', async () => {
    const fan = await subscribed({ couponCode: 'WELCOME10' });
    // The coupon discounted the first period only; a later price change does not touch this subscriber.
    expect((await paymentsOf(fan.id)).map((p) => p.amount)).toEqual([900]);
    await db().updateTable('performers').set({ monthlyPrice: 2500 }).where('id', '=', w.perf.id).execute();
    try {
      await endedAgo(fan, -5 * 60_000); // ends in 5 minutes: within the provider's lead time
      const before = await subRow(fan.id);
      const at = new Date();
      await money.sandbox().renewDue(at);
      const after = await subRow(fan.id);
      expect(Date.parse(after.expiresAt!) - Date.parse(before.expiresAt!)).toBe(30 * DAY);
      expect(after).toMatchObject({ status: 'active', autoRenew: 1, renewalFailedAt: null, graceUntil: null, startedAt: before.startedAt });
      const payments = await paymentsOf(fan.id);
      expect(payments.map((p) => [p.status, p.amount])).toEqual([['success', 900], ['success', 1000]]);
      expect(JSON.parse(payments[1]!.details)).toMatchObject({ renewal: true, durationDays: 30, subscriptionId: after.id });
      const credit = await db().selectFrom('earnings').select(['gross', 'net', 'commission', 'sourceType', 'testMoney']).where('paymentId', '=', payments[1]!.id).execute();
      expect(credit).toEqual([{ gross: 1000, net: 800, commission: 200, sourceType: 'subscription', testMoney: 1 }]);
      expect((await billingOf(fan.id)).renewals).toBe(1);

      await money.sandbox().renewDue(at);
      expect((await billingOf(fan.id)).renewals).toBe(1);
      expect((await paymentsOf(fan.id)).length).toBe(2);
      // The provider sends the same renewal again (same event id), and once more under another id: one payment.
      const charge = await db().selectFrom('sandboxCharges').selectAll().where('renewalOf', '=', (await billingOf(fan.id)).id).executeTakeFirstOrThrow();
      const gw = money.sandbox();
      const again = await postWebhook(t, gw.buildEvent('subscription.renewed', charge, `evt_${charge.id}`, { at: charge.createdAt }));
      expect(again.body).toEqual({ received: true, outcome: 'duplicate' });
      const other = await postWebhook(t, gw.buildEvent('subscription.renewed', charge, undefined, { at: charge.createdAt }));
      expect(other.body).toEqual({ received: true, outcome: 'already_paid' });
      expect((await subRow(fan.id)).expiresAt).toBe(after.expiresAt);
      const l = await ledger(db());
      expect(l.paid).toBe(l.net + l.commission);
    } finally {
      await db().updateTable('performers').set({ monthlyPrice: 1000 }).where('id', '=', w.perf.id).execute();
    }
  });

  it('the same renewal delivered ten times at once makes one payment and one period', async () => {
    const fan = await subscribed();
    await endedAgo(fan, -60_000);
    const gw = money.sandbox();
    const billing = await billingOf(fan.id);
    const before = await subRow(fan.id);
    const charge = { id: `sbx_race_${billing.id}`, paymentId: `sbx_race_${billing.id}`, amount: 1000, currency: 'USD', renewalOf: billing.id };
    const results = await Promise.all(Array.from({ length: 10 }, () => postWebhook(t, gw.buildEvent('subscription.renewed', charge, undefined, { at: new Date().toISOString() }))));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(results.filter((r) => r.body.outcome === 'renewed').length).toBe(1);
    expect(results.filter((r) => r.body.outcome === 'already_paid').length).toBe(9);
    expect((await paymentsOf(fan.id)).length).toBe(2);
    expect(Date.parse((await subRow(fan.id)).expiresAt!) - Date.parse(before.expiresAt!)).toBe(30 * DAY);
  });

  it('two provider clocks running at once charge a due period once', async () => {
    const fan = await subscribed();
    await endedAgo(fan, -60_000);
    const at = new Date();
    await Promise.all([money.sandbox().renewDue(at), money.sandbox().renewDue(at)]);
    expect((await billingOf(fan.id)).renewals).toBe(1);
    expect((await paymentsOf(fan.id)).length).toBe(2);
    expect(await db().selectFrom('sandboxCharges').select('id').where('renewalOf', '=', (await billingOf(fan.id)).id).execute()).toHaveLength(1);
  });

  it('a failed renewal opens the grace period with access closed; a retry that succeeds in it starts a new period at the charge', async () => {
    const fan = await subscribed();
    const billing = await billingOf(fan.id);
    expect(await money.sandbox().failNext(billing.id, 1)).toBe(true);
    await endedAgo(fan, 60_000); // the period ended a minute ago
    const end = (await subRow(fan.id)).expiresAt!;
    const now = new Date();
    await money.sandbox().renewDue(now);
    expect((await billingOf(fan.id)).failRenewals).toBe(0);
    const failed = await subRow(fan.id);
    expect(failed).toMatchObject({ autoRenew: 1, expiresAt: end });
    expect(failed.renewalFailedAt).toBe(now.toISOString());
    expect(failed.graceUntil).toBe(new Date(Date.parse(end) + 3 * DAY).toISOString());
    expect(await locked(fan)).toBe(true);
    const mine = (await get('/subscriptions/user/search', fan)).body.items[0];
    expect(mine).toMatchObject({ isLive: false, autoRenew: true, nextBillingAt: null, renewalFailedAt: now.toISOString(), graceUntil: failed.graceUntil });
    // The lapse sweep leaves it alone inside the grace period.
    expect(await lapseUnrenewed(money, now)).toBe(0);

    // The provider retries a day later and the charge goes through.
    const retry = new Date(now.getTime() + DAY);
    await money.sandbox().renewDue(retry);
    expect((await billingOf(fan.id)).renewals).toBe(1);
    const recovered = await subRow(fan.id);
    expect(recovered).toMatchObject({ autoRenew: 1, renewalFailedAt: null, graceUntil: null });
    expect(recovered.expiresAt).toBe(new Date(retry.getTime() + 30 * DAY).toISOString());
    expect(recovered.startedAt).toBe(retry.toISOString());
    expect((await billingOf(fan.id)).periodEnd).toBe(recovered.expiresAt);
    expect(await locked(fan)).toBe(false);
  });

  it('renewals that keep failing lapse after the grace period: stopped here and at the provider, shown expired', async () => {
    const fan = await subscribed();
    const billing = await billingOf(fan.id);
    await money.sandbox().failNext(billing.id, 10);
    await endedAgo(fan, 60_000);
    const now = Date.now();
    for (let day = 0; day <= 4; day++) await moneyClock(money, new Date(now + day * DAY));
    const sub = await subRow(fan.id);
    expect(sub).toMatchObject({ autoRenew: 0, status: 'expired', cancelAtPeriodEnd: 0 });
    expect((await billingOf(fan.id)).status).toBe('cancelled');
    // Attempts: the day it ended and three daily retries in the grace period; none after the lapse.
    expect(10 - (await billingOf(fan.id)).failRenewals).toBe(4);
    await money.sandbox().renewDue(new Date(now + 40 * DAY));
    expect((await billingOf(fan.id)).failRenewals).toBe(6);
    expect((await paymentsOf(fan.id)).length).toBe(1);
    expect(await locked(fan)).toBe(true);
    expect((await get('/subscriptions/user/search', fan)).body.items[0]).toMatchObject({ status: 'expired', autoRenew: false, nextBillingAt: null });
    // Subscribing again works and starts a new billing.
    const res = await post('/payment/subscribe', fan, { performerId: w.perf.id, type: 'monthly' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await payWithSandbox(t, fan, res.body.redirectUrl);
    const again = await subRow(fan.id);
    expect(again).toMatchObject({ status: 'active', autoRenew: 1 });
    expect(again.gatewaySubscriptionId).not.toBe(billing.id);
    expect(await locked(fan)).toBe(false);
  });

  it('cancelling stops the billing at the provider and keeps access to the end of the paid period', async () => {
    const fan = await subscribed();
    const billing = await billingOf(fan.id);
    const res = await post(`/subscriptions/cancel/${(await subRow(fan.id)).id}`, fan);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ isLive: true, cancelAtPeriodEnd: true, autoRenew: false, nextBillingAt: null, renewalAmount: null });
    expect((await billingOf(fan.id)).status).toBe('cancelled');
    expect(await locked(fan)).toBe(false);
    await endedAgo(fan, -60_000);
    await money.sandbox().renewDue(new Date());
    expect((await billingOf(fan.id)).renewals).toBe(0);
    expect((await paymentsOf(fan.id)).length).toBe(1);
    expect(billing.id).toBe((await subRow(fan.id)).gatewaySubscriptionId);
  });

  it('when the provider cannot stop the billing, cancelling answers 502 and changes nothing', async () => {
    const fan = await subscribed();
    const sub = await subRow(fan.id);
    vi.spyOn(SandboxGateway.prototype, 'cancelSubscription').mockRejectedValue(new Error('provider down'));
    const res = await post(`/subscriptions/cancel/${sub.id}`, fan);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 502, code: 'GATEWAY_ERROR' });
    expect(await subRow(fan.id)).toMatchObject({ autoRenew: 1, cancelAtPeriodEnd: 0, cancelledAt: null });
    expect((await billingOf(fan.id)).status).toBe('active');
  });

  it('a subscription whose renewal failed can be cancelled (its retries stop)', async () => {
    const fan = await subscribed();
    await money.sandbox().failNext((await billingOf(fan.id)).id, 5);
    await endedAgo(fan, 60_000);
    await money.sandbox().renewDue(new Date());
    const res = await post('/subscriptions/cancel', fan, { performerId: w.perf.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await billingOf(fan.id)).status).toBe('cancelled');
    expect(await subRow(fan.id)).toMatchObject({ autoRenew: 0, cancelAtPeriodEnd: 1 });
  });

  it('the provider ending the billing stops renewals (a failure older than the period now paid changes nothing)', async () => {
    const fan = await subscribed();
    const billing = await billingOf(fan.id);
    const gw = money.sandbox();
    const attempt = { id: 'sbf_old', paymentId: '', amount: 1000, currency: 'USD', renewalOf: billing.id };
    const stale = await postWebhook(t, gw.buildEvent('subscription.renewal_failed', attempt, undefined, { at: new Date(Date.now() - 20 * DAY).toISOString() }));
    expect(stale.body.outcome).toBe('stale_failure');
    expect((await subRow(fan.id)).renewalFailedAt).toBeNull();
    const ended = await postWebhook(t, gw.buildEvent('subscription.cancelled', attempt, undefined, { at: new Date().toISOString() }));
    expect(ended.body.outcome).toBe('ended');
    expect(await subRow(fan.id)).toMatchObject({ autoRenew: 0, cancelAtPeriodEnd: 1, status: 'active' });
    expect(await locked(fan)).toBe(false);
    const twice = await postWebhook(t, gw.buildEvent('subscription.cancelled', attempt, undefined, { at: new Date().toISOString() }));
    expect(twice.body.outcome).toBe('ignored');
  });

  it('a renewal of a billing we do not know is answered 409 (the provider retries) and records nothing', async () => {
    const gw = money.sandbox();
    const charge = { id: 'sbx_orphan', paymentId: 'sbx_orphan', amount: 1000, currency: 'USD', renewalOf: 'sbs_unknown' };
    const e = gw.buildEvent('subscription.renewed', charge, 'evt_orphan', { at: new Date().toISOString() });
    const res = await postWebhook(t, e);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 409, code: 'RETRY_LATER' });
    expect(await db().selectFrom('webhookEvents').select('eventId').where('eventId', '=', 'evt_orphan').execute()).toEqual([]);
    expect(await db().selectFrom('payments').select('id').where('gatewayRef', '=', 'sbx_orphan').execute()).toEqual([]);
  });

  it('a refunded renewal takes its period back off the end; the ledger balances', async () => {
    const fan = await subscribed();
    await endedAgo(fan, -60_000);
    const before = await subRow(fan.id);
    await money.sandbox().renewDue(new Date());
    const renewal = (await paymentsOf(fan.id))[1]!;
    expect(await money.sandbox().reverse(renewal.gatewayRef!, 'refunded')).toBe(true);
    const after = await subRow(fan.id);
    expect(after.expiresAt).toBe(before.expiresAt);
    expect((await paymentsOf(fan.id)).map((p) => p.status)).toEqual(['success', 'refunded']);
    const l = await ledger(db());
    expect(l.paid).toBe(l.net + l.commission);
  });

  it('a performer sees live, renewing, cancelled and in-grace counts of their own subscribers only', async () => {
    const perf = await createUser(db(), 'performer', { performer: { monthlyPrice: 700, yearlyPrice: 0 } });
    const renewing = await subscribed({ performer: perf });
    const cancelling = await subscribed({ performer: perf });
    const failing = await subscribed({ performer: perf });
    void renewing;
    await post('/subscriptions/cancel', cancelling, { performerId: perf.id });
    await money.sandbox().failNext((await billingOf(failing.id, perf.id)).id, 1);
    await age(failing, Date.parse((await subRow(failing.id, perf.id)).expiresAt!) - Date.now() + 60_000, perf.id);
    await money.sandbox().renewDue(new Date());
    const stats = await get('/subscriptions/performer/stats', perf);
    expect(stats.status).toBe(200);
    expect(stats.body).toEqual({ live: 2, renewing: 1, cancelled: 1, inGrace: 1 });
    // Another performer asking sees their own; a fan may not ask.
    expect((await get('/subscriptions/performer/stats', w.perf2)).body).toEqual({ live: 0, renewing: 0, cancelled: 0, inGrace: 0 });
    expect((await get('/subscriptions/performer/stats', renewing)).status).toBe(403);
    expect((await get(`/subscriptions/performer/stats?performerId=${perf.id}`, w.admin)).body.live).toBe(2);
  });

  it('a renewal storm: renewals, failures, cancellations and chargebacks, duplicated and shuffled, 50 at a time; every period charged once', async () => {
    const random = seededRandom(engine === 'sqlite' ? 20261126 : 20261127);
    const pick = <T,>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    type Fate = 'renew2' | 'fail_then_renew' | 'renew_chargeback' | 'cancel' | 'renew_then_cancel' | 'refund_first';
    const fates: Fate[] = ['renew2', 'fail_then_renew', 'renew_chargeback', 'cancel', 'renew_then_cancel', 'refund_first'];
    const gw = money.sandbox();
    const plans: Array<{ fan: TestUser; fate: Fate; end: number; subId: string }> = [];
    type Delivery = { body: string; headers: Record<string, string> };
    const valid: Delivery[] = [];
    for (let i = 0; i < 24; i++) {
      const fan = await subscribed();
      const sub = await subRow(fan.id);
      const billing = await billingOf(fan.id);
      const fate = fates[i % fates.length]!;
      const end = Date.parse(sub.expiresAt!);
      plans.push({ fan, fate, end, subId: sub.id });
      const charge = (k: number) => ({ id: `sbx_storm_${engine}_${i}_${k}`, paymentId: `sbx_storm_${engine}_${i}_${k}`, amount: 1000, currency: 'USD', renewalOf: billing.id });
      const ev = (type: string, k: number, at: number) => valid.push(gw.buildEvent(type, charge(k), `evt_storm_${engine}_${i}_${k}_${type}`, { at: new Date(at).toISOString() }));
      if (fate === 'renew2') {
        ev('subscription.renewed', 1, end - 5 * 60_000);
        ev('subscription.renewed', 2, end + 30 * DAY - 5 * 60_000);
      } else if (fate === 'fail_then_renew') {
        ev('subscription.renewal_failed', 0, end);
        ev('subscription.renewed', 1, end + DAY);
      } else if (fate === 'renew_chargeback') {
        ev('subscription.renewed', 1, end - 5 * 60_000);
        ev('charge.dispute.created', 1, end);
      } else if (fate === 'cancel') {
        ev('subscription.cancelled', 0, end - DAY);
      } else if (fate === 'renew_then_cancel') {
        ev('subscription.renewed', 1, end - 5 * 60_000);
        ev('subscription.cancelled', 0, end + DAY);
      } else {
        // The refund of a renewal overtakes the renewal itself: 409 until the renewal has arrived.
        ev('charge.refunded', 1, end);
        ev('subscription.renewed', 1, end - 5 * 60_000);
      }
    }
    const deliveries: Delivery[] = [...valid];
    while (deliveries.length < 300) deliveries.push(pick(valid));
    for (let i = deliveries.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [deliveries[i], deliveries[j]] = [deliveries[j]!, deliveries[i]!];
    }
    // Like a provider: whatever is answered 409 (RETRY_LATER) is sent again after the batch, until accepted.
    let queue = deliveries;
    const outcomes: Record<string, number> = {};
    for (let round = 0; queue.length && round < 10; round++) {
      const again: Delivery[] = [];
      for (let i = 0; i < queue.length; i += 50) {
        const batch = queue.slice(i, i + 50);
        const results = await Promise.all(batch.map((d) => postWebhook(t, d)));
        results.forEach((r, k) => {
          expect([200, 409], JSON.stringify(r.body)).toContain(r.status);
          if (r.status === 409) again.push(batch[k]!);
          else outcomes[r.body.outcome] = (outcomes[r.body.outcome] ?? 0) + 1;
        });
      }
      queue = again;
    }
    expect(queue).toEqual([]);
    for (const outcome of ['renewed', 'duplicate', 'renewal_failed', 'ended', 'chargeback', 'refunded']) expect(outcomes[outcome] ?? 0, outcome).toBeGreaterThan(0);

    const expected: Record<Fate, { days: number; autoRenew: number; cancelAtPeriodEnd: number; payments: string[] }> = {
      renew2: { days: 60, autoRenew: 1, cancelAtPeriodEnd: 0, payments: ['success', 'success', 'success'] },
      fail_then_renew: { days: 31, autoRenew: 1, cancelAtPeriodEnd: 0, payments: ['success', 'success'] },
      renew_chargeback: { days: 0, autoRenew: 1, cancelAtPeriodEnd: 0, payments: ['success', 'chargeback'] },
      cancel: { days: 0, autoRenew: 0, cancelAtPeriodEnd: 1, payments: ['success'] },
      renew_then_cancel: { days: 30, autoRenew: 0, cancelAtPeriodEnd: 1, payments: ['success', 'success'] },
      refund_first: { days: 0, autoRenew: 1, cancelAtPeriodEnd: 0, payments: ['success', 'refunded'] },
    };
    for (const p of plans) {
      const sub = await subRow(p.fan.id);
      const want = expected[p.fate];
      expect({ fate: p.fate, end: sub.expiresAt, autoRenew: sub.autoRenew, cancelAtPeriodEnd: sub.cancelAtPeriodEnd, failed: sub.renewalFailedAt }).toEqual({
        fate: p.fate, end: new Date(p.end + want.days * DAY).toISOString(), autoRenew: want.autoRenew, cancelAtPeriodEnd: want.cancelAtPeriodEnd, failed: null,
      });
      expect({ fate: p.fate, payments: (await paymentsOf(p.fan.id)).map((x) => x.status) }).toEqual({ fate: p.fate, payments: want.payments });
    }
    const l = await ledger(db());
    expect(l.paid).toBe(l.net + l.commission);
  }, 120_000);

  it('renewal payments and the ledger stay exact across every test above', async () => {
    const l = await ledger(db());
    expect(l.paid).toBe(l.net + l.commission);
    const doubled = await db()
      .selectFrom('payments')
      .select(['gatewayRef', sql<number | string>`count(*)`.as('n')])
      .where('gatewayRef', 'is not', null)
      .groupBy('gatewayRef')
      .having(sql`count(*)`, '>', 1)
      .execute();
    expect(doubled).toEqual([]);
  });
});
