import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { makeProduct, makeVerification, makeVideo } from '../../server/seed/factories.js';
import { loadConfig } from '../../server/config.js';
import { openDatabase } from '../../server/db/database.js';
import { buildApp, type BuiltApp } from '../../server/app.js';
import { newId, nowIso } from '../../server/db/ids.js';
import { hashToken } from '../../server/auth/tokens.js';
import { adminRouteTable } from '../../server/admin/admin.routes.js';
import { createOrPromoteAdmin } from '../../server/admin/cli/create-admin.js';
import { decryptSecret } from '../../server/settings/secrets.js';
import { LINK_MESSAGE } from '../../common/links.js';

const png = () => sharp({ create: { width: 80, height: 40, channels: 3, background: '#3366ff' } }).png().toBuffer();
function imageForm(bytes: Buffer): FormData {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'x.png');
  return form;
}

/** A request as one of the four roles (undefined = guest). */
type As = TestUser | undefined;
interface Sample {
  path: string;
  json?: unknown;
  form?: () => Promise<FormData>;
}

describe.each(engines)('admin console API on %s', (engine) => {
  let t: TestApp;
  let admin: TestUser;
  let fan: TestUser;
  let performer: TestUser;
  const call = (as: As, method: string, p: string, init: { json?: unknown; body?: FormData } = {}) =>
    t.api(p, { method, headers: as ? as.headers : {}, ...(init.json !== undefined ? { json: init.json } : {}), ...(init.body ? { body: init.body } : {}) });
  const auditCount = async (action: string) =>
    Number((await t.ctx.db.selectFrom('auditLog').select(sql<number>`count(*)`.as('n')).where('action', '=', action).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    t = await startTestApp(engine);
    admin = await createUser(t.ctx.db, 'admin');
    fan = await createUser(t.ctx.db, 'user');
    performer = await createUser(t.ctx.db, 'performer');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  /** Inserts a paid payment with one unpaid earning of `net` for the performer; returns the payment id. */
  async function paidPayment(performerId: string, net: number, userId = fan.id) {
    const id = newId();
    const now = nowIso();
    await t.ctx.db
      .insertInto('payments')
      .values({ id, userId, performerId, type: 'video', status: 'success', gateway: 'sandbox', gatewayRef: null, targetId: null, originalPrice: net * 2, amount: net * 2, currency: 'USD', createdAt: now, updatedAt: now, paidAt: now })
      .execute();
    await t.ctx.db
      .insertInto('earnings')
      .values({ id: newId(), paymentId: id, performerId, userId, sourceType: 'video', gross: net * 2, commission: net, net, commissionBps: 5000, createdAt: now, paymentItemId: newId() })
      .execute();
    return id;
  }

  /** Inserts a paid payment (no earnings) with one order of the performer's; returns the order id. */
  async function paidOrder(status: 'paid' | 'pending' = 'paid') {
    const paymentId = newId();
    const id = newId();
    const now = nowIso();
    await t.ctx.db
      .insertInto('payments')
      .values({ id: paymentId, userId: fan.id, performerId: performer.id, type: 'products', status: status === 'paid' ? 'success' : 'pending', gateway: 'sandbox', gatewayRef: null, targetId: null, originalPrice: 1500, amount: 1500, currency: 'USD', createdAt: now, updatedAt: now, paidAt: status === 'paid' ? now : null })
      .execute();
    await t.ctx.db
      .insertInto('orders')
      .values({ id, orderNumber: `ORD-${id.slice(-8)}`, paymentId, buyerId: fan.id, performerId: performer.id, status, deliveryStatus: 'created', shippingAddress: '1 Test Road', trackingCode: null, totalPrice: 1500, createdAt: now, updatedAt: now })
      .execute();
    return id;
  }

  it('PUT /admin/orders/{id}/delivery updates a paid order with an audit entry; an unpaid one is 409 and changes nothing', async () => {
    const order = await paidOrder();
    const before = await auditCount('order.delivery');
    const res = await call(admin, 'PUT', `/admin/orders/${order}/delivery`, { json: { deliveryStatus: 'shipping', trackingCode: 'ADM-1' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: order, deliveryStatus: 'shipping', trackingCode: 'ADM-1', status: 'paid' });
    expect(await auditCount('order.delivery')).toBe(before + 1);
    const pending = await paidOrder('pending');
    expect((await call(admin, 'PUT', `/admin/orders/${pending}/delivery`, { json: { deliveryStatus: 'delivered' } })).status).toBe(409);
    expect((await call(admin, 'PUT', `/admin/orders/${order}/delivery`, { json: {} })).status).toBe(400);
    expect((await call(admin, 'PUT', `/admin/orders/nope/delivery`, { json: { trackingCode: 'x' } })).status).toBe(404);
    expect(await auditCount('order.delivery')).toBe(before + 1);
    const row = await t.ctx.db.selectFrom('orders').select(['deliveryStatus']).where('id', '=', pending).executeTakeFirstOrThrow();
    expect(row.deliveryStatus).toBe('created');
  });

  it('enforces the admin role on EVERY admin route: guest 401, fan 403, performer 403, admin 2xx', async () => {
    const routes = adminRouteTable.get(t.ctx)!;
    expect(routes.length).toBeGreaterThan(30);
    // Fixtures for the admin's successful calls (each destructive call gets its own target).
    const victim = await createUser(t.ctx.db, 'user');
    const toReactivate = await createUser(t.ctx.db, 'user', { status: 'suspended' });
    const owed = await createUser(t.ctx.db, 'performer');
    await paidPayment(owed.id, 700);
    const refundable = await paidPayment(performer.id, 100);
    const video = await makeVideo({ db: t.ctx.db, storage: t.ctx.storage }, performer.id, { withFiles: false });
    // Two new performers' verifications waiting for review: one to approve, one to reject.
    const pendingVerification = async () =>
      (await makeVerification(t.ctx.db, (await createUser(t.ctx.db, 'performer', { performer: { approved: 0 } })).id, { status: 'pending', decidedAt: null, seeded: 0 })).id;
    const toVerify = await pendingVerification();
    const toRefuse = await pendingVerification();
    // A guest's takedown request hides a video, which the admin then upholds.
    const takenDown = await makeVideo({ db: t.ctx.db, storage: t.ctx.storage }, performer.id, { withFiles: false });
    const filed = await call(undefined, 'POST', '/takedowns', {
      json: { url: `/videos/${takenDown.id}`, name: 'Dana Depicted', email: 'dana@example.org', relationship: 'depicted', statement: 'This shows me and I never agreed to it.', declaration: true },
    });
    expect(filed.status, JSON.stringify(filed.body)).toBe(201);
    // Turning the watermark on starts a run, which the admin then reads.
    const watermarkOn = await call(admin, 'PUT', '/admin/settings/watermark', { json: { watermarkEnabled: true } });
    expect(watermarkOn.body.runId, JSON.stringify(watermarkOn.body)).toEqual(expect.any(String));
    const watermarkRun: string = watermarkOn.body.runId;
    const mk = async (p: string, json: unknown) => (await call(admin, 'POST', p, { json })).body._id as string;
    const banner = await mk('/admin/banners', { title: 'B' });
    const bannerDel = await mk('/admin/banners', { title: 'Del' });
    const category = await mk('/admin/categories', { name: 'Cat one', group: 'video' });
    const categoryDel = await mk('/admin/categories', { name: 'Cat del', group: 'video' });
    const coupon = await mk('/admin/coupons', { name: 'C', code: 'ROLE1', valueBps: 1000, maxUses: 5 });
    const couponDel = await mk('/admin/coupons', { name: 'C', code: 'ROLE2', valueBps: 1000, maxUses: 5 });
    const pkg = await mk('/admin/packages', { name: 'P', type: 'monthly', price: 999, durationDays: 30 });
    const pkgDel = await mk('/admin/packages', { name: 'P2', type: 'yearly', price: 9999, durationDays: 365 });
    await call(admin, 'POST', '/admin/country-blocks', { json: { countryCode: 'KP' } });
    const commentId = newId();
    await t.ctx.db
      .insertInto('comments')
      .values({ id: commentId, objectType: 'video', objectId: video.id, userId: fan.id, content: 'rude', imageFileId: null, createdAt: nowIso(), updatedAt: nowIso() })
      .execute();
    // A report of the video, which the admin dismisses.
    await t.ctx.db
      .insertInto('reports')
      .values({ id: newId(), reporterId: victim.id, targetType: 'video', targetId: video.id, reason: 'spam', details: null, status: 'open', outcome: null, createdAt: nowIso(), resolvedAt: null, resolvedBy: null })
      .execute();
    const image = await png();
    const order = await paidOrder();
    /** A performer with payout details and a sale past the hold, who requests a payout of it: the payout's id. */
    const payoutRequest = async () => {
      const p = await createUser(t.ctx.db, 'performer');
      expect((await call(p, 'PUT', '/performer/payout-details', { json: { method: 'paypal', paypalEmail: `${p.username}@example.com` } })).status).toBe(200);
      const paymentId = await paidPayment(p.id, 6000);
      const sold = new Date(Date.now() - 30 * 86_400_000).toISOString();
      await t.ctx.db.updateTable('earnings').set({ createdAt: sold }).where('paymentId', '=', paymentId).execute();
      const res = await call(p, 'POST', '/performer/payouts');
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body._id as string;
    };
    const [toApprove, toReject, toPay, toReveal] = [await payoutRequest(), await payoutRequest(), await payoutRequest(), await payoutRequest()];
    // A consent record to refuse: the performer names another performer on the video.
    const named = await call(performer, 'POST', `/performer/co-performers/video/${video.id}`, { json: { username: owed.username } });
    expect(named.status, JSON.stringify(named.body)).toBe(201);
    const consentRecord = named.body.items[0]._id as string;

    const samples: Record<string, Sample> = {
      'GET /admin/settings': { path: '/admin/settings' },
      'PUT /admin/settings': { path: '/admin/settings', json: { siteName: 'Role site' } },
      'PUT /admin/settings/payment': { path: '/admin/settings/payment', json: { checkoutExpiryMinutes: 20 } },
      'POST /admin/settings/images/:kind': { path: '/admin/settings/images/logo', form: async () => imageForm(image) },
      'GET /admin/banners': { path: '/admin/banners' },
      'POST /admin/banners': { path: '/admin/banners', json: { title: 'Another' } },
      'PUT /admin/banners/:id': { path: `/admin/banners/${banner}`, json: { title: 'Renamed' } },
      'DELETE /admin/banners/:id': { path: `/admin/banners/${bannerDel}` },
      'POST /admin/banners/:id/image': { path: `/admin/banners/${banner}/image`, form: async () => imageForm(image) },
      'GET /admin/categories': { path: '/admin/categories' },
      'POST /admin/categories': { path: '/admin/categories', json: { name: 'Cat two', group: 'gallery' } },
      'PUT /admin/categories/:id': { path: `/admin/categories/${category}`, json: { ordering: 3 } },
      'DELETE /admin/categories/:id': { path: `/admin/categories/${categoryDel}` },
      'GET /admin/country-blocks': { path: '/admin/country-blocks' },
      'POST /admin/country-blocks': { path: '/admin/country-blocks', json: { countryCode: 'cu' } },
      'DELETE /admin/country-blocks/:code': { path: '/admin/country-blocks/KP' },
      'GET /admin/coupons': { path: '/admin/coupons' },
      'POST /admin/coupons': { path: '/admin/coupons', json: { name: 'C3', code: 'ROLE3', valueBps: 500, maxUses: 1 } },
      'PUT /admin/coupons/:id': { path: `/admin/coupons/${coupon}`, json: { status: 'inactive' } },
      'DELETE /admin/coupons/:id': { path: `/admin/coupons/${couponDel}` },
      'GET /admin/packages': { path: '/admin/packages' },
      'POST /admin/packages': { path: '/admin/packages', json: { name: 'P3', type: 'weekly', price: 299, durationDays: 7 } },
      'PUT /admin/packages/:id': { path: `/admin/packages/${pkg}`, json: { price: 1099 } },
      'DELETE /admin/packages/:id': { path: `/admin/packages/${pkgDel}` },
      'PUT /admin/performers/:id/commission': { path: `/admin/performers/${performer.id}/commission`, json: { commissionBps: 1500 } },
      'GET /admin/users': { path: '/admin/users?q=user' },
      'POST /admin/users/:id/suspend': { path: `/admin/users/${victim.id}/suspend`, json: { reason: 'spam' } },
      'POST /admin/users/:id/reactivate': { path: `/admin/users/${toReactivate.id}/reactivate`, json: {} },
      'GET /admin/performers': { path: '/admin/performers' },
      'POST /admin/performers/:id/approve': { path: `/admin/performers/${performer.id}/approve`, json: { approved: true } },
      'GET /admin/content': { path: '/admin/content?type=video' },
      'PUT /admin/content/:type/:id/status': { path: `/admin/content/video/${video.id}/status`, json: { status: 'hidden' } },
      'GET /admin/comments': { path: '/admin/comments' },
      'DELETE /admin/comments/:id': { path: `/admin/comments/${commentId}` },
      'GET /admin/payments': { path: '/admin/payments?status=success' },
      'POST /admin/payments/:id/refund': { path: `/admin/payments/${refundable}/refund` },
      'GET /admin/orders': { path: '/admin/orders' },
      'PUT /admin/orders/:id/delivery': { path: `/admin/orders/${order}/delivery`, json: { deliveryStatus: 'processing' } },
      'GET /admin/earnings': { path: '/admin/earnings' },
      'GET /admin/earnings/search': { path: `/admin/earnings/search?performerId=${owed.id}` },
      'GET /admin/payouts': { path: '/admin/payouts' },
      'POST /admin/earnings/payout': { path: '/admin/earnings/payout', json: { performerId: owed.id } },
      'GET /admin/payout-requests': { path: '/admin/payout-requests?status=open' },
      'POST /admin/payout-requests/:id/approve': { path: `/admin/payout-requests/${toApprove}/approve` },
      'POST /admin/payout-requests/:id/reject': { path: `/admin/payout-requests/${toReject}/reject`, json: { reason: 'Wrong account' } },
      'POST /admin/payout-requests/:id/paid': { path: `/admin/payout-requests/${toPay}/paid`, json: { reference: 'REF-1' } },
      'POST /admin/payout-requests/:id/reveal': { path: `/admin/payout-requests/${toReveal}/reveal` },
      'GET /admin/dashboard': { path: '/admin/dashboard' },
      'GET /admin/audit': { path: '/admin/audit' },
      'GET /admin/reports': { path: '/admin/reports?status=open' },
      'POST /admin/reports/:targetType/:targetId/resolve': { path: `/admin/reports/video/${video.id}/resolve`, json: { action: 'dismiss' } },
      'GET /admin/verifications': { path: '/admin/verifications?status=pending' },
      'GET /admin/verifications/:id': { path: `/admin/verifications/${toVerify}` },
      'POST /admin/verifications/:id/approve': { path: `/admin/verifications/${toVerify}/approve` },
      'POST /admin/verifications/:id/reject': { path: `/admin/verifications/${toRefuse}/reject`, json: { reason: 'Unreadable document' } },
      'GET /admin/consent': { path: '/admin/consent' },
      'POST /admin/consent/:id/refuse': { path: `/admin/consent/${consentRecord}/refuse` },
      'GET /admin/takedowns': { path: '/admin/takedowns' },
      'POST /admin/takedowns/:targetType/:targetId/resolve': { path: `/admin/takedowns/video/${takenDown.id}/resolve`, json: { action: 'uphold' } },
      'GET /admin/watermarks': { path: '/admin/watermarks' },
      'PUT /admin/settings/watermark': { path: '/admin/settings/watermark', json: { watermarkOpacity: 50 } },
      'POST /admin/watermarks/runs': { path: '/admin/watermarks/runs' },
      'GET /admin/watermarks/runs/:id': { path: `/admin/watermarks/runs/${watermarkRun}` },
    };
    const keys = routes.map((r) => `${r.method} ${r.url.replace(/^\/api/, '')}`);
    // Every registered admin route has a sample (a new route without one fails here), and no sample is stale.
    expect(keys.filter((k) => !samples[k])).toEqual([]);
    expect(Object.keys(samples).filter((k) => !keys.includes(k))).toEqual([]);

    const table: string[] = [];
    for (const key of keys) {
      const method = key.split(' ')[0]!;
      const s = samples[key]!;
      for (const [who, as, expected] of [['guest', undefined, 401], ['fan', fan, 403], ['performer', performer, 403]] as const) {
        const res = await call(as, method, s.path, { json: s.json, body: s.form ? await s.form() : undefined });
        if (res.status !== expected) table.push(`${who} ${key}: ${res.status}`);
      }
    }
    for (const key of keys) {
      const method = key.split(' ')[0]!;
      const s = samples[key]!;
      const res = await call(admin, method, s.path, { json: s.json, body: s.form ? await s.form() : undefined });
      if (res.status < 200 || res.status >= 300) table.push(`admin ${key}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(table).toEqual([]);
  }, 120_000);

  it('answers bad inputs with 400 and changes nothing', async () => {
    const before = await call(admin, 'GET', '/admin/settings');
    const bad: Array<[string, string, unknown]> = [
      ['PUT', '/admin/settings', {}],
      ['PUT', '/admin/settings', { siteName: '' }],
      ['PUT', '/admin/settings', { currency: 'dollars' }],
      ['PUT', '/admin/settings', { menus: [{ title: 'X', path: 'javascript:alert(1)', section: 'header' }] }],
      ['PUT', '/admin/settings', { menus: [{ title: 'X', path: '/x', section: 'sidebar' }] }],
      ['PUT', '/admin/settings', { maintenanceMode: 'yes' }],
      ['PUT', '/admin/settings', { siteName: 'Ok', unknownKey: 1 }],
      ['PUT', '/admin/settings', { commissionBps: 10_001 }],
      ['PUT', '/admin/settings/payment', { paymentGateway: 'paypal' }],
      ['POST', '/admin/coupons', { name: 'x', code: 'a b', valueBps: 100, maxUses: 1 }],
      ['POST', '/admin/coupons', { name: 'x', code: 'GOOD', valueBps: 0, maxUses: 1 }],
      ['POST', '/admin/coupons', { name: 'x', code: 'GOOD', valueBps: 100, maxUses: 1, expiresAt: 'tomorrow' }],
      ['POST', '/admin/categories', { name: 'x', group: 'nope' }],
      ['POST', '/admin/packages', { name: 'x', type: 'monthly', price: -1, durationDays: 30 }],
      ['POST', '/admin/country-blocks', { countryCode: 'XX' }],
      ['POST', '/admin/banners', { title: 'x', link: 'javascript:alert(1)' }],
      ['PUT', `/admin/performers/${performer.id}/commission`, { commissionBps: 'half' }],
      ['PUT', `/admin/content/post/whatever/status`, { status: 'active' }],
      ['POST', '/admin/earnings/payout', { performerId: performer.id, extra: true }],
    ];
    const audits = Number((await t.ctx.db.selectFrom('auditLog').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);
    for (const [method, p, json] of bad) {
      const res = await call(admin, method, p, { json });
      expect(res.status, `${method} ${p} ${JSON.stringify(json)}`).toBe(400);
    }
    // Not an image, and a query out of range.
    expect((await call(admin, 'POST', '/admin/settings/images/favicon', { body: imageForm(Buffer.from('not an image at all')) })).status).toBe(400);
    expect((await call(admin, 'GET', '/admin/payments?limit=1000')).status).toBe(400);
    expect((await call(admin, 'POST', `/admin/users/${admin.id}/suspend`, { json: {} })).status).toBe(400);
    expect((await call(admin, 'GET', '/admin/settings')).body).toEqual(before.body);
    expect(Number((await t.ctx.db.selectFrom('auditLog').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n)).toBe(audits);
    // Unknown targets are 404, a duplicate code 409.
    expect((await call(admin, 'PUT', '/admin/banners/nope', { json: { title: 'x' } })).status).toBe(404);
    await call(admin, 'POST', '/admin/coupons', { json: { name: 'x', code: 'DUPE', valueBps: 100, maxUses: 1 } });
    expect((await call(admin, 'POST', '/admin/coupons', { json: { name: 'y', code: 'dupe', valueBps: 100, maxUses: 1 } })).status).toBe(409);
  });

  it('admin lists name what they refer to: buyers, performers and items beside their ids; the audit log its actor and target', async () => {
    const db = t.ctx.db;
    const buyer = await createUser(db, 'user', { name: 'Bea Buyer' });
    const star = await createUser(db, 'performer', { name: 'Stella Star' });
    const video = await makeVideo(t.ctx, star.id, { title: 'Named clip', access: 'sale', withFiles: false });
    const now = nowIso();
    // A video bought, and an order of a product (its payment lines name the product).
    const videoPayment = newId();
    const orderPayment = newId();
    const orderId = newId();
    const { id: productId } = await makeProduct(t.ctx, star.id, { name: 'Named mug', type: 'physical', price: 1500, stock: 3, publishedAt: now });
    await db
      .insertInto('payments')
      .values([
        { id: videoPayment, userId: buyer.id, performerId: star.id, type: 'video', status: 'success', gateway: 'sandbox', gatewayRef: null, targetId: video.id, originalPrice: 999, amount: 999, currency: 'USD', createdAt: now, updatedAt: now, paidAt: now },
        { id: orderPayment, userId: buyer.id, performerId: star.id, type: 'products', status: 'success', gateway: 'sandbox', gatewayRef: null, targetId: null, originalPrice: 3000, amount: 3000, currency: 'USD', createdAt: now, updatedAt: now, paidAt: now },
      ])
      .execute();
    await db.insertInto('paymentItems').values({ id: newId(), paymentId: orderPayment, objectType: 'product', objectId: productId, performerId: star.id, quantity: 2, unitPrice: 1500 }).execute();
    await db
      .insertInto('orders')
      .values({ id: orderId, orderNumber: `ORD-N${orderId.slice(-6)}`, paymentId: orderPayment, buyerId: buyer.id, performerId: star.id, status: 'paid', deliveryStatus: 'created', shippingAddress: '1 Road', trackingCode: null, totalPrice: 3000, createdAt: now, updatedAt: now })
      .execute();
    await db.insertInto('orderItems').values({ id: newId(), orderId, productId, name: 'Named mug', productType: 'physical', quantity: 2, unitPrice: 1500, totalPrice: 3000 }).execute();

    const orders = await call(admin, 'GET', `/admin/orders?buyerId=${buyer.id}`);
    expect(orders.status).toBe(200);
    expect(orders.body.items).toEqual([
      expect.objectContaining({
        _id: orderId, buyerId: buyer.id, performerId: star.id,
        buyer: { _id: buyer.id, username: buyer.username, name: 'Bea Buyer' },
        performer: { _id: star.id, username: star.username, name: 'Stella Star' },
        lines: [{ productId, name: 'Named mug', quantity: 2 }],
      }),
    ]);

    const payments = await call(admin, 'GET', `/admin/payments?userId=${buyer.id}`);
    expect(payments.status).toBe(200);
    const byId = new Map((payments.body.items as Array<{ _id: string }>).map((p) => [p._id, p]));
    expect(byId.get(videoPayment)).toMatchObject({
      user: { _id: buyer.id, name: 'Bea Buyer', username: buyer.username },
      performer: { _id: star.id, name: 'Stella Star' },
      items: [{ type: 'video', _id: video.id, title: 'Named clip' }],
    });
    expect(byId.get(orderPayment)).toMatchObject({ items: [{ type: 'product', _id: productId, title: 'Named mug' }] });

    const content = await call(admin, 'GET', `/admin/content?type=video&q=${encodeURIComponent('Named clip')}`);
    expect(content.body.items[0]).toMatchObject({ _id: video.id, title: 'Named clip', performer: { _id: star.id, username: star.username, name: 'Stella Star' } });

    const commentId = newId();
    await db.insertInto('comments').values({ id: commentId, objectType: 'video', objectId: video.id, userId: buyer.id, content: 'Lovely clip', imageFileId: null, createdAt: now, updatedAt: now }).execute();
    const comments = await call(admin, 'GET', '/admin/comments?q=lovely');
    expect(comments.body.items[0]).toMatchObject({ _id: commentId, user: { name: 'Bea Buyer' }, object: { type: 'video', _id: video.id, title: 'Named clip' } });

    // The audit log: the actor by name, the target by name; a deleted target keeps the name its entry recorded.
    const coupon = await call(admin, 'POST', '/admin/coupons', { json: { name: 'Named', code: 'NAMED15', valueBps: 1500, maxUses: 1 } });
    await call(admin, 'POST', `/admin/users/${buyer.id}/suspend`, { json: {} });
    await call(admin, 'POST', '/admin/country-blocks', { json: { countryCode: 'FR' } });
    await call(admin, 'DELETE', `/admin/coupons/${coupon.body._id}`);
    const audit = await call(admin, 'GET', '/admin/audit?limit=10');
    expect(audit.status).toBe(200);
    const entries = audit.body.items as Array<{ action: string; actor: unknown; target: unknown }>;
    const named = { _id: admin.id, username: admin.username, name: expect.any(String) };
    expect(entries.find((e) => e.action === 'coupon.delete')).toMatchObject({ actor: named, target: { type: 'coupon', _id: coupon.body._id, name: 'NAMED15', exists: false } });
    expect(entries.find((e) => e.action === 'coupon.create')).toMatchObject({ target: { type: 'coupon', name: 'NAMED15', exists: false } });
    expect(entries.find((e) => e.action === 'user.suspend')).toMatchObject({ actor: named, target: { type: 'user', _id: buyer.id, name: 'Bea Buyer', username: buyer.username, exists: true } });
    expect(entries.find((e) => e.action === 'country_block.create')).toMatchObject({ target: { type: 'country', _id: 'FR', name: 'France' } });
    await call(admin, 'DELETE', '/admin/country-blocks/FR');
  });

  it('settings: the logo may be cleared (the header shows the name alone); a bad menu address is refused in words at its row', async () => {
    const cleared = await call(admin, 'PUT', '/admin/settings', { json: { logoUrl: '' } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.logoUrl).toBe('');
    expect((await t.api('/settings/public')).body.logoUrl).toBe('');
    const bad = await call(admin, 'PUT', '/admin/settings', { json: { menus: [{ title: 'Ok', path: '/ok', section: 'header' }, { title: 'Bad', path: '//evil.example', section: 'footer' }] } });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toContainEqual({ path: 'body.menus.1.path', message: LINK_MESSAGE });
    const price = await call(admin, 'POST', '/admin/packages', { json: { name: 'x', type: 'monthly', price: 4.99, durationDays: 30 } });
    expect(price.status).toBe(400);
    expect(price.body.details).toContainEqual(expect.objectContaining({ path: 'body.price', message: 'Price must be whole minor units (cents)' }));
    expect((await call(admin, 'PUT', '/admin/settings', { json: { logoUrl: '/logo.svg' } })).status).toBe(200);
  });

  it('writes an audit entry with who, what, target and details in the same transaction as each change', async () => {
    const res = await call(admin, 'POST', '/admin/coupons', { json: { name: 'Audit', code: 'AUDIT10', valueBps: 1000, maxUses: 3, expiresAt: '2099-01-01T00:00:00Z' } });
    expect(res.status).toBe(201);
    const row = await t.ctx.db.selectFrom('auditLog').selectAll().where('targetId', '=', res.body._id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ actorId: admin.id, action: 'coupon.create', targetType: 'coupon' });
    expect(JSON.parse(row.details)).toMatchObject({ code: 'AUDIT10', valueBps: 1000 });
    const log = await call(admin, 'GET', `/admin/audit?targetId=${res.body._id}`);
    expect(log.body.items[0]).toMatchObject({ action: 'coupon.create', actorUsername: admin.username });
    // A failed change (duplicate code) leaves no audit row.
    const n = await auditCount('coupon.create');
    expect((await call(admin, 'POST', '/admin/coupons', { json: { name: 'Audit', code: 'AUDIT10', valueBps: 1000, maxUses: 3 } })).status).toBe(409);
    expect(await auditCount('coupon.create')).toBe(n);
  });

  it('suspension ends every session of the account at once; reactivation lets it log in again', async () => {
    const target = await createUser(t.ctx.db, 'performer');
    expect((await call(target, 'GET', '/users/me')).status).toBe(200);
    const res = await call(admin, 'POST', `/admin/users/${target.id}/suspend`, { json: { reason: 'test' } });
    expect(res.status).toBe(200);
    expect(res.body.sessionsRevoked).toBe(1);
    expect((await call(target, 'GET', '/users/me')).status).toBe(401);
    const session = await t.ctx.db.selectFrom('sessions').select('revokedAt').where('tokenHash', '=', hashToken(target.token)).executeTakeFirstOrThrow();
    expect(session.revokedAt).not.toBeNull();
    expect((await t.ctx.db.selectFrom('performers').select('status').where('id', '=', target.id).executeTakeFirstOrThrow()).status).toBe('suspended');
    expect(await auditCount('user.suspend')).toBeGreaterThan(0);
    expect((await call(admin, 'POST', `/admin/users/${target.id}/reactivate`, { json: {} })).status).toBe(200);
    expect((await t.ctx.db.selectFrom('users').select('status').where('id', '=', target.id).executeTakeFirstOrThrow()).status).toBe('active');
  });

  it('stores payment secrets encrypted and never returns them', async () => {
    const secret = 'sk_test_supersecret_123';
    const res = await call(admin, 'PUT', '/admin/settings/payment', { json: { stripeSecretKey: secret, stripeWebhookSecret: 'whsec_abc' } });
    expect(res.status).toBe(200);
    expect(res.body.stripeSecretKey).toEqual({ configured: true, source: 'settings' });
    const stored = await t.ctx.db.selectFrom('settings').select('value').where('key', '=', 'stripeSecretKey').executeTakeFirstOrThrow();
    expect(stored.value).not.toContain(secret);
    expect(decryptSecret(t.config.appSecret, JSON.parse(stored.value))).toBe(secret);
    for (const p of ['/admin/settings', '/admin/audit', '/settings/public']) {
      const body = JSON.stringify((await call(admin, 'GET', p)).body);
      expect(body).not.toContain(secret);
      expect(body).not.toContain('whsec_abc');
    }
    const cleared = await call(admin, 'PUT', '/admin/settings/payment', { json: { stripeWebhookSecret: null } });
    expect(cleared.body.stripeWebhookSecret).toEqual({ configured: false, source: null });
  });

  it('a settings change shows on GET /settings/public of a second instance sharing the database within its cache TTL', async () => {
    const schema = engine === 'postgres' ? String((await sql<{ s: string }>`select current_schema() as s`.execute(t.ctx.db)).rows[0]!.s) : undefined;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-second-'));
    const cacheMs = 1500;
    const config = loadConfig(
      { NODE_ENV: 'test', DATA_DIR: dir, SQLITE_FILE: t.config.sqliteFile, APP_SECRET: 'test-secret', SETTINGS_CACHE_MS: String(cacheMs), REDIS_KEY_PREFIX: t.config.redisKeyPrefix },
      { databaseUrl: t.config.databaseUrl, port: 0, host: '127.0.0.1' },
    );
    const database = await openDatabase({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile, pgSchema: schema, poolSize: 2 });
    const second: BuiltApp = await buildApp({ config, database, web: false });
    await second.app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(second.app.server.address() as AddressInfo).port}${config.apiBase}/settings/public`;
    try {
      await fetch(url); // warm the second instance's cache
      const menus = [{ title: 'Deals', path: '/deals', section: 'header' }];
      expect((await call(admin, 'PUT', '/admin/settings', { json: { siteName: 'Second Instance Site', menus, footerContent: '<p>Hi</p><script>alert(1)</script>' } })).status).toBe(200);
      // The second instance has no Redis: only its cache expiry can bring the change (the wait is a limit, not a measure).
      await expect.poll(async () => (await (await fetch(url)).json()).siteName, { timeout: cacheMs * 10, interval: 100 }).toBe('Second Instance Site');
      const pub = await (await fetch(url)).json();
      expect(pub.menus).toEqual([{ title: 'Deals', path: '/deals', section: 'header', ordering: 0 }]);
      expect(pub.footerContent).toBe('<p>Hi</p>');
    } finally {
      await second.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('pays out all unpaid earnings of a performer in one transaction', async () => {
    const p = await createUser(t.ctx.db, 'performer');
    await paidPayment(p.id, 300);
    await paidPayment(p.id, 200);
    const res = await call(admin, 'POST', '/admin/earnings/payout', { json: { performerId: p.id, note: 'bank transfer' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ performerId: p.id, amount: 500, earningsCount: 2 });
    const rows = await t.ctx.db.selectFrom('earnings').select(['isPaid', 'payoutId']).where('performerId', '=', p.id).execute();
    expect(rows.every((r) => r.isPaid === 1 && r.payoutId === res.body._id)).toBe(true);
    expect((await call(admin, 'POST', '/admin/earnings/payout', { json: { performerId: p.id } })).status).toBe(400);
    const summary = await call(admin, 'GET', `/admin/earnings?q=${p.username}`);
    expect(summary.body.items[0]).toMatchObject({ performerId: p.id, net: 500, unpaidNet: 0, paidNet: 500 });
  });

  it('the CLI helper creates an admin, promotes an existing account, and refuses a weak password', async () => {
    const weak = await createOrPromoteAdmin(t.ctx.db, { email: 'ops@example.test', password: 'short' });
    expect(weak.ok).toBe(false);
    const created = await createOrPromoteAdmin(t.ctx.db, { email: 'Ops@Example.test', password: 'strong-pass-1' });
    expect(created).toMatchObject({ ok: true, action: 'created', email: 'ops@example.test' });
    const promoted = await createOrPromoteAdmin(t.ctx.db, { email: fan.email, password: 'strong-pass-2' });
    expect(promoted).toMatchObject({ ok: true, action: 'promoted', previousRole: 'user' });
    expect((await t.ctx.db.selectFrom('users').select('role').where('id', '=', fan.id).executeTakeFirstOrThrow()).role).toBe('admin');
    await t.ctx.db.updateTable('users').set({ role: 'user' }).where('id', '=', fan.id).execute();
  });

  it('dashboard counts and daily series', async () => {
    const res = await call(admin, 'GET', '/admin/dashboard?days=7');
    expect(res.status).toBe(200);
    expect(res.body.series.signups).toHaveLength(7);
    expect(res.body.series.signups.at(-1).value).toBeGreaterThan(0);
    expect(res.body.counts.users).toBeGreaterThan(3);
    expect(res.body.series.revenue.at(-1).value).toBeGreaterThan(0);
  });
});
