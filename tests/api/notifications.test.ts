import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { MailCatcher, linkToken } from '../helpers/mail-catcher.js';
import { buildMoneyWorld, chargeOf, payWithSandbox, postWebhook, sandboxEvent, type MoneyWorld } from '../helpers/money-fixture.js';
import { nextEvent, socketsClosedAfterEach } from '../helpers/realtime-client.js';
import { addNotification, readConversationNotifications } from '../../server/notifications/notifications.service.js';
import { mailNotification } from '../../server/notifications/notification-mail.js';
import { unsubscribeToken } from '../../server/notifications/unsubscribe.js';
import { newId, nowIso } from '../../server/db/ids.js';
import { claimUnpushed } from '../../server/notifications/notifications.repository.js';
import { makeVideo } from '../../server/seed/factories.js';

/**
 * Notifications (docs/product.md, Notifications) over real HTTP on both engines: the user's own list, newest first and
 * keyset paged, marking one or all read, the unread count; the events that write them (a new subscriber, a sale, an
 * order's delivery, a payout's status, a comment), each exactly once however often a provider repeats itself; email
 * choices per type; the mail job over real SMTP, only when the choice is on and the person may be mailed, batched per
 * person's messages and per item's comments, once under retry; the signed one-click unsubscribe; `notification/created` live.
 */

const fastJobs = { JOBS_POLL_MS: '50', JOBS_BACKOFF_MS: '50', JOBS_BACKOFF_MAX_MS: '200' };
const catcher = new MailCatcher();
const open = socketsClosedAfterEach();

beforeAll(async () => {
  await catcher.start();
});
afterAll(async () => {
  await catcher.stop();
});

