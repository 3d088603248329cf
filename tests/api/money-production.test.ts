import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import type { TestUser } from '../helpers/sessions.js';
import { buildMoneyWorld, chargeOf, payWithSandbox, postWebhook, sandboxEvent, type MoneyWorld } from '../helpers/money-fixture.js';
import { startServerProcess } from '../helpers/server-process.js';
import { newId, nowIso } from '../../server/db/ids.js';
import type { DbOrTrx } from '../../server/db/database.js';
import { loadConfig } from '../../server/config.js';

/**
 * The sandbox gateway lets buyers approve their own payments, so a live site must not take money through it:
 * with NODE_ENV=production it refuses checkouts, its hosted page's completions, its back office and its webhooks,
 * and the admin cannot pick it, unless SANDBOX_PAYMENTS=1 (staging). Whatever it takes is test money: listed,
 * never owed, never paid out. SANDBOX_PAYMENTS=1 with the default APP_SECRET does not start.
 */

// SMTP_URL: production refuses to start without a mail server (nothing here sends mail).
const smtp = 'smtp://127.0.0.1:9';
const production = { NODE_ENV: 'production', SMTP_URL: smtp, APP_SECRET: 'a-long-random-production-secret-0123456789', LOG_LEVEL: 'silent', PAGE_CACHE_MS: '0', LIST_COUNT_CACHE_MS: '0' };

