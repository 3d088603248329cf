import { sql } from 'kysely';
import type { DbOrTrx } from '../../server/db/database.js';
import { newId } from '../../server/db/ids.js';
import { sandboxWebhookSecret } from '../../server/payments/sandbox.gateway.js';
import { signPayload, SANDBOX_SIGNATURE_HEADER } from '../../server/payments/signature.js';
import type { FactoryCtx } from '../../server/seed/factories.js';
import { daysFromNow, makeCoupon, makePackage, makeProduct, makeVideo } from '../../server/seed/factories.js';
import { createUser, type TestUser } from './sessions.js';
import type { TestApp } from './test-app.js';

/**
 * Money fixtures: performers with prices (one with its own commission), fans, a subscriber-only and a sale video,
 * physical and digital products, packages and coupons; plus helpers that play the sandbox provider.
 */
export async function buildMoneyWorld(ctx: FactoryCtx) {
  const { db } = ctx;
  const perf = await createUser(db, 'performer', { name: 'Mona Money', performer: { monthlyPrice: 1000, yearlyPrice: 9000 } });
  // Her own commission rate: 10 % instead of the site's 20 %.
  const perf2 = await createUser(db, 'performer', { name: 'Otto Other', performer: { monthlyPrice: 500, yearlyPrice: 0, commissionBps: 1000 } });
  const fan = await createUser(db, 'user');
  const fan2 = await createUser(db, 'user');
  const admin = await createUser(db, 'admin');
  const subsVideo = await makeVideo(ctx, perf.id, { title: 'Members only', access: 'subscribers' });
  const saleVideo = await makeVideo(ctx, perf.id, { title: 'Pay per view', access: 'sale', price: 1299 });
  const freeVideo = await makeVideo(ctx, perf.id, { title: 'Free clip', access: 'free' });
  const mug = await makeProduct(ctx, perf.id, { name: 'Mug', type: 'physical', price: 1500, stock: 5 });
  const lastOne = await makeProduct(ctx, perf.id, { name: 'Last poster', type: 'physical', price: 2000, stock: 1 });
  const ebook = await makeProduct(ctx, perf.id, { name: 'Ebook', type: 'digital', price: 999 });
  const tee = await makeProduct(ctx, perf2.id, { name: 'Tee', type: 'physical', price: 2500, stock: 3 });
  await makePackage(db, { name: 'Monthly', type: 'monthly', price: 999, durationDays: 30, ordering: 0 });
  await makePackage(db, { name: 'Yearly', type: 'yearly', price: 9999, durationDays: 365, ordering: 1 });
  await makePackage(db, { name: 'Old', type: 'monthly', price: 1, durationDays: 1, ordering: 9, status: 'inactive' });
  const coupon = (code: string, o: Omit<Parameters<typeof makeCoupon>[1], 'code'> = {}) => makeCoupon(db, { code, ...o });
  const coupons = {
    welcome: await coupon('WELCOME10'),
    expired: await coupon('OLD10', { expiresAt: daysFromNow(-1) }),
    inactive: await coupon('OFF10', { status: 'inactive' }),
    usedUp: await coupon('GONE10', { maxUses: 2, usedCount: 2 }),
    third: await coupon('THIRD', { valueBps: 3333 }),
  };
  return { perf, perf2, fan, fan2, admin, videos: { subsVideo, saleVideo, freeVideo }, products: { mug, lastOne, ebook, tee }, coupons };
}

export type MoneyWorld = Awaited<ReturnType<typeof buildMoneyWorld>>;

export function auth(u: TestUser) {
  return { headers: u.headers };
}

/** The sandbox charge id (gateway ref) of a payment. */
export async function chargeOf(db: DbOrTrx, paymentId: string): Promise<{ id: string; paymentId: string; amount: number; currency: string }> {
  return db.selectFrom('sandboxCharges').select(['id', 'paymentId', 'amount', 'currency']).where('paymentId', '=', paymentId).executeTakeFirstOrThrow();
}

/** A sandbox provider event, signed with the provider's secret (or forged with another one). */
export function sandboxEvent(
  t: TestApp,
  type: string,
  charge: { id: string; paymentId: string; amount: number; currency: string },
  o: { id?: string; secret?: string; timestamp?: number; tamper?: boolean } = {},
) {
  const body = JSON.stringify({
    id: o.id ?? `evt_${newId()}`,
    type,
    data: { chargeId: charge.id, paymentId: charge.paymentId, amount: charge.amount, currency: charge.currency },
  });
  const signature = signPayload(o.secret ?? sandboxWebhookSecret(t.config.appSecret), body, o.timestamp);
  return { body: o.tamper ? body.replace('"amount":', '"amount": ') : body, headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signature } };
}

