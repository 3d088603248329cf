import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { ledger } from '../helpers/money-fixture.js';
import { makePerformer, makeUser, makePackage } from '../../server/seed/factories.js';
import { createInProcessMoney, type Money } from '../../server/payments/money.js';
import { moneyClock } from '../../server/payments/maintenance.service.js';
import { checkoutSubscription } from '../../server/payments/checkout.service.js';
import { cancelSubscription } from '../../server/subscriptions/subscriptions.service.js';
import { everyone } from '../../server/catalogue/catalogue.repository.js';
import { seededRandom } from '../../common/random.js';

/**
 * A simulated year of recurring billing: SUBSCRIBERS fans subscribe monthly, then the sandbox provider's clock runs a
 * day at a time for 365 days while renewals fail at random (each failure run 1 to 5 attempts long, so some recover in
 * the grace period and some lapse) and fans cancel at random. Checked against a model built only from the provider's
 * own records (its charges and their times): every subscription's end is exactly what the charges paid for (no access
 * without a paid period, no paid period without access), every provider charge is one payment here and the reverse,
 * every billing we stopped is stopped at the provider, the ledger balances. The suite runs 100 subscribers;
 * RENEWAL_YEAR_SUBSCRIBERS=1000 runs the full proof (figures in docs/testing.md).
 */

const SUBSCRIBERS = Number(process.env.RENEWAL_YEAR_SUBSCRIBERS ?? 100);
const DAY = 86_400_000;
const PERIOD_DAYS = 30;

