import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { daysFromNow, makeProduct, makeVerification, makeVideo } from '../../server/seed/factories.js';

/**
 * Only performers an admin approved earn. Before approval nothing of theirs can be bought (403
 * PERFORMER_NOT_APPROVED, nothing written), and their studio keeps drafts only (no active, published or scheduled
 * item, so nothing public or for sale) within a quota of items (setting unapprovedItemQuota).
 */
describe.each(engines)('performer approval on %s', (engine) => {
  let t: TestApp;
  let admin: TestUser;
  let fan: TestUser;
  const call = (method: string, path: string, who: TestUser | undefined, json?: unknown) =>
    t.api(path, { method, headers: who?.headers, ...(json !== undefined ? { json } : {}) });
  const count = async (table: 'payments' | 'orders' | 'subscriptions' | 'videos' | 'galleries' | 'products' | 'posts', performerId?: string) => {
    let q = t.ctx.db.selectFrom(table).select(sql<number>`count(*)`.as('n'));
    if (performerId) q = q.where('performerId', '=', performerId);
    return Number((await q.executeTakeFirstOrThrow()).n);
  };
  // The console approves a performer whose identity an admin verified (server/verification/): an approved record first.
  const verified = (perf: TestUser) => makeVerification(t.ctx.db, perf.id);
  const unapproved = (name: string) => createUser(t.ctx.db, 'performer', { name, performer: { approved: 0, monthlyPrice: 1000, yearlyPrice: 9000 } });

  beforeAll(async () => {
    t = await startTestApp(engine);
    admin = await createUser(t.ctx.db, 'admin');
    fan = await createUser(t.ctx.db, 'user');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('checkout of an unapproved performer’s subscription, video and product is 403 PERFORMER_NOT_APPROVED and writes nothing; approval opens it', async () => {
    const perf = await unapproved('Nina New');
    const video = await makeVideo(t.ctx, perf.id, { access: 'sale', price: 1299 });
    const product = await makeProduct(t.ctx, perf.id, { type: 'physical', price: 1500, stock: 5 });
    const answers = [
      await call('POST', '/payment/subscribe', fan, { performerId: perf.id, type: 'monthly' }),
      await call('POST', '/payment/subscribe', fan, { performerId: perf.username, type: 'yearly' }),
      await call('POST', `/payment/purchase-video/${video.id}`, fan, {}),
      await call('POST', '/payment/purchase-products', fan, { items: [{ _id: product.id, quantity: 1 }], shippingAddress: '1 Early Road' }),
    ];
    for (const res of answers) {
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(res.body.code).toBe('PERFORMER_NOT_APPROVED');
    }
    expect(await count('payments')).toBe(0);
    expect(await count('orders')).toBe(0);
    expect(await count('subscriptions')).toBe(0);
    expect((await t.ctx.db.selectFrom('products').select('stock').where('id', '=', product.id).executeTakeFirstOrThrow()).stock).toBe(5);

    // The admin approves: the same checkouts go through.
    await verified(perf);
    expect((await call('POST', `/admin/performers/${perf.id}/approve`, admin, { approved: true })).status).toBe(200);
    expect((await call('POST', '/payment/subscribe', fan, { performerId: perf.id, type: 'monthly' })).status).toBe(201);
    expect((await call('POST', `/payment/purchase-video/${video.id}`, fan, {})).status).toBe(201);
    expect((await call('POST', '/payment/purchase-products', fan, { items: [{ _id: product.id, quantity: 1 }], shippingAddress: '1 Early Road' })).status).toBe(201);
    // Withdrawn again: refused again.
    expect((await call('POST', `/admin/performers/${perf.id}/approve`, admin, { approved: false })).status).toBe(200);
    const again = await call('POST', '/payment/purchase-products', fan, { items: [{ _id: product.id, quantity: 1 }], shippingAddress: '1 Early Road' });
    expect(again.status).toBe(403);
    expect(again.body.code).toBe('PERFORMER_NOT_APPROVED');
  });

  it('an unapproved performer saves drafts but cannot publish, schedule or put anything on sale', async () => {
    const perf = await unapproved('Dora Draft');
    // New items are drafts by default.
    const gallery = await call('POST', '/performer/assets/galleries', perf, { title: 'First set', visibility: 'sale', price: 900 });
    expect(gallery.status, JSON.stringify(gallery.body)).toBe(201);
    expect(gallery.body.status).toBe('draft');
    const product = await call('POST', '/performer/assets/products', perf, { name: 'Signed poster', type: 'physical', price: 2500, stock: 3 });
    expect(product.status, JSON.stringify(product.body)).toBe(201);
    expect(product.body.status).toBe('draft');
    const post = await call('POST', '/performer/assets/posts', perf, { title: 'Hello', content: 'Soon here.' });
    expect(post.status, JSON.stringify(post.body)).toBe(201);
    expect(post.body.status).toBe('draft');

    // Publishing, on creation or by an edit, is refused and changes nothing.
    const refused = [
      await call('POST', '/performer/assets/galleries', perf, { title: 'Live set', status: 'active' }),
      await call('POST', '/performer/assets/products', perf, { name: 'Live mug', type: 'physical', price: 1200, stock: 2, status: 'active' }),
      await call('POST', '/performer/assets/posts', perf, { title: 'Live', content: 'Now.', status: 'published' }),
      await call('PUT', `/performer/assets/galleries/${gallery.body._id}`, perf, { status: 'active' }),
      await call('PUT', `/performer/assets/products/${product.body._id}`, perf, { status: 'active' }),
      await call('PUT', `/performer/assets/posts/${post.body._id}`, perf, { status: 'published' }),
    ];
    const video = await makeVideo(t.ctx, perf.id, { status: 'draft', access: 'subscribers' });
    refused.push(await call('PUT', `/performer/assets/videos/${video.id}`, perf, { status: 'active' }));
    refused.push(await call('PUT', `/performer/assets/videos/${video.id}`, perf, { scheduledAt: daysFromNow(2) }));
    for (const res of refused) {
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(res.body.code).toBe('PERFORMER_NOT_APPROVED');
    }
    expect(await count('galleries', perf.id)).toBe(1);
    expect(await count('products', perf.id)).toBe(1);
    expect(await count('posts', perf.id)).toBe(1);
    const rows = await Promise.all([
      t.ctx.db.selectFrom('galleries').select('status').where('id', '=', gallery.body._id).executeTakeFirstOrThrow(),
      t.ctx.db.selectFrom('products').select('status').where('id', '=', product.body._id).executeTakeFirstOrThrow(),
      t.ctx.db.selectFrom('posts').select('status').where('id', '=', post.body._id).executeTakeFirstOrThrow(),
      t.ctx.db.selectFrom('videos').select(['status', 'scheduledAt']).where('id', '=', video.id).executeTakeFirstOrThrow(),
    ]);
    expect(rows.map((r) => r.status)).toEqual(['draft', 'draft', 'draft', 'draft']);
    expect(rows[3]).toMatchObject({ scheduledAt: null });

    // A draft may carry its future price and visibility; it is neither public nor purchasable.
    const edited = await call('PUT', `/performer/assets/videos/${video.id}`, perf, { visibility: 'sale', price: 700, title: 'Coming soon' });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body).toMatchObject({ status: 'draft', visibility: 'sale', price: 700 });
    expect((await call('GET', `/user/assets/products/${product.body._id}`, fan)).status).toBe(404);
    expect((await call('POST', `/payment/purchase-video/${video.id}`, fan, {})).status).toBe(403);
    expect((await call('POST', '/payment/purchase-products', fan, { items: [{ _id: product.body._id, quantity: 1 }], shippingAddress: '2 Draft Lane' })).status).toBe(403);

    // Once approved, the same performer publishes.
    await verified(perf);
    expect((await call('POST', `/admin/performers/${perf.id}/approve`, admin, { approved: true })).status).toBe(200);
    const live = await call('PUT', `/performer/assets/products/${product.body._id}`, perf, { status: 'active' });
    expect(live.status, JSON.stringify(live.body)).toBe(200);
    expect(live.body.status).toBe('active');
    expect((await call('GET', `/user/assets/products/${product.body._id}`, fan)).status).toBe(200);
    const created = await call('POST', '/performer/assets/posts', perf, { title: 'Live now', content: 'Hi.' });
    expect(created.body.status).toBe('published');
  });

  it('drafts are limited to the quota (all kinds together), also for concurrent creations; approval lifts it', async () => {
    const set = await call('PUT', '/admin/settings', admin, { unapprovedItemQuota: 4 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.unapprovedItemQuota).toBe(4);
    try {
      const perf = await unapproved('Quinn Quota');
      expect((await call('POST', '/performer/assets/posts', perf, { title: 'One', content: 'a' })).status).toBe(201);
      expect((await call('POST', '/performer/assets/products', perf, { name: 'Two', type: 'physical', price: 100, stock: 1 })).status).toBe(201);
      // Six galleries at once for the two places left: exactly two are created.
      const burst = await Promise.all(Array.from({ length: 6 }, (_, i) => call('POST', '/performer/assets/galleries', perf, { title: `Set ${i}` })));
      expect(burst.map((r) => r.status).sort()).toEqual([201, 201, 403, 403, 403, 403]);
      for (const r of burst.filter((x) => x.status === 403)) expect(r.body.code).toBe('DRAFT_QUOTA_REACHED');
      expect(await count('galleries', perf.id)).toBe(2);
      const over = await call('POST', '/performer/assets/posts', perf, { title: 'Five', content: 'e' });
      expect(over.status).toBe(403);
      expect(over.body).toMatchObject({ code: 'DRAFT_QUOTA_REACHED', details: { quota: 4, count: 4 } });
      expect(await count('posts', perf.id)).toBe(1);

      // Approved performers have no quota.
      await verified(perf);
      expect((await call('POST', `/admin/performers/${perf.id}/approve`, admin, { approved: true })).status).toBe(200);
      expect((await call('POST', '/performer/assets/posts', perf, { title: 'Five', content: 'e' })).status).toBe(201);
      expect((await call('POST', '/performer/assets/galleries', perf, { title: 'Six' })).status).toBe(201);
    } finally {
      await call('PUT', '/admin/settings', admin, { unapprovedItemQuota: 20 });
    }
  });
});