export async function postWebhook(t: TestApp, e: { body: string; headers: Record<string, string> }, gateway = 'sandbox') {
  return t.api(`/payment/webhooks/${gateway}`, { method: 'POST', headers: e.headers, body: e.body });
}

/** The buyer clicks Approve / Decline / Cancel on the sandbox page (the provider then posts its webhook). */
export async function payWithSandbox(t: TestApp, who: TestUser, redirectUrl: string, outcome: 'approve' | 'decline' | 'cancel' = 'approve') {
  const chargeId = redirectUrl.split('/').pop()!;
  return t.api(`/payment/sandbox/${chargeId}/complete`, { method: 'POST', headers: who.headers, json: { outcome } });
}

/** The ledger: what was paid and not reversed, and the earnings rows (credits and reversals). */
export async function ledger(db: DbOrTrx) {
  // Kept by the site: what successful payments took, less what partial refunds gave back.
  const paid = await db.selectFrom('payments').select(sql<number | string | null>`sum(amount - refunded_amount)`.as('s')).where('status', '=', 'success').executeTakeFirst();
  const e = await db
    .selectFrom('earnings')
    .select([sql<number | string | null>`sum(gross)`.as('gross'), sql<number | string | null>`sum(net)`.as('net'), sql<number | string | null>`sum(commission)`.as('commission')])
    .executeTakeFirst();
  return { paid: Number(paid?.s ?? 0), gross: Number(e?.gross ?? 0), net: Number(e?.net ?? 0), commission: Number(e?.commission ?? 0) };
}

/**
 * Moves a fan's subscription to a performer, its payments and its sandbox billing `ms` into the past, as if bought
 * that much earlier (the period is what the paid payments add up to, so they move too). Lets a test reach the end of
 * a period while the paywall reads the real time.
 */
export async function ageSubscription(db: DbOrTrx, userId: string, performerId: string, ms: number): Promise<void> {
  const back = (iso: string | null) => (iso ? new Date(Date.parse(iso) - ms).toISOString() : null);
  const sub = await db.selectFrom('subscriptions').selectAll().where('userId', '=', userId).where('performerId', '=', performerId).executeTakeFirstOrThrow();
  await db.updateTable('subscriptions').set({ startedAt: back(sub.startedAt), expiresAt: back(sub.expiresAt) }).where('id', '=', sub.id).execute();
  for (const p of await db.selectFrom('payments').select(['id', 'paidAt']).where('userId', '=', userId).where('performerId', '=', performerId).execute()) {
    await db.updateTable('payments').set({ paidAt: back(p.paidAt) }).where('id', '=', p.id).execute();
  }
  if (!sub.gatewaySubscriptionId) return;
  const billing = await db.selectFrom('sandboxSubscriptions').selectAll().where('id', '=', sub.gatewaySubscriptionId).executeTakeFirst();
  if (billing) {
    await db.updateTable('sandboxSubscriptions').set({ periodEnd: back(billing.periodEnd)!, nextChargeAt: back(billing.nextChargeAt)! }).where('id', '=', billing.id).execute();
  }
}

/** The fan's subscription to a performer (the row must exist). */
export function subscriptionOf(db: DbOrTrx, userId: string, performerId: string) {
  return db.selectFrom('subscriptions').selectAll().where('userId', '=', userId).where('performerId', '=', performerId).executeTakeFirstOrThrow();
}

/** The sandbox provider's billing of a fan's recurring subscription to a performer. */
export async function sandboxBillingOf(db: DbOrTrx, userId: string, performerId: string) {
  const sub = await subscriptionOf(db, userId, performerId);
  return db.selectFrom('sandboxSubscriptions').selectAll().where('id', '=', sub.gatewaySubscriptionId!).executeTakeFirstOrThrow();
}

/** Ages a fan's subscription (see ageSubscription) so its paid period ends `ago` ms before now (negative: after now). */
export async function endPeriodAgo(db: DbOrTrx, userId: string, performerId: string, ago: number): Promise<void> {
  const sub = await subscriptionOf(db, userId, performerId);
  await ageSubscription(db, userId, performerId, Date.parse(sub.expiresAt!) - Date.now() + ago);
}

/** A subscription checkout (`body` of POST /payment/subscribe) answered 201, then approved on the sandbox's page. */
export async function subscribeWithSandbox(t: TestApp, fan: TestUser, body: { performerId: string; type: 'monthly' | 'yearly'; couponCode?: string }) {
  const res = await t.api('/payment/subscribe', { method: 'POST', headers: fan.headers, json: body });
  if (res.status !== 201) throw new Error(`subscribe answered ${res.status}: ${JSON.stringify(res.body)}`);
  const paid = await payWithSandbox(t, fan, res.body.redirectUrl);
  if (paid.status !== 200) throw new Error(`the sandbox's Approve answered ${paid.status}: ${JSON.stringify(paid.body)}`);
  return res.body as { paymentId: string; amount: number };
}