describe.each(engines)('a simulated year of renewals on %s', (engine) => {
  let t: TestApp;
  let money: Money;
  const db = () => t.ctx.db;

  beforeAll(async () => {
    t = await startTestApp(engine);
    money = createInProcessMoney(t.ctx);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it(`${SUBSCRIBERS} subscribers, 365 days, random failures and cancellations: periods exactly as paid, every charge once`, async () => {
    const random = seededRandom(20261126);
    const { performer } = await makePerformer(db(), { performer: { monthlyPrice: 1000, yearlyPrice: 0, approved: 1 } });
    await makePackage(db(), { name: 'Monthly', type: 'monthly', price: 999, durationDays: PERIOD_DAYS, ordering: 0 });
    const fans: Array<{ id: string; email: string; username: string; name: string }> = [];
    for (let i = 0; i < SUBSCRIBERS; i++) {
      const user = await makeUser(db());
      const session = { id: user.id, role: 'user' as const, status: 'active' as const, sessionId: 'sim', email: user.email, name: user.name, username: user.username, avatar: '' };
      const checkout = await checkoutSubscription(money, session, everyone(), { performerId: performer.id, type: 'monthly' }, 'http://127.0.0.1');
      const chargeId = checkout.redirectUrl.split('/').pop()!;
      const done = await money.sandbox().complete(chargeId, 'approve');
      expect(done.delivered).toBe(true);
      fans.push(user);
    }

    const start = Date.now();
    let cancelled = 0;
    let failuresInjected = 0;
    for (let day = 1; day <= 365; day++) {
      const asOf = new Date(start + day * DAY);
      // Renewals due within the next day may be told to fail 1 to 5 times (5 attempts outlast the 3-day grace).
      const dueSoon = await db()
        .selectFrom('sandboxSubscriptions')
        .select(['id', 'failRenewals'])
        .where('status', '=', 'active')
        .where('nextChargeAt', '<=', new Date(asOf.getTime() + DAY).toISOString())
        .execute();
      for (const b of dueSoon) {
        if (b.failRenewals === 0 && random() < 0.05) {
          await money.sandbox().failNext(b.id, 1 + Math.floor(random() * 5));
          failuresInjected++;
        }
      }
      // About one renewing fan in 3,000 cancels each day (one in nine a year).
      const renewing = await db().selectFrom('subscriptions').select(['id', 'userId']).where('autoRenew', '=', 1).where('performerId', '=', performer.id).execute();
      for (const s of renewing) {
        if (random() < 1 / 3000) {
          await cancelSubscription(money, { id: s.userId, role: 'user' }, { id: s.id });
          cancelled++;
        }
      }
      await moneyClock(money, asOf);
    }

    // The model: from the provider's charges alone, the end each subscription must have.
    const subs = await db().selectFrom('subscriptions').selectAll().where('performerId', '=', performer.id).execute();
    const billings = new Map((await db().selectFrom('sandboxSubscriptions').selectAll().execute()).map((b) => [b.id, b]));
    const charges = await db().selectFrom('sandboxCharges').select(['id', 'paymentId', 'renewalOf', 'createdAt', 'amount', 'status']).execute();
    const payments = await db().selectFrom('payments').select(['id', 'userId', 'gatewayRef', 'status', 'paidAt', 'amount']).where('performerId', '=', performer.id).execute();
    const paymentByRef = new Map(payments.map((p) => [p.gatewayRef, p]));
    expect(subs.length).toBe(SUBSCRIBERS);

    let renewals = 0;
    let lapsed = 0;
    for (const sub of subs) {
      const billing = billings.get(sub.gatewaySubscriptionId!)!;
      expect(billing, `billing of ${sub.id}`).toBeDefined();
      const first = payments.find((p) => p.gatewayRef === billing.chargeId)!;
      expect(first.status).toBe('success');
      // Every renewal charge of this billing is exactly one paid payment here, for the kept price.
      const renewalCharges = charges.filter((c) => c.renewalOf === billing.id).sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1));
      for (const c of renewalCharges) {
        const p = paymentByRef.get(c.id);
        expect(p, `payment of charge ${c.id}`).toBeDefined();
        expect(p).toMatchObject({ status: 'success', userId: sub.userId, amount: 1000 });
      }
      expect(payments.filter((p) => p.userId === sub.userId).length).toBe(1 + renewalCharges.length);
      renewals += renewalCharges.length;
      // The end the charges paid for: each extends a running period from its end, or starts one at its time.
      let end = Date.parse(first.paidAt!) + PERIOD_DAYS * DAY;
      for (const c of renewalCharges) {
        const at = Date.parse(c.createdAt);
        end = (end >= at ? end : at) + PERIOD_DAYS * DAY;
      }
      expect(sub.expiresAt, `end of ${sub.id}`).toBe(new Date(end).toISOString());
      // Renewing here exactly when billing at the provider; stopped ones are stopped there too.
      expect(billing.status).toBe(sub.autoRenew === 1 ? 'active' : 'cancelled');
      if (sub.autoRenew === 1) expect(Date.parse(billing.periodEnd)).toBe(end);
      if (sub.autoRenew === 0 && sub.cancelAtPeriodEnd === 0) lapsed++;
      // Access at the end of the year is what was paid: open exactly when the paid end is after it.
      const yearEnd = new Date(start + 365 * DAY).toISOString();
      const open = sub.status === 'active' && sub.expiresAt! > yearEnd;
      expect(open, `access of ${sub.id}`).toBe(end > Date.parse(yearEnd));
    }
    // Charges of other billings are never paid to someone else, and nothing was paid that the provider did not charge.
    const chargeIds = new Set(charges.map((c) => c.id));
    expect(payments.filter((p) => !chargeIds.has(p.gatewayRef!))).toEqual([]);
    const l = await ledger(db());
    expect(l.paid).toBe(l.net + l.commission);
    // The run did what it says: many renewals, failures that recovered and failures that lapsed, cancellations.
    expect(renewals).toBeGreaterThan(SUBSCRIBERS * 6);
    expect(failuresInjected).toBeGreaterThan(SUBSCRIBERS / 5);
    expect(lapsed).toBeGreaterThan(0);
    expect(cancelled).toBeGreaterThan(0);
    if (process.env.RENEWAL_YEAR_SUBSCRIBERS) process.stdout.write(`${JSON.stringify({ engine, subscribers: SUBSCRIBERS, renewals, failuresInjected, lapsed, cancelled })}\n`);
  }, 600_000);
});