const count = async (db: DbOrTrx, table: 'payments' | 'sandboxCharges' | 'earnings' | 'orders' | 'subscriptions' | 'webhookEvents') =>
  Number((await db.selectFrom(table).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);

/** A pending sandbox checkout left over from before (inserted as checkout would): payment, item and provider charge. */
async function leftoverSandboxCheckout(db: DbOrTrx, buyer: TestUser, performerId: string, videoId: string) {
  const paymentId = newId();
  const chargeId = `sbx_${newId()}`;
  const now = nowIso();
  const expiresAt = new Date(Date.now() + 30 * 60_000).toISOString();
  await db
    .insertInto('payments')
    .values({
      id: paymentId, userId: buyer.id, performerId, type: 'video', status: 'pending', gateway: 'sandbox', gatewayRef: chargeId, targetId: videoId, originalPrice: 1299,
      amount: 1299, currency: 'USD', expiresAt, createdAt: now, updatedAt: now,
    })
    .execute();
  await db.insertInto('paymentItems').values({ id: newId(), paymentId, objectType: 'video', objectId: videoId, performerId, quantity: 1, unitPrice: 1299, discount: 0 }).execute();
  await db
    .insertInto('sandboxCharges')
    .values({ id: chargeId, paymentId, amount: 1299, currency: 'USD', description: 'left over', status: 'pending', returnUrl: 'http://x/', expiresAt, createdAt: now, updatedAt: now })
    .execute();
  return { paymentId, chargeId };
}

describe('start-up', () => {
  it('SANDBOX_PAYMENTS=1 with the default (or an empty) APP_SECRET refuses to start, with a clear message', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-secret-'));
    try {
      // The real server process: it exits before listening.
      await expect(startServerProcess({ NODE_ENV: 'production', SMTP_URL: smtp, SANDBOX_PAYMENTS: '1', APP_SECRET: '', DATA_DIR: dataDir, SERVE_WEB: '0' }, { timeoutMs: 90_000 })).rejects.toThrow(
        /exited with 1[\s\S]*SANDBOX_PAYMENTS=1 needs APP_SECRET/,
      );
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    // Wherever the flag is set, not only in production; with a real secret it starts.
    expect(() => loadConfig({ NODE_ENV: 'development', SANDBOX_PAYMENTS: '1' })).toThrow(/SANDBOX_PAYMENTS=1 needs APP_SECRET/);
    expect(() => loadConfig({ NODE_ENV: 'production', SMTP_URL: smtp, SANDBOX_PAYMENTS: '1', APP_SECRET: 'dev-only-secret-change-me' })).toThrow(/SANDBOX_PAYMENTS=1 needs APP_SECRET/);
    expect(loadConfig({ NODE_ENV: 'production', SMTP_URL: smtp, SANDBOX_PAYMENTS: '1', APP_SECRET: 'staging-secret-xyz' }).sandboxPayments).toBe(true);
    expect(() => loadConfig({ NODE_ENV: 'production', SMTP_URL: smtp, APP_SECRET: '' })).toThrow(/APP_SECRET must be set in production/);
  }, 120_000);
});

describe.each(engines)('production money on %s', (engine) => {
  describe('NODE_ENV=production: the sandbox is switched off', () => {
    let t: TestApp;
    let w: MoneyWorld;
    const post = (p: string, who: TestUser, json: unknown = {}) => t.api(p, { method: 'POST', headers: who.headers, json });

    beforeAll(async () => {
      t = await startTestApp(engine, { env: production });
      w = await buildMoneyWorld(t.ctx);
    }, 60_000);
    afterAll(async () => {
      await t?.close();
    });

    it('refuses every checkout with 403 SANDBOX_DISABLED and writes nothing', async () => {
      const stock = async () => (await t.ctx.db.selectFrom('products').select('stock').where('id', '=', w.products.mug.id).executeTakeFirstOrThrow()).stock;
      const before = await stock();
      const answers = [
        await post('/payment/subscribe', w.fan, { performerId: w.perf.id, type: 'monthly' }),
        await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, w.fan),
        await post('/payment/purchase-products', w.fan, { items: [{ _id: w.products.mug.id, quantity: 1 }], shippingAddress: '1 Live Street' }),
      ];
      for (const res of answers) expect(res.body, JSON.stringify(res.body)).toMatchObject({ code: 'SANDBOX_DISABLED' });
      expect(answers.map((r) => r.status)).toEqual([403, 403, 403]);
      expect(await stock()).toBe(before);
      for (const table of ['payments', 'sandboxCharges', 'orders', 'subscriptions'] as const) expect(await count(t.ctx.db, table), table).toBe(0);
    });

    it('refuses the hosted page, its completion, the back office and signed webhooks; the payment stays unpaid', async () => {
      const left = await leftoverSandboxCheckout(t.ctx.db, w.fan, w.perf.id, w.videos.saleVideo.id);
      const complete = await payWithSandbox(t, w.fan, `/payments/sandbox/${left.chargeId}`);
      expect(complete.status).toBe(403);
      expect(complete.body.code).toBe('SANDBOX_DISABLED');
      // A correctly signed provider event is refused all the same: nothing recorded, nothing paid.
      const event = sandboxEvent(t, 'charge.succeeded', await chargeOf(t.ctx.db, left.paymentId));
      const hook = await postWebhook(t, event);
      expect(hook.status).toBe(403);
      expect(hook.body.code).toBe('SANDBOX_DISABLED');
      const reverse = await post(`/payment/sandbox/${left.chargeId}/reverse`, w.admin, { kind: 'refunded' });
      expect(reverse.status).toBe(403);
      const payment = await t.ctx.db.selectFrom('payments').select('status').where('id', '=', left.paymentId).executeTakeFirstOrThrow();
      expect(payment.status).toBe('pending');
      expect((await t.ctx.db.selectFrom('sandboxCharges').select('status').where('id', '=', left.chargeId).executeTakeFirstOrThrow()).status).toBe('pending');
      expect(await count(t.ctx.db, 'earnings')).toBe(0);
      expect(await count(t.ctx.db, 'webhookEvents')).toBe(0);
      expect((await t.ctx.db.selectFrom('entitlements').select('userId').where('userId', '=', w.fan.id).execute()).length).toBe(0);
    });

    it('the admin cannot choose the sandbox; Stripe can be chosen', async () => {
      const view = await t.api('/admin/settings', { headers: w.admin.headers });
      expect(view.body.payment).toMatchObject({ sandboxAvailable: false });
      const refused = await t.api('/admin/settings/payment', { method: 'PUT', headers: w.admin.headers, json: { paymentGateway: 'sandbox' } });
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('SANDBOX_DISABLED');
      const stripe = await t.api('/admin/settings/payment', { method: 'PUT', headers: w.admin.headers, json: { paymentGateway: 'stripe' } });
      expect(stripe.status).toBe(200);
      expect(stripe.body.paymentGateway).toBe('stripe');
      const back = await t.api('/admin/settings/payment', { method: 'PUT', headers: w.admin.headers, json: { paymentGateway: 'sandbox' } });
      expect(back.status).toBe(400);
      expect((await t.api('/admin/settings', { headers: w.admin.headers })).body.payment.paymentGateway).toBe('stripe');
    });
  });

  describe('SANDBOX_PAYMENTS=1 (staging): the sandbox works, its money is test money', () => {
    let t: TestApp;
    let w: MoneyWorld;
    const post = (p: string, who: TestUser, json: unknown = {}) => t.api(p, { method: 'POST', headers: who.headers, json });
    const get = (p: string, who: TestUser) => t.api(p, { headers: who.headers });

    beforeAll(async () => {
      t = await startTestApp(engine, { env: { ...production, SANDBOX_PAYMENTS: '1' } });
      w = await buildMoneyWorld(t.ctx);
    }, 60_000);
    afterAll(async () => {
      await t?.close();
    });

    it('takes a payment whose earnings are marked test money, shown as test and never payable', async () => {
      const c = await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, w.fan);
      expect(c.status, JSON.stringify(c.body)).toBe(201);
      expect((await payWithSandbox(t, w.fan, c.body.redirectUrl)).status).toBe(200);
      const earnings = await t.ctx.db.selectFrom('earnings').selectAll().where('performerId', '=', w.perf.id).execute();
      expect(earnings).toHaveLength(1);
      expect(earnings[0]!.testMoney).toBe(1);
      const net = earnings[0]!.net;
      expect(net).toBeGreaterThan(0);

      // The performer sees it as test money, nothing owed.
      const stats = await get('/earning/performer/stats', w.perf);
      expect(stats.body.totals).toMatchObject({ net, test: net, unpaid: 0, paid: 0 });
      expect((await get('/earning/performer/search', w.perf)).body.items[0]).toMatchObject({ net, test: true });
      // The admin too: listed apart, not owed, and no payout can include it.
      const byPerformer = (await get(`/admin/earnings?q=${w.perf.username}`, w.admin)).body.items[0];
      expect(byPerformer).toMatchObject({ net, testNet: net, unpaidNet: 0, paidNet: 0 });
      expect((await get(`/admin/earnings/search?performerId=${w.perf.id}`, w.admin)).body.items[0]).toMatchObject({ test: true, isPaid: false });
      const dashboard = await get('/admin/dashboard', w.admin);
      expect(dashboard.status).toBe(200);
      expect(dashboard.body.counts.unpaidEarnings).toBe(0);
      const payout = await post('/admin/earnings/payout', w.admin, { performerId: w.perf.id });
      expect(payout.status).toBe(400);
      expect(payout.body.code).toBe('NOTHING_TO_PAY');
      expect((await t.ctx.db.selectFrom('earnings').select('isPaid').where('performerId', '=', w.perf.id).executeTakeFirstOrThrow()).isPaid).toBe(0);
    });

    it('a payout pays the real earnings only, leaving the test money unpaid', async () => {
      // A real (Stripe) payment's earning next to the sandbox one.
      const paymentId = newId();
      const now = nowIso();
      await t.ctx.db
        .insertInto('payments')
        .values({ id: paymentId, userId: w.fan2.id, performerId: w.perf.id, type: 'video', status: 'success', gateway: 'stripe', gatewayRef: `cs_${paymentId}`, targetId: null, originalPrice: 1000, amount: 1000, currency: 'USD', paidAt: now, createdAt: now, updatedAt: now })
        .execute();
      await t.ctx.db
        .insertInto('earnings')
        .values({ id: newId(), paymentId, paymentItemId: newId(), performerId: w.perf.id, userId: w.fan2.id, sourceType: 'video', gross: 1000, commission: 200, net: 800, commissionBps: 2000, createdAt: now })
        .execute();
      expect((await get(`/admin/earnings?q=${w.perf.username}`, w.admin)).body.items[0]).toMatchObject({ unpaidNet: 800 });
      expect((await get('/earning/performer/stats', w.perf)).body.totals.unpaid).toBe(800);
      const payout = await post('/admin/earnings/payout', w.admin, { performerId: w.perf.id });
      expect(payout.status, JSON.stringify(payout.body)).toBe(201);
      expect(payout.body).toMatchObject({ amount: 800, earningsCount: 1 });
      const rows = await t.ctx.db.selectFrom('earnings').select(['testMoney', 'isPaid']).where('performerId', '=', w.perf.id).orderBy('testMoney').execute();
      expect(rows).toEqual([{ testMoney: 0, isPaid: 1 }, { testMoney: 1, isPaid: 0 }]);
    });

    it('the admin may choose the sandbox here', async () => {
      const res = await t.api('/admin/settings/payment', { method: 'PUT', headers: w.admin.headers, json: { paymentGateway: 'sandbox' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ paymentGateway: 'sandbox', sandboxAvailable: true });
    });
  });
});
