import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { buildCatalogue, type Catalogue } from '../helpers/catalogue-fixture.js';
import type { TestUser } from '../helpers/sessions.js';
import { newId } from '../../server/db/ids.js';
import { UNREAD_COUNT_CAP } from '../../common/limits.js';
import { unreadMessages } from '../../server/messages/messages.repository.js';
import { unreadNotificationCount } from '../../server/notifications/notifications.repository.js';

/**
 * `GET /users/me/header?performer=`, `?video=` and `?feed=`: what a performer's or a video's page, or the home feed,
 * shows the signed-in visitor about themselves, asked with the header because the page is the same for every member
 * (docs/architecture.md, the member shell). Each visitor gets their own state and nobody else's; a performer or video
 * whose page they may not see is null, as the page is 404.
 */
describe.each(engines)("the member header with a page's state on %s", (engine) => {
  let t: TestApp;
  let c: Catalogue;

  beforeAll(async () => {
    t = await startTestApp(engine);
    c = await buildCatalogue(t.ctx);
    // A week's free trial for new subscribers: a lapsed subscriber is not new.
    await t.ctx.db.updateTable('performers').set({ trialDays: 7 }).where('id', '=', c.alice.id).execute();
  });
  afterAll(() => t?.close());

  const header = (who: TestUser | null, key: string) => t.api(`/users/me/header?performer=${encodeURIComponent(key)}`, { headers: who?.headers ?? {} });
  const viewer = async (who: TestUser, key: string) => {
    const res = await header(who, key);
    expect(res.status).toBe(200);
    return { ...res, body: res.body.performer };
  };

  it("counts each visitor's own unread messages and notifications, and says who may hold something a guest's copy locks", async () => {
    const facts = async (who: TestUser) => {
      const res = await t.api('/users/me/header', { headers: who.headers });
      expect(res.status).toBe(200);
      return { unread: res.body.unread, unlocksMore: res.body.unlocksMore };
    };
    expect(await facts(c.fan)).toEqual({ unread: { messages: 0, notifications: 0 }, unlocksMore: false });
    // A live subscription or a purchase may open items; a lapsed subscription does not; performers and admins always may.
    for (const who of [c.subscriber, c.buyer, c.alice, c.admin]) expect((await facts(who)).unlocksMore).toBe(true);
    expect((await facts(c.lapsed)).unlocksMore).toBe(false);
    // Only the visitor's own unread rows count.
    const at = new Date().toISOString();
    const note = (userId: string, readAt: string | null) => ({ id: newId(), userId, type: 'tip', payload: '{}', readAt, createdAt: at, thread: null, emailedAt: null, pushedAt: at });
    await t.ctx.db.insertInto('notifications').values([note(c.fan.id, null), note(c.fan.id, null), note(c.fan.id, at), note(c.buyer.id, null)]).execute();
    const conversationId = newId();
    await t.ctx.db.insertInto('conversations').values({ id: conversationId, fanId: c.buyer.id, performerId: c.bob.id, createdAt: at, lastMessageAt: at, lastMessageId: null }).execute();
    const message = (readAt: string | null) => ({ id: newId(), conversationId, senderId: c.buyer.id, recipientId: c.bob.id, body: 'hello', massMessageId: null, createdAt: at, readAt });
    await t.ctx.db.insertInto('messages').values([message(null), message(at)]).execute();
    expect(await facts(c.fan)).toEqual({ unread: { messages: 0, notifications: 2 }, unlocksMore: false });
    expect((await facts(c.bob)).unread).toEqual({ messages: 1, notifications: 0 });
    expect(await facts(c.buyer)).toEqual({ unread: { messages: 0, notifications: 1 }, unlocksMore: true });

    // A backlog is counted up to UNREAD_COUNT_CAP (the badges show 99+), here and in the counts sent live.
    await t.ctx.db.insertInto('notifications').values(Array.from({ length: UNREAD_COUNT_CAP + 5 }, () => note(c.bob.id, null))).execute();
    await t.ctx.db.insertInto('messages').values(Array.from({ length: UNREAD_COUNT_CAP + 5 }, () => message(null))).execute();
    expect((await facts(c.bob)).unread).toEqual({ messages: UNREAD_COUNT_CAP, notifications: UNREAD_COUNT_CAP });
    expect((await t.api('/notifications/unread-count', { headers: c.bob.headers })).body).toEqual({ count: UNREAD_COUNT_CAP });
    expect(await unreadMessages(t.ctx.db, c.bob.id)).toBe(UNREAD_COUNT_CAP);
    expect(await unreadNotificationCount(t.ctx.db, c.bob.id)).toBe(UNREAD_COUNT_CAP);
    await t.ctx.db.updateTable('notifications').set({ readAt: at }).where('userId', '=', c.bob.id).execute();
    await t.ctx.db.updateTable('messages').set({ readAt: at }).where('recipientId', '=', c.bob.id).where('readAt', 'is', null).execute();
    await t.ctx.db.insertInto('messages').values(Array.from({ length: UNREAD_COUNT_CAP - 1 }, () => message(null))).execute();
    expect((await facts(c.bob)).unread).toEqual({ messages: UNREAD_COUNT_CAP - 1, notifications: 0 });
  });

  it('answers each signed-in visitor with their own follow, subscription, offer and messaging, never cached', async () => {
    const fan = await viewer(c.fan, c.alice.id);
    expect(fan.headers.get('cache-control')).toBe('private, no-store');
    expect(fan.body).toMatchObject({ performerId: c.alice.id, self: false, following: false, subscribed: false, offer: { monthly: 999 } });
    expect(fan.body.messaging).toMatchObject({ conversationId: null });
    // A new fan's first month is the trial; the lapsed subscriber pays from the first day.
    const monthly = (body: { offer: { plans: Array<{ type: string; bundleMonths: number | null; firstPrice: number; trialDays: number | null }> } }) =>
      body.offer.plans.find((p) => p.type === 'monthly' && p.bundleMonths === null);
    expect(monthly(fan.body)).toMatchObject({ firstPrice: 0, trialDays: 7 });
    expect(monthly((await viewer(c.lapsed, c.alice.id)).body)).toMatchObject({ firstPrice: 999, trialDays: null });
    expect((await viewer(c.subscriber, 'alice')).body).toMatchObject({ performerId: c.alice.id, subscribed: true });
    // Alice lets subscribers write first: her subscriber may, the fan is told why not, and both are read as the
    // sending route reads them.
    expect((await viewer(c.subscriber, c.alice.id)).body.messaging).toEqual({ allowed: true, reason: null, conversationId: null });
    expect((await viewer(c.fan, c.alice.id)).body.messaging).toMatchObject({ allowed: false, reason: expect.stringContaining('subscribers') });
    expect((await t.api('/messages/conversations', { method: 'POST', headers: c.subscriber.headers, json: { userId: c.alice.id } })).status).toBe(200);

    // Following shows at once, to the follower only.
    expect((await t.api(`/performers/${c.alice.id}/follow`, { method: 'POST', headers: c.fan.headers })).status).toBe(200);
    expect((await viewer(c.fan, c.alice.id)).body).toMatchObject({ following: true, followerCount: 1 });
    expect((await viewer(c.buyer, c.alice.id)).body).toMatchObject({ following: false, followerCount: 1 });
  });

  it("lets a fan write back once the performer wrote in their thread, whatever the performer's policy", async () => {
    // Alice lets only subscribers write first; the buyer holds no subscription to her.
    const at = new Date().toISOString();
    const conversationId = newId();
    await t.ctx.db.insertInto('conversations').values({ id: conversationId, fanId: c.buyer.id, performerId: c.alice.id, createdAt: at, lastMessageAt: at, lastMessageId: null }).execute();
    const message = (senderId: string, recipientId: string) => ({ id: newId(), conversationId, senderId, recipientId, body: 'hi', massMessageId: null, createdAt: at, readAt: null });
    await t.ctx.db.insertInto('messages').values(message(c.buyer.id, c.alice.id)).execute();
    // The thread opens, but writing waits for a subscription or the performer's answer.
    expect((await viewer(c.buyer, c.alice.id)).body.messaging).toMatchObject({ allowed: true, reason: expect.stringContaining('subscribers'), conversationId });
    await t.ctx.db.insertInto('messages').values(message(c.alice.id, c.buyer.id)).execute();
    expect((await viewer(c.buyer, c.alice.id)).body.messaging).toEqual({ allowed: true, reason: null, conversationId });
    // The same answer the sending route gives.
    const sent = await t.api(`/messages/conversations/${conversationId}/messages`, { method: 'POST', headers: c.buyer.headers, json: { text: 'thanks' } });
    expect(sent.status).toBe(201);
  });

  it('gives the performer their own page without controls, and performers and admins no Message button', async () => {
    expect((await viewer(c.alice, c.alice.id)).body).toMatchObject({ self: true, messaging: null });
    expect((await viewer(c.bob, c.alice.id)).body).toMatchObject({ self: false, messaging: null });
    expect((await viewer(c.admin, c.alice.id)).body).toMatchObject({ self: false, messaging: null, subscribed: false });
  });

  it('finds a performer only where their page opens, and asks for a session', async () => {
    // Carol is inactive: her own page and an admin's open, a fan's is none of theirs, like an unknown performer's.
    expect((await viewer(c.carol, c.carol.id)).body).toMatchObject({ self: true });
    expect((await viewer(c.admin, 'carol')).body).toMatchObject({ performerId: c.carol.id });
    expect((await viewer(c.fan, c.carol.id)).body).toBe(null);
    expect((await viewer(c.fan, 'nobody-here')).body).toBe(null);
    // The header alone says nothing of any performer; a key that is no id or username is refused.
    const plain = await t.api('/users/me/header', { headers: c.fan.headers });
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty('performer');
    const bad = await header(c.fan, '../users/me');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ message: expect.any(String), code: expect.any(String) });
    const guest = await header(null, c.alice.id);
    expect(guest.status).toBe(401);
    expect(guest.body).toMatchObject({ message: expect.any(String), code: expect.any(String) });
  });

  // `?video=`: what a video's page shows the signed-in visitor of their own: whether it plays for them (its file
  // signed for them alone), the plans that open it priced for them, and what they reacted; null where the page is not
  // open to them.
  const videoHeader = (who: TestUser | null, key: string) => t.api(`/users/me/header?video=${encodeURIComponent(key)}`, { headers: who?.headers ?? {} });
  const videoViewer = async (who: TestUser, key: string) => {
    const res = await videoHeader(who, key);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    return res.body.video;
  };

  it('opens a video to those it is open to, with its file signed for them alone, and prices it for the others', async () => {
    const subs = c.videos.subs.id;
    // The fan: locked, offered the plans as the checkout would charge them (a new subscriber's trial), no file.
    const fan = await videoViewer(c.fan, subs);
    expect(fan).toMatchObject({ videoId: subs, self: false, locked: true, media: null, offer: { monthly: 999 } });
    expect(fan.offer.plans.find((p: { type: string; bundleMonths: number | null }) => p.type === 'monthly' && !p.bundleMonths)).toMatchObject({ firstPrice: 0, trialDays: 7 });
    // The lapsed subscriber pays from the first day.
    const lapsed = await videoViewer(c.lapsed, subs);
    expect(lapsed.offer.plans.find((p: { type: string; bundleMonths: number | null }) => p.type === 'monthly' && !p.bundleMonths)).toMatchObject({ firstPrice: 999, trialDays: null });
    // The subscriber, the performer and an admin get the file, signed for each of them, and no offer.
    for (const who of [c.subscriber, c.alice, c.admin]) {
      const open = await videoViewer(who, subs);
      expect(open).toMatchObject({ locked: false, offer: null, self: who === c.alice });
      expect(open.media.url).toContain(`u=${who.id}`);
      // The signed address opens for them, and for nobody else.
      expect((await fetch(`${t.url}${open.media.url}`, { headers: { ...who.headers, range: 'bytes=0-0' } })).status).toBe(206);
      expect((await fetch(`${t.url}${open.media.url}`, { headers: { ...c.fan.headers, range: 'bytes=0-0' } })).status).toBe(403);
    }
    // A sale video: the buyer's opens, the fan's has nothing but the price the page shows (no plans to offer).
    expect(await videoViewer(c.fan, c.videos.sale.id)).toMatchObject({ locked: true, media: null, offer: null });
    expect((await videoViewer(c.buyer, c.videos.sale.id)).media.url).toContain(`u=${c.buyer.id}`);
    // A free video opens for every member, by its slug too.
    expect(await videoViewer(c.fan, c.videos.free.id)).toMatchObject({ locked: false, media: { url: expect.stringContaining(`u=${c.fan.id}`) } });
    expect((await videoViewer(c.fan, c.videos.free.slug)).videoId).toBe(c.videos.free.id);
  });

  it("prices a plan the performer sets no price for at the site's package, on the performer's and the video's state", async () => {
    // Alice sets a monthly price only: her yearly plan is the site's yearly package, as the checkout would charge it.
    const at = new Date().toISOString();
    const id = newId();
    await t.ctx.db.insertInto('subscriptionPackages').values({ id, name: 'Site yearly', description: null, type: 'yearly', price: 8999, durationDays: 360, createdAt: at, updatedAt: at }).execute();
    try {
      const yearly = (offer: { yearly: number | null; plans: Array<{ type: string; price: number; periodDays: number }> }) => ({
        yearly: offer.yearly, plan: offer.plans.find((p) => p.type === 'yearly'),
      });
      const expected = { yearly: 8999, plan: { price: 8999, periodDays: 360 } };
      expect(yearly((await viewer(c.fan, c.alice.id)).body.offer)).toMatchObject(expected);
      expect(yearly((await videoViewer(c.fan, c.videos.subs.id)).offer)).toMatchObject(expected);
    } finally {
      await t.ctx.db.deleteFrom('subscriptionPackages').where('id', '=', id).execute();
    }
    expect((await viewer(c.fan, c.alice.id)).body.offer.yearly).toBeNull();
  });

  it('tells each visitor what they reacted, and nobody else', async () => {
    const id = c.videos.free.id;
    expect((await videoViewer(c.fan, id)).reacted).toEqual({ like: false, favourite: false, watch_later: false });
    for (const action of ['like', 'watch_later']) {
      expect((await t.api('/reactions', { method: 'POST', headers: c.fan.headers, json: { objectType: 'video', objectId: id, action } })).status).toBe(200);
    }
    expect((await videoViewer(c.fan, id)).reacted).toEqual({ like: true, favourite: false, watch_later: true });
    expect((await videoViewer(c.subscriber, id)).reacted).toEqual({ like: false, favourite: false, watch_later: false });
  });

  it('finds a video only where its page opens, and asks for a session', async () => {
    // Alice's draft opens for her and an admin; for a fan it is none, like an unknown video.
    expect(await videoViewer(c.alice, c.videos.draft.id)).toMatchObject({ self: true, locked: false });
    expect(await videoViewer(c.admin, c.videos.draft.id)).toMatchObject({ videoId: c.videos.draft.id });
    expect(await videoViewer(c.fan, c.videos.draft.id)).toBe(null);
    expect(await videoViewer(c.fan, 'nobody-here')).toBe(null);
    // Asked with a performer, the answer holds both; a key that is no id or slug is refused.
    const both = await t.api(`/users/me/header?performer=alice&video=${c.videos.subs.id}`, { headers: c.subscriber.headers });
    expect(both.body.performer).toMatchObject({ performerId: c.alice.id, subscribed: true });
    expect(both.body.video).toMatchObject({ videoId: c.videos.subs.id, locked: false });
    const bad = await videoHeader(c.fan, '../../users/me');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ message: expect.any(String), code: expect.any(String) });
    const guest = await videoHeader(null, c.videos.free.id);
    expect(guest.status).toBe(401);
  });

  it("brings the first page of the visitor's own feed, as the feed answers it, and only when asked", async () => {
    const feedHeader = (who: TestUser | null, size: string) => t.api(`/users/me/header?feed=${size}`, { headers: who?.headers ?? {} });
    const shown = (page: { items: Array<{ _id: string; kind: string; video?: { locked: boolean; media: unknown } }>; nextCursor: string | null }) => ({
      ids: page.items.map((i) => i._id),
      open: page.items.map((i) => i.video && { locked: i.video.locked, media: Boolean(i.video.media) }),
      more: Boolean(page.nextCursor),
    });
    // The subscriber's feed is alice's: her subscribers' video plays for them, its file signed for them alone.
    const mine = await feedHeader(c.subscriber, '50');
    expect(mine.status).toBe(200);
    expect(shown(mine.body.feed)).toEqual(shown((await t.api('/feed?limit=50', { headers: c.subscriber.headers })).body));
    // A page of the size asked, which goes on where the feed's own next page would.
    const two = await feedHeader(c.subscriber, '2');
    expect(two.body.feed.items.length).toBe(2);
    expect(two.body.feed.nextCursor).toBe((await t.api('/feed?limit=2', { headers: c.subscriber.headers })).body.nextCursor);
    expect(two.body.feed.nextCursor).toEqual(expect.any(String));
    expect(mine.body.feed.items.some((i: { video?: { _id: string } }) => i.video?._id === c.videos.subs.id)).toBe(true);
    expect(JSON.stringify(mine.body.feed)).toContain(`u=${c.subscriber.id}`);
    // Someone who follows nobody has an empty feed, and nothing of the subscriber's.
    const other = await feedHeader(c.bob, '50');
    expect(other.body.feed).toMatchObject({ items: [], nextCursor: null });
    // Not asked, not answered; a page size out of range is refused and a guest asked to log in.
    expect((await t.api('/users/me/header', { headers: c.subscriber.headers })).body).not.toHaveProperty('feed');
    for (const size of ['0', '51', 'abc', '2.5']) {
      const bad = await feedHeader(c.subscriber, size);
      expect(bad.status, size).toBe(400);
      expect(bad.body).toMatchObject({ message: expect.any(String), code: expect.any(String) });
    }
    expect((await feedHeader(null, '3')).status).toBe(401);
  });
});
