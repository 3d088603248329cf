import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createSession, createUser } from '../helpers/sessions.js';
import { payWithSandbox } from '../helpers/money-fixture.js';
import { seedDemo, type SeedResult } from '../../server/seed/seed.js';
import { counterMismatches } from '../helpers/counters.js';

/**
 * Honest numbers: every counter the site shows is a count of rows, on the demo site too. The demo seed is
 * loaded (small scale: its rows, not its media, are the point), then each counter column is compared with its rows
 * counted here in plain SQL, independently of the app's code; the profile and video answers of the API (what the
 * pages print) are compared as well. Then one more real subscription, through the checkout and the sandbox provider's
 * webhook, must raise the performer's subscriber count by exactly one (a counter kept apart from the rows jumped from
 * a made-up 1,262 to 1), and one more like, comment and view each add exactly one.
 */

describe.each(engines)('the demo site counts its rows on %s', (engine) => {
  let t: TestApp;
  let seeded: SeedResult;

  beforeAll(async () => {
    t = await startTestApp(engine);
    seeded = await seedDemo({ db: t.ctx.db, config: t.config, logger: { info() {}, warn() {}, error: console.error }, scale: 0.1 });
    expect(seeded.seeded).toBe(true);
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  it('every counter equals its rows, and the rows exist (the demo has an audience, not made-up numbers)', async () => {
    const { mismatches, totals } = await counterMismatches(t);
    expect(mismatches).toEqual([]);
    // Not vacuous: the demo fans did subscribe, watch, like, favourite and comment.
    for (const counted of ['performers.subscriberCount', 'performers.followerCount', 'videos.viewCount', 'videos.likeCount', 'videos.favouriteCount', 'performers.likeCount', 'posts.likeCount']) {
      expect(totals[counted], counted).toBeGreaterThan(0);
    }
    expect(totals['videos.commentCount']! + totals['performers.commentCount']! + totals['posts.commentCount']! + totals['galleries.commentCount']!).toBeGreaterThan(0);
    expect(seeded.counts).toMatchObject({ subscriptions: totals['performers.subscriberCount'], follows: totals['performers.followerCount'] });
    // Every counter column of every table was compared (a renamed column would otherwise drop out unnoticed).
    expect(Object.keys(totals).sort()).toEqual([
      'coupons.usedCount',
      ...['commentCount', 'favouriteCount', 'likeCount', 'photoCount', 'viewCount'].map((c) => `galleries.${c}`),
      ...['commentCount', 'favouriteCount', 'followerCount', 'galleryCount', 'likeCount', 'photoCount', 'productCount', 'subscriberCount', 'videoCount', 'viewCount'].map((c) => `performers.${c}`),
      ...['commentCount', 'favouriteCount', 'likeCount', 'viewCount'].map((c) => `photos.${c}`),
      ...['commentCount', 'favouriteCount', 'likeCount'].map((c) => `posts.${c}`),
      ...['commentCount', 'favouriteCount', 'likeCount', 'viewCount'].map((c) => `products.${c}`),
      ...['commentCount', 'favouriteCount', 'likeCount', 'viewCount'].map((c) => `videos.${c}`),
    ]);
  });

  it("the demo's subscriptions renew until cancelled, each with a billing at the sandbox provider at its price", async () => {
    const subs = await t.ctx.db
      .selectFrom('subscriptions')
      .leftJoin('sandboxSubscriptions', 'sandboxSubscriptions.id', 'subscriptions.gatewaySubscriptionId')
      .select(['subscriptions.autoRenew', 'subscriptions.renewalAmount', 'subscriptions.expiresAt', 'sandboxSubscriptions.amount', 'sandboxSubscriptions.periodEnd', 'sandboxSubscriptions.status'])
      .execute();
    expect(subs.length).toBe(seeded.counts?.subscriptions);
    for (const s of subs) {
      expect(s).toMatchObject({ autoRenew: 1, status: 'active', amount: s.renewalAmount });
      // The provider charges when our period ends (to the second: both are set from the same approval).
      expect(Math.abs(Date.parse(s.periodEnd!) - Date.parse(s.expiresAt!))).toBeLessThan(5_000);
    }
  });

  it("the demo's tips are paid payments of type 'tip' with a tip item, a tip row, a test-money earning and the performer's notification", async () => {
    const tips = await t.ctx.db
      .selectFrom('tips')
      .innerJoin('payments', 'payments.id', 'tips.paymentId')
      .innerJoin('paymentItems', 'paymentItems.paymentId', 'payments.id')
      .innerJoin('earnings', 'earnings.paymentItemId', 'paymentItems.id')
      .select(['payments.status', 'payments.type', 'payments.amount', 'tips.amount as tipAmount', 'tips.id as tipId', 'paymentItems.objectType', 'paymentItems.objectId', 'earnings.sourceType', 'earnings.gross', 'earnings.testMoney', 'tips.performerId'])
      .execute();
    expect(tips.length).toBe(seeded.counts?.tips);
    expect(tips.length).toBeGreaterThan(0);
    for (const tip of tips) {
      expect(tip).toMatchObject({ status: 'success', type: 'tip', objectType: 'tip', objectId: tip.tipId, sourceType: 'tip', gross: tip.amount, tipAmount: tip.amount, testMoney: 1 });
    }
    const notified = await t.ctx.db.selectFrom('notifications').select('userId').where('type', '=', 'tip').execute();
    expect(notified.length).toBe(tips.length);
  });

  it('what the API hands the pages is the rows counted: profiles, videos', async () => {
    const performers = await t.ctx.db.selectFrom('performers').select(['id', 'username']).execute();
    for (const p of performers) {
      const res = await t.api(`/performers/${p.username}`);
      expect(res.status).toBe(200);
      const live = await t.ctx.db
        .selectFrom('subscriptions')
        .select(sql<number | string>`count(*)`.as('n'))
        .where('performerId', '=', p.id)
        .where('status', '=', 'active')
        .where('expiresAt', '>', new Date().toISOString())
        .executeTakeFirstOrThrow();
      const videos = await t.ctx.db.selectFrom('videos').select(sql<number | string>`count(*)`.as('n')).where('performerId', '=', p.id).executeTakeFirstOrThrow();
      expect({ who: p.username, subscribers: res.body.subscriberCount, videos: res.body.videoCount }).toEqual({ who: p.username, subscribers: Number(live.n), videos: Number(videos.n) });
    }
    const videos = await t.ctx.db.selectFrom('videos').select('id').limit(8).execute();
    for (const v of videos) {
      const res = await t.api(`/user/assets/videos/${v.id}`);
      const views = await t.ctx.db.selectFrom('videoViews').select(sql<number | string>`count(*)`.as('n')).where('videoId', '=', v.id).executeTakeFirstOrThrow();
      const likes = await t.ctx.db.selectFrom('reactions').select(sql<number | string>`count(*)`.as('n')).where('objectId', '=', v.id).where('action', '=', 'like').executeTakeFirstOrThrow();
      expect({ id: v.id, views: res.body.stats.views, likes: res.body.stats.likes }).toEqual({ id: v.id, views: Number(views.n), likes: Number(likes.n) });
    }
  });

  it("the demo performer's inbox has conversations; each one's last line is unread by its recipient, who has its notification", async () => {
    const db = t.ctx.db;
    const idOf = async (email: string) => (await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id;
    const [performerId, fanId] = [await idOf(seeded.credentials!.performer.email), await idOf(seeded.credentials!.fan.email)];
    const headersOf = async (id: string) => ({ authorization: `Bearer ${await createSession(db, id)}` });
    const inbox = await t.api('/messages/conversations', { headers: await headersOf(performerId) });
    expect(inbox.status).toBe(200);
    expect(inbox.body.items.length).toBeGreaterThanOrEqual(2);
    expect(seeded.counts).toMatchObject({ messages: expect.any(Number) });
    // The demo fan's thread: read through the API as the fan, who may answer (the demo performer takes messages from fans).
    const fanHeaders = await headersOf(fanId);
    const mine = (await t.api('/messages/conversations', { headers: fanHeaders })).body.items;
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ canSend: true });
    // One unread line a conversation, each counted in its recipient's badge (the demo fan's and the performer's among them).
    const unreadMessages = await db.selectFrom('messages').select(['id', 'recipientId']).where('readAt', 'is', null).execute();
    expect(unreadMessages.length).toBe(inbox.body.items.length);
    expect(unreadMessages.map((m) => m.recipientId)).toEqual(expect.arrayContaining([fanId, performerId]));
    let badges = 0;
    for (const recipient of new Set(unreadMessages.map((m) => m.recipientId))) badges += (await t.api('/messages/unread', { headers: await headersOf(recipient) })).body.count;
    expect(badges).toBe(unreadMessages.length);
    const notified = await db.selectFrom('notifications').select('payload').where('type', '=', 'message').execute();
    expect(notified.map((n) => JSON.parse(n.payload).messageId).sort()).toEqual(unreadMessages.map((m) => m.id).sort());
  });

  it('the demo fan one logs in as has no subscription (so the paywall is there to meet)', async () => {
    const fan = await t.ctx.db.selectFrom('users').select('id').where('email', '=', seeded.credentials!.fan.email).executeTakeFirstOrThrow();
    expect(await t.ctx.db.selectFrom('subscriptions').select('id').where('userId', '=', fan.id).execute()).toEqual([]);
  });

  it('one more real subscription (checkout + sandbox webhook) adds exactly one subscriber; a like, a comment and a view add one each', async () => {
    // The performer with the most demo subscribers: a counter reset to the rows of one subscription would show.
    const performer = await t.ctx.db.selectFrom('performers').select(['id', 'username', 'subscriberCount']).orderBy('subscriberCount', 'desc').orderBy('id').limit(1).executeTakeFirstOrThrow();
    expect(performer.subscriberCount).toBeGreaterThanOrEqual(2);
    const before = (await t.api(`/performers/${performer.username}`)).body.subscriberCount;
    expect(before).toBe(performer.subscriberCount);

    const fan = await createUser(t.ctx.db, 'user');
    const checkout = await t.api('/payment/subscribe', { method: 'POST', headers: fan.headers, json: { performerId: performer.id, type: 'monthly' } });
    expect(checkout.status, JSON.stringify(checkout.body)).toBe(201);
    const paid = await payWithSandbox(t, fan, checkout.body.redirectUrl);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const payment = await t.ctx.db.selectFrom('payments').select('status').where('id', '=', checkout.body.paymentId).executeTakeFirstOrThrow();
    expect(payment.status).toBe('success');
    expect((await t.api(`/performers/${performer.username}`)).body.subscriberCount).toBe(before + 1);

    // The most watched free video, with demo likes and views already on it.
    const video = await t.ctx.db
      .selectFrom('videos')
      .select(['id', 'likeCount', 'viewCount', 'commentCount'])
      .where('access', '=', 'free')
      .orderBy('viewCount', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    expect(video.viewCount).toBeGreaterThan(0);
    const liked = await t.api('/reactions', { method: 'POST', headers: fan.headers, json: { objectType: 'video', objectId: video.id, action: 'like' } });
    expect(liked.body).toMatchObject({ changed: true, count: video.likeCount + 1 });
    const commented = await t.api('/comments', { method: 'POST', headers: fan.headers, json: { objectType: 'video', objectId: video.id, content: 'One more, for real.' } });
    expect(commented.body.commentCount).toBe(video.commentCount + 1);
    const viewed = await t.api(`/user/assets/videos/${video.id}/views`, { method: 'POST', headers: fan.headers });
    expect(viewed.body).toEqual({ counted: true, views: video.viewCount + 1 });
    const shown = (await t.api(`/user/assets/videos/${video.id}`)).body.stats;
    expect(shown).toMatchObject({ likes: video.likeCount + 1, comments: video.commentCount + 1, views: video.viewCount + 1 });

    // And everything still adds up.
    expect((await counterMismatches(t)).mismatches).toEqual([]);
  });
});