describe.each(engines)('notifications on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;
  const db = () => t.ctx.db;
  const call = (method: string, path: string, who?: TestUser, json?: unknown) => t.api(path, { method, headers: who?.headers ?? {}, ...(json !== undefined ? { json } : {}) });
  const rowsOf = (userId: string, type: string) => db().selectFrom('notifications').selectAll().where('userId', '=', userId).where('type', '=', type).execute();
  const payloadOf = (row: { payload: string }) => JSON.parse(row.payload) as Record<string, unknown>;
  /** Waits until no notification mail job is queued or running, then for the mailer to have handed everything over. */
  const jobsSettled = async () => {
    for (let i = 0; i < 200; i++) {
      const busy = await db().selectFrom('jobs').select('id').where('type', '=', 'notification.email').where('status', 'in', ['queued', 'running']).execute();
      if (!busy.length) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('notification mail jobs did not finish');
  };
  const mailsTo = async (email: string, since: number) => {
    await jobsSettled();
    await t.ctx.mailer.flush();
    return catcher.find(email, undefined, since);
  };

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { SMTP_URL: catcher.smtpUrl, ...fastJobs } });
    w = await buildMoneyWorld(t.ctx);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('lists only the user’s own notifications, newest first, keyset paged, each with its text and link; unknown types get a generic text', async () => {
    const me = await createUser(db(), 'performer', { name: `Paging ${engine}` });
    const other = await createUser(db(), 'user');
    const ids: string[] = [];
    const payloads: Array<[string, Record<string, unknown>]> = [
      ['comment', { commentId: 'c1', objectType: 'video', objectId: 'v1', userId: other.id, title: 'Beach day', actorName: 'Ann', url: '/videos/v1' }],
      ['tip', { tipId: 't1', paymentId: 'p1', amount: 500, actorId: other.id, actorName: 'Bob', url: '/studio/earnings' }],
      ['something-new', { url: 'https://evil.example/x' }],
      ['purchase', { paymentId: 'p2', actorName: null, title: 'Mug', amount: 1500, url: '//evil.example' }],
      ['order', { orderId: 'o1', status: 'shipping', url: '/account/orders/o1' }],
    ];
    for (const [type, payload] of payloads) {
      ids.push(await addNotification(db(), me.id, type, payload, { email: false }));
      await new Promise((r) => setTimeout(r, 3));
    }
    await addNotification(db(), other.id, 'comment', { title: 'Not yours', url: '/x' }, { email: false });

    const first = await call('GET', '/notifications?limit=2', me);
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(5);
    expect(first.body.items.map((i: { _id: string }) => i._id)).toEqual([ids[4], ids[3]]);
    expect(first.body.items[0]).toMatchObject({ type: 'order', text: 'Your order has shipped', url: '/account/orders/o1', read: false, readAt: null });
    // A payload's link that is not a path of this site is never followed: the type's own page instead.
    expect(first.body.items[1]).toMatchObject({ type: 'purchase', text: 'Someone bought “Mug” for $15.00', url: '/studio/earnings', actorName: null });
    const second = await call('GET', `/notifications?limit=2&cursor=${first.body.nextCursor}`, me);
    expect(second.body.items.map((i: { _id: string }) => i._id)).toEqual([ids[2], ids[1]]);
    expect(second.body.items[0]).toMatchObject({ type: 'something-new', text: 'You have a new notification', url: '/notifications' });
    expect(second.body.items[1]).toMatchObject({ text: 'Bob tipped you $5.00', actorName: 'Bob' });
    const third = await call('GET', `/notifications?limit=2&cursor=${second.body.nextCursor}`, me);
    expect(third.body.items.map((i: { _id: string }) => i._id)).toEqual([ids[0]]);
    expect(third.body.items[0]).toMatchObject({ text: 'Ann commented on “Beach day”', url: '/videos/v1' });
    expect(third.body.nextCursor).toBeNull();
    expect(JSON.stringify([first.body, second.body, third.body])).not.toContain('Not yours');

    expect((await call('GET', '/notifications?cursor=not-a-cursor', me)).status).toBe(400);
    expect((await call('GET', '/notifications?limit=0', me)).status).toBe(400);
    expect((await call('GET', '/notifications')).status).toBe(401);
  });

  it('marks one read (own only: another user’s id is 404 and stays unread), then all; the count follows', async () => {
    const me = await createUser(db(), 'user');
    const other = await createUser(db(), 'user');
    const mine = [
      await addNotification(db(), me.id, 'order', { orderId: 'a', status: 'shipping', url: '/account/orders/a' }, { email: false }),
      await addNotification(db(), me.id, 'order', { orderId: 'b', status: 'delivered', url: '/account/orders/b' }, { email: false }),
      await addNotification(db(), me.id, 'order', { orderId: 'c', status: 'cancelled', url: '/account/orders/c' }, { email: false }),
    ];
    const theirs = await addNotification(db(), other.id, 'order', { orderId: 'd', status: 'shipping', url: '/account/orders/d' }, { email: false });
    expect((await call('GET', '/notifications/unread-count', me)).body).toEqual({ count: 3 });

    const read = await call('POST', `/notifications/${mine[0]}/read`, me);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ _id: mine[0], read: true, readAt: expect.any(String) });
    expect((await call('POST', `/notifications/${mine[0]}/read`, me)).body.readAt).toBe(read.body.readAt);
    expect((await call('GET', '/notifications/unread-count', me)).body).toEqual({ count: 2 });

    for (const id of [theirs, newId(), 'bad id!']) {
      const res = await call('POST', `/notifications/${encodeURIComponent(id)}/read`, me);
      expect([404, 400]).toContain(res.status);
      expect(res.body).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    }
    expect((await call('POST', `/notifications/${theirs}/read`, me)).status).toBe(404);
    expect((await call('GET', '/notifications/unread-count', other)).body).toEqual({ count: 1 });

    // Up to what the reader has seen: one that arrives after it stays unread.
    const seen = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    await addNotification(db(), me.id, 'order', { orderId: 'e', status: 'shipping', url: '/account/orders/e' }, { email: false });
    for (const body of [{}, { before: 'yesterday' }, { before: 5 }]) expect((await call('POST', '/notifications/read-all', me, body)).status).toBe(400);
    const all = await call('POST', '/notifications/read-all', me, { before: seen });
    expect(all.body).toEqual({ marked: 2, count: 1 });
    expect((await call('POST', '/notifications/read-all', me, { before: seen })).body).toEqual({ marked: 0, count: 1 });
    expect((await call('POST', '/notifications/read-all', me, { before: new Date().toISOString() })).body).toEqual({ marked: 1, count: 0 });
    expect((await call('GET', '/notifications/unread-count', other)).body).toEqual({ count: 1 });
    expect((await call('GET', '/notifications', me)).body.items.every((i: { read: boolean }) => i.read)).toBe(true);
  });

  it('a new paid subscriber and a sale each notify the performer once, however often the provider repeats the event', async () => {
    const fan = await createUser(db(), 'user', { name: `Subscriber ${engine}` });
    const subCheckout = await call('POST', '/payment/subscribe', fan, { performerId: w.perf2.id, type: 'monthly' });
    expect(subCheckout.status, JSON.stringify(subCheckout.body)).toBe(201);
    const subCharge = await chargeOf(db(), subCheckout.body.paymentId);
    const subEvent = sandboxEvent(t, 'charge.succeeded', subCharge, { id: `evt_sub_${subCharge.id}` });
    const outcomes = [];
    for (const e of [subEvent, subEvent, sandboxEvent(t, 'charge.succeeded', subCharge)]) outcomes.push((await postWebhook(t, e)).body.outcome);
    expect(outcomes).toEqual(['paid', 'duplicate', 'already_paid']);
    const subs = (await rowsOf(w.perf2.id, 'subscriber')).filter((r) => payloadOf(r).actorId === fan.id);
    expect(subs).toHaveLength(1);
    expect(payloadOf(subs[0]!)).toMatchObject({ actorName: `Subscriber ${engine}`, url: '/studio', subscriptionId: expect.any(String) });

    const buyer = await createUser(db(), 'user', { name: `Buyer ${engine}` });
    const sale = await call('POST', `/payment/purchase-video/${w.videos.saleVideo.id}`, buyer, {});
    expect(sale.status).toBe(201);
    const charge = await chargeOf(db(), sale.body.paymentId);
    const event = sandboxEvent(t, 'charge.succeeded', charge, { id: `evt_sale_${charge.id}` });
    // Two deliveries at once, then a third later under another id.
    const both = await Promise.all([postWebhook(t, event), postWebhook(t, event)]);
    expect(both.map((r) => r.body.outcome).sort()).toEqual(['duplicate', 'paid']);
    expect((await postWebhook(t, sandboxEvent(t, 'charge.succeeded', charge))).body.outcome).toBe('already_paid');
    const sold = (await rowsOf(w.perf.id, 'purchase')).filter((r) => payloadOf(r).paymentId === sale.body.paymentId);
    expect(sold).toHaveLength(1);
    expect(payloadOf(sold[0]!)).toMatchObject({ actorName: `Buyer ${engine}`, title: 'Video: Pay per view', amount: 1299, url: '/studio/earnings' });
  });

  it('an order’s delivery moving on notifies the buyer once per change; a payout’s approval and payment notify the performer once each', async () => {
    const buyer = await createUser(db(), 'user');
    const checkout = await call('POST', '/payment/purchase-products', buyer, { items: [{ _id: w.products.mug.id }], shippingAddress: '1 Test Street' });
    expect(checkout.status, JSON.stringify(checkout.body)).toBe(201);
    expect((await payWithSandbox(t, buyer, checkout.body.redirectUrl)).status).toBe(200);
    const orderId: string = checkout.body.orderIds[0];
    const ship = () => call('PUT', `/orders/${orderId}/update`, w.perf, { deliveryStatus: 'shipping' });
    expect((await Promise.all([ship(), ship()])).map((r) => r.status)).toEqual([200, 200]);
    expect((await ship()).status).toBe(200);
    const orders = await rowsOf(buyer.id, 'order');
    expect(orders.map(payloadOf)).toEqual([{ orderId, status: 'shipping', url: `/account/orders/${orderId}` }]);

    // A payout request of real money past the hold, then the admin approves it (twice: the second is refused) and pays it.
    const perf = await createUser(db(), 'performer');
    expect((await call('PUT', '/performer/payout-details', perf, { method: 'paypal', paypalEmail: 'pay@example.com' })).status).toBe(200);
    const sold = new Date(Date.now() - 30 * 86_400_000).toISOString();
    const paymentId = newId();
    await db()
      .insertInto('payments')
      .values({ id: paymentId, userId: buyer.id, performerId: perf.id, type: 'video', status: 'success', gateway: 'stripe', gatewayRef: `cs_${paymentId}`, targetId: null, originalPrice: 10_000, amount: 10_000, currency: 'USD', paidAt: sold, createdAt: sold, updatedAt: sold })
      .execute();
    await db()
      .insertInto('earnings')
      .values({ id: newId(), paymentId, paymentItemId: newId(), performerId: perf.id, userId: buyer.id, sourceType: 'video', gross: 10_000, commission: 2000, net: 8000, commissionBps: 2000, createdAt: sold })
      .execute();
    const requested = await call('POST', '/performer/payouts', perf, {});
    expect(requested.status, JSON.stringify(requested.body)).toBe(201);
    expect(await rowsOf(perf.id, 'payout')).toHaveLength(0);
    const approve = () => call('POST', `/admin/payout-requests/${requested.body._id}/approve`, w.admin);
    expect((await Promise.all([approve(), approve()])).map((r) => r.status).sort()).toEqual([200, 409]);
    expect((await call('POST', `/admin/payout-requests/${requested.body._id}/paid`, w.admin, { reference: 'TR-1' })).status).toBe(200);
    const payouts = (await rowsOf(perf.id, 'payout')).map(payloadOf);
    expect(payouts.map((p) => p.status).sort()).toEqual(['approved', 'paid']);
    expect(payouts[0]).toMatchObject({ payoutId: requested.body._id, amount: 8000, url: '/studio/earnings' });
    const list = await call('GET', '/notifications', perf);
    expect(list.body.items.map((i: { text: string }) => i.text)).toEqual(['Your payout of $80.00 was paid', 'Your payout of $80.00 was approved']);
  });

  it('pushes each of a person\'s new rows exactly once when many arrive at once, and no claim fails', async () => {
    // A performer written to by many fans at the same moment: each write adds a row, then claims what is unpushed.
    const me = await createUser(db(), 'performer');
    const since = new Date(Date.now() - 60_000).toISOString();
    const added: string[] = [];
    const claimed: string[] = [];
    const failures: string[] = [];
    const writer = async () => {
      for (let i = 0; i < 25; i++) {
        added.push(await addNotification(db(), me.id, 'message', { from: 'someone' }, { email: false }));
        try {
          claimed.push(...(await claimUnpushed(db(), me.id, since, nowIso(), 20)).rows.map((r) => r.id));
        } catch (e) {
          failures.push(String(e));
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, writer));
    expect(failures).toEqual([]);
    expect(claimed.length).toBe(added.length);
    expect(new Set(claimed)).toEqual(new Set(added));
  });

  it.runIf(engine === 'postgres')('a push never waits for a row another push is claiming: it takes the others, and the held row goes out with a later push', async () => {
    // Two claims that waited for each other's rows deadlocked (each wait a second, a pooled connection held meanwhile).
    const me = await createUser(db(), 'performer');
    const since = new Date(Date.now() - 60_000).toISOString();
    const held = await addNotification(db(), me.id, 'message', {}, { email: false });
    const free = await addNotification(db(), me.id, 'message', {}, { email: false });
    let during: string[] | 'waited' = [];
    let claim: Promise<unknown> = Promise.resolve();
    await db().transaction().execute(async (trx) => {
      await trx.selectFrom('notifications').select('id').where('id', '=', held).forUpdate().execute();
      const ids = claimUnpushed(db(), me.id, since, nowIso(), 20).then((r) => r.rows.map((x) => x.id));
      claim = ids;
      during = await Promise.race([ids, new Promise<'waited'>((ok) => setTimeout(() => ok('waited'), 2000))]);
    });
    await claim;
    expect(during).toEqual([free]);
    expect((await claimUnpushed(db(), me.id, since, nowIso(), 20)).rows.map((x) => x.id)).toEqual([held]);
  });

  it('a comment by someone else notifies the performer once, with who wrote it and a link to the item; pushed live as notification/created then the count', async () => {
    const fan = await createUser(db(), 'user', { name: `Commenter ${engine}` });
    const socket = await open(t.url, { token: w.perf.token });
    const created = nextEvent(socket, 'notification/created', (p) => p.notification.text.includes(`Commenter ${engine}`));
    const before = (await call('GET', '/notifications/unread-count', w.perf)).body.count;
    const counted = nextEvent(socket, 'notification/count', (p) => p.count === before + 1);
    const res = await call('POST', '/comments', fan, { objectType: 'video', objectId: w.videos.freeVideo.id, content: 'Lovely' });
    expect(res.status).toBe(201);
    const { notification } = await created;
    expect(notification).toMatchObject({ type: 'comment', text: `Commenter ${engine} commented on “Free clip”`, url: `/videos/${w.videos.freeVideo.id}`, read: false });
    await counted;
    const rows = (await rowsOf(w.perf.id, 'comment')).filter((r) => payloadOf(r).commentId === res.body._id);
    expect(rows).toHaveLength(1);
    expect(payloadOf(rows[0]!)).toMatchObject({ actorName: `Commenter ${engine}`, url: `/videos/${w.videos.freeVideo.id}`, title: 'Free clip' });
    // The list's first item is the one pushed.
    expect((await call('GET', '/notifications?limit=1', w.perf)).body.items[0]._id).toBe(notification._id);
  });

  it("mails the comments on one item once while that mail's notification is unread and recent; another item's comment is mailed, and the next one after reading", async () => {
    const perf = await createUser(db(), 'performer', { name: `Batched ${engine}` });
    const [clip, other] = await Promise.all([makeVideo(t.ctx, perf.id, { title: 'Clip one', access: 'free' }), makeVideo(t.ctx, perf.id, { title: 'Clip two', access: 'free' })]);
    const fans = await Promise.all([1, 2, 3].map((i) => createUser(db(), 'user', { name: `Fan ${i}` })));
    const since = catcher.mark();
    const comment = async (who: TestUser, videoId: string) => {
      const res = await call('POST', '/comments', who, { objectType: 'video', objectId: videoId, content: 'Nice' });
      expect(res.status).toBe(201);
      const row = (await rowsOf(perf.id, 'comment')).find((r) => payloadOf(r).commentId === res.body._id)!;
      const jobs = await db().selectFrom('jobs').select('id').where('type', '=', 'notification.email').where('payload', 'like', `%${row.id}%`).execute();
      await jobsSettled();
      return { id: row.id, thread: row.thread, jobs: jobs.length };
    };
    const first = await comment(fans[0]!, clip.id);
    expect(first).toMatchObject({ thread: `comments:video:${clip.id}`, jobs: 1 });
    // The item's mail is out and unread: more comments on it are not even queued; a comment on another item is.
    expect((await comment(fans[1]!, clip.id)).jobs).toBe(0);
    expect((await comment(fans[2]!, clip.id)).jobs).toBe(0);
    expect((await comment(fans[1]!, other.id)).jobs).toBe(1);
    expect((await mailsTo(perf.email, since)).map((m) => m.subject).sort()).toEqual(['Fan 1 commented on “Clip one”', 'Fan 2 commented on “Clip two”']);
    // Once the mailed notification is read, the item's next comment is mailed again.
    expect((await call('POST', `/notifications/${first.id}/read`, perf)).status).toBe(200);
    expect((await comment(fans[2]!, clip.id)).jobs).toBe(1);
    expect((await mailsTo(perf.email, since)).map((m) => m.subject)).toContain('Fan 3 commented on “Clip one”');
    // Every comment is still in the bell.
    expect(await rowsOf(perf.id, 'comment')).toHaveLength(5);
  });

  it('keeps an email choice per type: all on by default, the money mails of orders and payouts and the identity verification decision always on, bad input 400', async () => {
    const me = await createUser(db(), 'user');
    const start = await call('GET', '/notifications/preferences', me);
    expect(start.status).toBe(200);
    expect(start.body.preferences).toHaveLength(10);
    expect(start.body.preferences.every((p: { email: boolean }) => p.email)).toBe(true);
    expect(start.body.preferences.filter((p: { locked: boolean }) => p.locked).map((p: { type: string }) => p.type)).toEqual(['order', 'payout', 'verification']);
    const changed = await call('PUT', '/notifications/preferences', me, { email: { comment: false, message: false, order: false } });
    expect(changed.status).toBe(200);
    const state = Object.fromEntries(changed.body.preferences.map((p: { type: string; email: boolean }) => [p.type, p.email]));
    expect(state).toMatchObject({ comment: false, message: false, order: true, tip: true });
    expect((await call('PUT', '/notifications/preferences', me, { email: { comment: true } })).body.preferences.find((p: { type: string }) => p.type === 'comment').email).toBe(true);
    for (const body of [{ email: {} }, { email: { bogus: true } }, { email: { tip: 'yes' } }, {}]) {
      const res = await call('PUT', '/notifications/preferences', me, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    // Another user's choices are untouched.
    const other = await createUser(db(), 'user');
    expect((await call('GET', '/notifications/preferences', other)).body.preferences.every((p: { email: boolean }) => p.email)).toBe(true);
    expect((await call('GET', '/notifications/preferences')).status).toBe(401);
  });

  it('decides a mail when its job runs: the choice then, read, gone, an always-mailed type whatever the choice', async () => {
    const perf = await createUser(db(), 'performer', { name: `Decided ${engine}` });
    const deps = { ...t.ctx, logger: t.ctx.logger };
    // Rows without their job (email: false), so each outcome is the direct call's.
    const row = (type: string) => addNotification(db(), perf.id, type, { title: 'Dawn', actorName: 'Cleo', amount: 1500, orderId: 'o', status: 'shipped', url: '/notifications' }, { email: false });
    expect((await call('PUT', '/notifications/preferences', perf, { email: { comment: false, order: false } })).status).toBe(200);
    expect(await mailNotification(deps, await row('comment'))).toBe('turned_off');
    const since = catcher.mark();
    expect(await mailNotification(deps, await row('order'))).toBe('sent');
    expect(await mailsTo(perf.email, since)).toHaveLength(1);
    expect((await call('PUT', '/notifications/preferences', perf, { email: { comment: true } })).status).toBe(200);
    const read = await row('comment');
    await db().updateTable('notifications').set({ readAt: new Date().toISOString() }).where('id', '=', read).execute();
    expect(await mailNotification(deps, read)).toBe('read');
    expect(await mailNotification(deps, newId())).toBe('gone');
    const on = await row('comment');
    await db().updateTable('users').set({ status: 'suspended' }).where('id', '=', perf.id).execute();
    expect(await mailNotification(deps, on)).toBe('not_mailable');
  });

  it('mails a notification through the job only while its type is on, never to a suspended or unverified account, with a working one-click unsubscribe', async () => {
    const perf = await createUser(db(), 'performer', { name: `Mailed ${engine}` });
    let since = catcher.mark();
    const id = await db().transaction().execute((trx) => addNotification(trx, perf.id, 'comment', { title: 'Sunset', actorName: 'Cleo', url: '/videos/abc' }));
    const [mail, ...more] = await mailsTo(perf.email, since);
    expect(more).toHaveLength(0);
    expect(mail!.subject).toBe('Cleo commented on “Sunset”');
    expect(mail!.text).toContain(`${t.url}/videos/abc`);
    expect(mail!.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    const oneClick = mail!.headers['list-unsubscribe']!.replace(/\s+/g, '').replace(/^<|>$/g, '');
    expect(oneClick.startsWith(`${t.url}/api/notifications/unsubscribe?token=`)).toBe(true);
    const token = linkToken(mail!.text, t.url, '/notifications/unsubscribe');
    expect(token).toBe(new URL(oneClick).searchParams.get('token'));
    expect((await db().selectFrom('notifications').select('emailedAt').where('id', '=', id).executeTakeFirstOrThrow()).emailedAt).not.toBeNull();
    // The job again (a retry after the send): nothing more.
    expect(await mailNotification({ ...t.ctx, logger: t.ctx.logger }, id)).toBe('batched_or_sent');

    // Tampered tokens change nothing.
    const [uid, type, sig] = token.split('.') as [string, string, string];
    for (const bad of [`${uid}.tip.${sig}`, `${w.fan.id}.${type}.${sig}`, `${uid}.${type}.${sig.slice(0, -2)}xx`, 'nonsense', `${uid}.${type}`]) {
      const res = await t.api(`/notifications/unsubscribe?token=${encodeURIComponent(bad)}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
      expect(res.status, bad).toBe(400);
      expect(res.body.code).toBe('INVALID_TOKEN');
    }
    expect((await call('GET', '/notifications/preferences', perf)).body.preferences.find((p: { type: string }) => p.type === 'comment').email).toBe(true);
    // The one-click POST as a mail client sends it: a form, no session.
    const unsub = await fetch(oneClick, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(unsub.status).toBe(200);
    expect(await unsub.json()).toEqual({ type: 'comment', email: false });
    expect((await call('GET', '/notifications/preferences', perf)).body.preferences.find((p: { type: string }) => p.type === 'comment').email).toBe(false);

    since = catcher.mark();
    await db().transaction().execute((trx) => addNotification(trx, perf.id, 'comment', { title: 'Off now', actorName: 'Cleo', url: '/videos/abc' }));
    // Another type stays on; a suspended and an unverified account get nothing.
    await addNotification(db(), perf.id, 'purchase', { paymentId: 'p', actorName: 'Dan', title: 'Mug', amount: 1500, url: '/studio/orders' });
    const suspended = await createUser(db(), 'user', { status: 'suspended' });
    const unverified = await createUser(db(), 'user');
    await db().updateTable('users').set({ emailVerified: 0 }).where('id', '=', unverified.id).execute();
    for (const u of [suspended, unverified]) await addNotification(db(), u.id, 'report', { reportId: 'r', outcome: 'removed', targetType: 'video', url: '/notifications' });
    expect((await mailsTo(perf.email, since)).map((m) => m.subject)).toEqual(['Dan bought “Mug” for $15.00']);
    expect(await mailsTo(suspended.email, since)).toHaveLength(0);
    expect(await mailsTo(unverified.email, since)).toHaveLength(0);
    // A turned-off type is not even queued.
    expect(await db().selectFrom('jobs').select('id').where('type', '=', 'notification.email').where('payload', 'like', `%${id}%`).execute()).toHaveLength(1);
  });

  it('mails a person one message while an earlier message mail is unread and recent, whichever conversation; the new subscriber mail obeys the subscriber choice', async () => {
    const me = await createUser(db(), 'user');
    const since = catcher.mark();
    const message = (conversationId: string) =>
      addNotification(db(), me.id, 'message', { conversationId, messageId: newId(), actorId: w.fan.id, actorName: 'Fay', url: `/messages/${conversationId}` });
    const jobsOf = async (notificationId: string) =>
      (await db().selectFrom('jobs').select('id').where('type', '=', 'notification.email').where('payload', 'like', `%${notificationId}%`).execute()).length;
    expect(await jobsOf(await message('conv-a'))).toBe(1);
    await jobsSettled();
    // A message mail is out and unread: the next message is not even queued, in that conversation or another.
    expect(await jobsOf(await message('conv-a'))).toBe(0);
    expect(await jobsOf(await message('conv-b'))).toBe(0);
    await jobsSettled();
    expect((await mailsTo(me.email, since)).map((m) => m.subject)).toEqual(['Fay sent you a message']);
    const mailedThreads = async () =>
      (await db().selectFrom('notifications').select(['thread', 'emailedAt']).where('userId', '=', me.id).execute()).filter((r) => r.emailedAt).map((r) => r.thread).sort();
    expect(await mailedThreads()).toEqual(['conversation:conv-a']);
    // A job that was queued before the first mail went out finds the batch mailed when it runs: it claims nothing.
    const raced = await message('conv-c');
    expect(await mailNotification({ ...t.ctx, logger: t.ctx.logger }, raced)).toBe('batched_or_sent');
    // Once the mailed conversation is read, the next message, in any conversation, is mailed again.
    expect(await readConversationNotifications(db(), me.id, 'conv-a')).toBe(2);
    const again = await message('conv-b');
    expect(await jobsOf(again)).toBe(1);
    await jobsSettled();
    expect((await mailsTo(me.email, since)).map((m) => m.subject)).toHaveLength(2);
    expect((await db().selectFrom('notifications').select('emailedAt').where('id', '=', again).executeTakeFirstOrThrow()).emailedAt).not.toBeNull();
    expect(await mailedThreads()).toEqual(['conversation:conv-a', 'conversation:conv-b']);

    // The performer's "new subscriber" mail: sent with the unsubscribe headers while on, not once turned off.
    const perf = await createUser(db(), 'performer', { performer: { monthlyPrice: 700 } });
    const subscribeOnce = async () => {
      const fan = await createUser(db(), 'user');
      const res = await call('POST', '/payment/subscribe', fan, { performerId: perf.id, type: 'monthly' });
      expect(res.status).toBe(201);
      expect((await payWithSandbox(t, fan, res.body.redirectUrl)).status).toBe(200);
    };
    let mark = catcher.mark();
    await subscribeOnce();
    const news = (await mailsTo(perf.email, mark)).filter((m) => /new subscriber/i.test(m.subject));
    expect(news).toHaveLength(1);
    expect(news[0]!.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(linkToken(news[0]!.text, t.url, '/notifications/unsubscribe')).toBe(unsubscribeToken(t.config.appSecret, perf.id, 'subscriber'));
    expect((await call('PUT', '/notifications/preferences', perf, { email: { subscriber: false } })).status).toBe(200);
    mark = catcher.mark();
    await subscribeOnce();
    expect((await mailsTo(perf.email, mark)).filter((m) => /new subscriber/i.test(m.subject))).toHaveLength(0);
    expect(await rowsOf(perf.id, 'subscriber')).toHaveLength(2);
  });
});
