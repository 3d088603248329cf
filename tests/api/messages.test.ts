import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { makeTestMedia, postForm, type TestMedia } from '../helpers/uploads.js';
import { collect, nextEvent, sleep, socketsClosedAfterEach, startInstance, type TestSocket } from '../helpers/realtime-client.js';
import { makeVideo, subscribe, subscriptionRow, userRow } from '../../server/seed/factories.js';
import { mediaSigner } from '../../server/media/signed-urls.js';
import { newId } from '../../server/db/ids.js';
import { waitFor } from '../helpers/uploads.js';
import { deliverMassBatch, JOB_MASS_MESSAGE } from '../../server/messages/mass.service.js';
import { createSession } from '../helpers/sessions.js';
import { messagesDeps } from '../../server/messages/messages.service.js';

/**
 * Direct messages (docs/product.md, Messages): who may write first, blocks, keyset paging, attachments only for the
 * two participants and admins, read state and unread counts, live delivery to both participants' tabs.
 */

const open = socketsClosedAfterEach();
/** A small budget so the limit is reached in a test; no other test sends this many as one user. */
/** Mass messages at the production batch (50 a run) with a short pause, so a three-run delivery takes a moment. */
const env = { RATE_LIMIT_MESSAGES: '8/60', JOBS_POLL_MS: '50', JOBS_BACKOFF_MS: '50', JOBS_BACKOFF_MAX_MS: '200', MASS_MESSAGE_PAUSE_MS: '20' };

describe.each(engines)('messages on %s', (engine) => {
  let t: TestApp;
  let media: TestMedia;
  let admin: TestUser;

  beforeAll(async () => {
    t = await startTestApp(engine, { env });
    media = await makeTestMedia();
    admin = await createUser(t.ctx.db, 'admin');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await media?.cleanup();
  });

  const as = (who: TestUser | undefined, method: string, path: string, json?: unknown) => t.api(path, { method, headers: who?.headers ?? {}, json });
  const start = (who: TestUser, other: TestUser | string) => as(who, 'POST', '/messages/conversations', { userId: typeof other === 'string' ? other : other.id });
  const send = (who: TestUser, conversationId: string, text: string) => as(who, 'POST', `/messages/conversations/${conversationId}/messages`, { text });
  const setPolicy = (perf: TestUser, messagePolicy: string) => as(perf, 'PUT', '/performer/message-settings', { messagePolicy });

  it("follows the performer's setting for who writes first, and lets either side answer once the other wrote", async () => {
    const db = t.ctx.db;
    const perf = await createUser(db, 'performer');
    const otherPerf = await createUser(db, 'performer');
    const [stranger, subscriber, follower] = [await createUser(db), await createUser(db), await createUser(db)];
    await subscribe(db, subscriber.id, perf.id);
    expect((await as(follower, 'POST', `/performers/${perf.id}/follow`)).status).toBe(200);

    // Default: subscribers.
    expect((await as(perf, 'GET', '/performer/message-settings')).body).toEqual({ messagePolicy: 'subscribers' });
    const refused = await start(stranger, perf);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('MESSAGES_NOT_ALLOWED');
    expect((await start(follower, perf)).body.code).toBe('MESSAGES_NOT_ALLOWED');
    const opened = await start(subscriber, perf.username);
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    expect(opened.body).toMatchObject({ fanId: subscriber.id, performerId: perf.id, canSend: true, lastMessage: null, other: { _id: perf.id, role: 'performer' } });
    // Opening again answers the same conversation (one per pair).
    expect((await start(subscriber, perf)).body._id).toBe(opened.body._id);
    expect(await db.selectFrom('conversations').select('id').where('performerId', '=', perf.id).execute()).toHaveLength(1);

    // 'fans': anyone signed in; 'nobody': no one new, subscribers included.
    expect((await setPolicy(perf, 'fans')).status).toBe(200);
    const strangers = await start(stranger, perf);
    expect(strangers.status).toBe(200);
    expect((await send(stranger, strangers.body._id, 'Hello there')).status).toBe(201);
    expect((await setPolicy(perf, 'nobody')).status).toBe(200);
    const late = await send(stranger, strangers.body._id, 'Anyone?');
    expect([late.status, late.body.code]).toEqual([403, 'MESSAGES_NOT_ALLOWED']);
    expect((await send(subscriber, opened.body._id, 'Hi')).body.code).toBe('MESSAGES_NOT_ALLOWED');
    // The performer always answers a fan who wrote; then the fan may reply whatever the setting.
    expect((await send(perf, strangers.body._id, 'Hi, thanks!')).status).toBe(201);
    expect((await send(stranger, strangers.body._id, 'Thank you')).status).toBe(201);
    expect((await as(stranger, 'GET', `/messages/conversations/${strangers.body._id}`)).body).toMatchObject({ canSend: true, whyNot: null });
    expect((await as(subscriber, 'GET', `/messages/conversations/${opened.body._id}`)).body).toMatchObject({ canSend: false, whyNot: 'This performer does not take new messages' });

    // A performer writes first only to followers and subscribers.
    const newFan = await createUser(db);
    const cold = await start(perf, newFan);
    expect([cold.status, cold.body.code]).toEqual([403, 'MESSAGES_NOT_ALLOWED']);
    const toFollower = await start(perf, follower);
    expect(toFollower.status).toBe(200);
    expect((await send(perf, toFollower.body._id, 'Thanks for following')).status).toBe(201);
    expect((await send(follower, toFollower.body._id, 'You are welcome')).status).toBe(201);

    // Only a fan and a performer; nobody with themself; unknown accounts are 404.
    expect((await start(otherPerf, perf)).body.code).toBe('MESSAGES_NOT_ALLOWED');
    expect((await start(stranger, subscriber)).body.code).toBe('MESSAGES_NOT_ALLOWED');
    expect((await start(admin, perf)).body.code).toBe('MESSAGES_NOT_ALLOWED');
    expect((await start(perf, perf)).status).toBe(404);
    expect((await start(stranger, 'no-such-user')).status).toBe(404);
    // Settings are the performer's own; a bad value changes nothing.
    expect((await setPolicy(perf, 'everyone')).status).toBe(400);
    expect((await as(stranger, 'PUT', '/performer/message-settings', { messagePolicy: 'fans' })).status).toBe(403);
    expect((await as(perf, 'GET', '/performer/message-settings')).body).toEqual({ messagePolicy: 'nobody' });
  });

  it('shows a conversation, its messages and its files to its two participants and admins only', async () => {
    const db = t.ctx.db;
    const perf = await createUser(db, 'performer', { performer: { messagePolicy: 'fans' } });
    const fan = await createUser(db, 'user', { name: 'Writing Fan' });
    const [otherFan, otherPerf] = [await createUser(db), await createUser(db, 'performer')];
    const conv = (await start(fan, perf)).body._id as string;
    const sent = await postForm(t, `/messages/conversations/${conv}/messages`, {
      fields: { text: 'A picture and a clip' },
      files: [{ name: 'file', filename: 'me.png', data: media.png, type: 'image/png' }, { name: 'file', filename: 'clip.mp4', data: media.video, type: 'video/mp4' }],
    }, { headers: fan.headers });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body.attachments.map((a: { kind: string }) => a.kind)).toEqual(['image', 'video']);
    const text = JSON.stringify(sent.body);
    expect(text).not.toContain('private/');
    expect(text).not.toContain('/media/public/');
    const [picture] = sent.body.attachments as Array<{ url: string; _id: string }>;
    expect(picture!.url).toMatch(new RegExp(`^/media/protected/message/${sent.body._id}/${picture!._id}\\?`));

    const fetchAs = (who: TestUser | undefined, url: string) => fetch(`${t.url}${url}`, { headers: who?.headers ?? {} });
    // The sender's URL opens for the sender only.
    const own = await fetchAs(fan, picture!.url);
    expect(own.status).toBe(200);
    expect(own.headers.get('cache-control')).toContain('private');
    const served = await sharp(Buffer.from(await own.arrayBuffer())).metadata();
    expect([served.format, served.width, served.height]).toEqual(['png', 64, 48]);
    expect((await fetchAs(otherFan, picture!.url)).status).toBe(403);
    expect((await fetchAs(undefined, picture!.url)).status).toBe(403);
    // The performer and an admin get URLs of their own from the thread.
    for (const who of [perf, admin]) {
      const thread = await as(who, 'GET', `/messages/conversations/${conv}/messages`);
      expect(thread.status).toBe(200);
      const url = thread.body.items[0].attachments[0].url;
      expect((await fetchAs(who, url)).status).toBe(200);
    }
    // Even a URL correctly signed for an outsider opens nothing: the route checks the conversation.
    const signer = mediaSigner(t.config);
    for (const outsider of [otherFan, otherPerf]) {
      const forged = signer.sign({ objectType: 'message', objectId: sent.body._id, fileId: picture!._id }, outsider.id).url;
      expect((await fetchAs(outsider, forged)).status).toBe(404);
      // Another fan or performer finds no conversation, message or list entry.
      expect((await as(outsider, 'GET', `/messages/conversations/${conv}`)).status).toBe(404);
      expect((await as(outsider, 'GET', `/messages/conversations/${conv}/messages`)).status).toBe(404);
      expect((await send(outsider, conv, 'Let me in')).status).toBe(404);
      expect((await as(outsider, 'POST', `/messages/conversations/${conv}/read`)).status).toBe(404);
      const list = await as(outsider, 'GET', '/messages/conversations');
      expect(JSON.stringify(list.body)).not.toContain(conv);
      expect((await as(outsider, 'GET', '/messages/unread')).body).toEqual({ count: 0 });
    }
    expect((await as(admin, 'GET', `/messages/conversations/${conv}`)).body).toMatchObject({ _id: conv, canSend: false });
    expect((await send(admin, conv, 'Admin here')).status).toBe(404);

    // Files that are not a picture or a video are refused, and nothing is kept.
    const files = await db.selectFrom('files').select('id').execute();
    const pdf = await postForm(t, `/messages/conversations/${conv}/messages`, { fields: { text: 'A document' }, files: [{ name: 'file', filename: 'doc.pdf', data: media.pdf }] }, { headers: fan.headers });
    expect([pdf.status, pdf.body.code]).toEqual([400, 'UNSUPPORTED_MEDIA']);
    expect(await db.selectFrom('files').select('id').execute()).toHaveLength(files.length);
    // A picture keeps nothing its camera wrote (a phone's position, its make).
    const tagged = await sharp(media.jpeg).withMetadata({ exif: { IFD0: { Copyright: 'Secret Beach 51.5N' } } }).jpeg().toBuffer();
    expect(tagged.includes('Secret Beach')).toBe(true);
    const withExif = await postForm(t, `/messages/conversations/${conv}/messages`, { files: [{ name: 'file', filename: 'beach.jpg', data: tagged, type: 'image/jpeg' }] }, { headers: fan.headers });
    expect(withExif.status, JSON.stringify(withExif.body)).toBe(201);
    const clean = Buffer.from(await (await fetchAs(fan, withExif.body.attachments[0].url)).arrayBuffer());
    expect(clean.includes('Secret Beach')).toBe(false);
    expect((await sharp(clean).metadata()).exif).toBeUndefined();
    // Text is plain: markup stays text, control characters go, limits hold.
    const markup = await send(fan, conv, '  <b>hi</b>\u0007 there  ');
    expect(markup.body.text).toBe('<b>hi</b> there');
    expect((await send(fan, conv, '   ')).body.code).toBe('EMPTY_MESSAGE');
    expect((await send(fan, conv, 'x'.repeat(2001))).body.code).toBe('MESSAGE_TOO_LONG');
  }, 60_000);

  it('blocks a fan from messages, comments, tips and new subscriptions, in one place, until unblocked', async () => {
    const db = t.ctx.db;
    const perf = await createUser(db, 'performer', { performer: { messagePolicy: 'fans', monthlyPrice: 999 } });
    const fan = await createUser(db, 'user', { name: 'Blocked Fan' });
    const running = await createUser(db);
    await subscribe(db, running.id, perf.id);
    const video = await makeVideo(t.ctx, perf.id, { access: 'free', withFiles: false });
    const conv = (await start(fan, perf)).body._id as string;
    expect((await send(fan, conv, 'First')).status).toBe(201);

    expect((await as(perf, 'POST', '/performer/blocks', { userId: fan.username })).body).toEqual({ userId: fan.id, blocked: true });
    expect((await as(perf, 'POST', '/performer/blocks', { userId: running.id })).status).toBe(200);
    expect((await as(perf, 'POST', '/performer/blocks', { userId: perf.id })).status).toBe(400);
    const blocked = (await as(perf, 'GET', '/performer/blocks')).body.items.map((b: { _id: string }) => b._id);
    expect(blocked.sort()).toEqual([fan.id, running.id].sort());
    // Another performer's list is not this one.
    expect((await as(await createUser(db, 'performer'), 'GET', '/performer/blocks')).body.items).toEqual([]);

    const message = await send(fan, conv, 'Again');
    expect([message.status, message.body.code]).toEqual([403, 'BLOCKED_BY_PERFORMER']);
    // The performer's page says so, as the sending route does: the thread still opens, a new one does not.
    const messaging = async (who: TestUser) => (await as(who, 'GET', `/users/me/header?performer=${perf.id}`)).body.performer.messaging;
    expect(await messaging(fan)).toEqual({ allowed: true, reason: 'This performer does not accept messages from you', conversationId: conv });
    expect(await messaging(running)).toEqual({ allowed: false, reason: 'This performer does not accept messages from you', conversationId: null });
    expect((await start(fan, perf)).body).toMatchObject({ _id: conv, blocked: true, canSend: false });
    const comment = await as(fan, 'POST', '/comments', { objectType: 'video', objectId: video.id, content: 'Nice' });
    expect([comment.status, comment.body.code]).toEqual([403, 'BLOCKED_BY_PERFORMER']);
    const checkout = await as(fan, 'POST', '/payment/subscribe', { performerId: perf.id, type: 'monthly' });
    expect([checkout.status, checkout.body.code]).toEqual([403, 'BLOCKED_BY_PERFORMER']);
    const tip = await as(fan, 'POST', '/payment/tip', { performerId: perf.id, amount: 500 });
    expect([tip.status, tip.body.code]).toEqual([403, 'BLOCKED_BY_PERFORMER']);
    expect(await db.selectFrom('payments').select('id').where('userId', '=', fan.id).execute()).toEqual([]);
    // A running subscription is left as it is.
    const sub = await db.selectFrom('subscriptions').select(['status', 'expiresAt']).where('userId', '=', running.id).executeTakeFirstOrThrow();
    expect(sub.status).toBe('active');
    // The performer still answers in the thread; other fans are not affected.
    expect((await send(perf, conv, 'Goodbye')).status).toBe(201);
    expect((await as(await createUser(db), 'POST', '/comments', { objectType: 'video', objectId: video.id, content: 'Nice' })).status).toBe(201);

    expect((await as(perf, 'DELETE', `/performer/blocks/${fan.id}`)).body).toEqual({ userId: fan.id, blocked: false });
    expect((await as(perf, 'DELETE', `/performer/blocks/${fan.id}`)).body).toEqual({ userId: fan.id, blocked: false });
    expect((await send(fan, conv, 'Thanks')).status).toBe(201);
    expect(await messaging(fan)).toEqual({ allowed: true, reason: null, conversationId: conv });
    expect((await as(fan, 'POST', '/comments', { objectType: 'video', objectId: video.id, content: 'Back' })).status).toBe(201);
  });

  it('pages a thread newest first by (time, id), stable when messages share a timestamp', async () => {
    const db = t.ctx.db;
    const perf = await createUser(db, 'performer', { performer: { messagePolicy: 'fans' } });
    const fan = await createUser(db);
    const conv = (await start(fan, perf)).body._id as string;
    // 23 messages, in groups sharing one timestamp, written straight to the table (the send limit is small here).
    const rows = Array.from({ length: 23 }, (_, i) => ({
      id: newId(Date.now() - 1000 * 1000 + ((i * 7919) % 23)),
      conversationId: conv,
      senderId: i % 2 ? perf.id : fan.id,
      recipientId: i % 2 ? fan.id : perf.id,
      body: `m${i}`,
      massMessageId: null,
      createdAt: new Date(Date.UTC(2026, 0, 1, 12, 0, Math.floor(i / 5))).toISOString(),
      readAt: null,
    }));
    await db.insertInto('messages').values(rows).execute();
    const expected = [...rows].sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1)).map((r) => r.id);
    const seen: string[] = [];
    let cursor: string | null | undefined;
    let pages = 0;
    do {
      const res = await as(fan, 'GET', `/messages/conversations/${conv}/messages?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((m: { _id: string }) => m._id));
      cursor = res.body.nextCursor;
      pages += 1;
    } while (cursor && pages < 20);
    expect(pages).toBe(5);
    expect(seen).toEqual(expected);
    expect((await as(fan, 'GET', `/messages/conversations/${conv}/messages?cursor=garbage`)).status).toBe(400);
  });

  it('keeps read state and unread counts per conversation and in total, with a notification per message', async () => {
    const db = t.ctx.db;
    const perf = await createUser(db, 'performer', { name: 'Reading Performer', performer: { messagePolicy: 'fans' } });
    const [fanA, fanB] = [await createUser(db, 'user', { name: 'Fan A' }), await createUser(db, 'user', { name: 'Fan B' })];
    const convA = (await start(fanA, perf)).body._id as string;
    const convB = (await start(fanB, perf)).body._id as string;
    for (const text of ['one', 'two', 'three']) expect((await send(fanA, convA, text)).status).toBe(201);
    expect((await send(fanB, convB, 'hello')).status).toBe(201);

    expect((await as(perf, 'GET', '/messages/unread')).body).toEqual({ count: 4 });
    const list = await as(perf, 'GET', '/messages/conversations');
    expect(list.body.total).toBe(2);
    // Newest activity first, with the last message and the unread count of each.
    expect(list.body.items.map((c: { _id: string }) => c._id)).toEqual([convB, convA]);
    expect(list.body.items[1]).toMatchObject({ unreadCount: 3, lastMessage: { text: 'three', senderId: fanA.id }, other: { _id: fanA.id, name: 'Fan A' } });
    expect((await as(fanA, 'GET', '/messages/conversations')).body.items[0]).toMatchObject({ _id: convA, unreadCount: 0 });

    const bellBefore = (await as(perf, 'GET', '/notifications/unread-count')).body.count;
    const read = await as(perf, 'POST', `/messages/conversations/${convA}/read`);
    expect(read.body).toMatchObject({ conversationId: convA, count: 1 });
    expect((await as(perf, 'GET', '/messages/unread')).body).toEqual({ count: 1 });
    // The answer carries the bell's count, with the thread's message notifications read.
    expect(read.body.notifications).toBeLessThan(bellBefore);
    expect(read.body.notifications).toBe((await as(perf, 'GET', '/notifications/unread-count')).body.count);
    const thread = await as(fanA, 'GET', `/messages/conversations/${convA}/messages`);
    expect(thread.body.items.every((m: { readAt: string | null }) => m.readAt)).toBe(true);
    // Reading is the recipient's: the sender reading changes nothing.
    expect((await as(fanB, 'POST', `/messages/conversations/${convB}/read`)).body.count).toBe(0);
    expect((await as(perf, 'GET', '/messages/unread')).body).toEqual({ count: 1 });

    const notes = await db.selectFrom('notifications').select(['type', 'payload']).where('userId', '=', perf.id).execute();
    expect(notes).toHaveLength(4);
    const payload = JSON.parse(notes.find((n) => JSON.parse(n.payload).conversationId === convB)!.payload);
    expect(notes.every((n) => n.type === 'message')).toBe(true);
    expect(payload).toMatchObject({ conversationId: convB, actorId: fanB.id, actorName: 'Fan B', url: `/messages/${convB}` });
    expect(payload.messageId).toBeTruthy();
  });

  it("reading a conversation reads its message notifications too (only those), and pushes the bell's count", async () => {
    const db = t.ctx.db;
    const perf = await createUser(db, 'performer', { performer: { messagePolicy: 'fans' } });
    const [fanA, fanB, outsider] = [await createUser(db), await createUser(db), await createUser(db)];
    const convA = (await start(fanA, perf)).body._id as string;
    const convB = (await start(fanB, perf)).body._id as string;
    for (const text of ['one', 'two']) expect((await send(fanA, convA, text)).status).toBe(201);
    expect((await send(fanB, convB, 'three')).status).toBe(201);
    // A notification of another type, about nothing here.
    await db.insertInto('notifications').values({ id: newId(), userId: perf.id, type: 'tip', payload: '{}', readAt: null, createdAt: new Date().toISOString(), thread: null, emailedAt: null, pushedAt: new Date().toISOString() }).execute();
    const unread = async () =>
      (await db.selectFrom('notifications').select(['type', 'thread']).where('userId', '=', perf.id).where('readAt', 'is', null).execute()).map((n) => `${n.type} ${n.thread ?? ''}`.trim()).sort();
    expect(await unread()).toEqual([`message conversation:${convA}`, `message conversation:${convA}`, `message conversation:${convB}`, 'tip']);
    expect((await as(perf, 'GET', '/notifications/unread-count')).body).toEqual({ count: 4 });

    // An outsider's read is 404 and reads nothing.
    expect((await as(outsider, 'POST', `/messages/conversations/${convA}/read`)).status).toBe(404);
    expect(await unread()).toHaveLength(4);

    const tab = await open(t.url, { token: perf.token });
    await sleep(300); // the counts a new connection is sent first
    const bell = nextEvent(tab, 'notification/count');
    const badge = nextEvent(tab, 'messages/unread');
    const read = await as(perf, 'POST', `/messages/conversations/${convA}/read`);
    expect(read.status).toBe(200);
    expect(read.body.count).toBe(1);
    expect((await bell).count).toBe(2);
    expect((await badge).count).toBe(1);
    expect(await unread()).toEqual([`message conversation:${convB}`, 'tip']);
    // The messages were already read: reading again still reads a notification left unread (one that arrived in between).
    await db.updateTable('notifications').set({ readAt: null }).where('userId', '=', perf.id).where('thread', '=', `conversation:${convA}`).execute();
    const again = nextEvent(tab, 'notification/count');
    expect((await as(perf, 'POST', `/messages/conversations/${convA}/read`)).status).toBe(200);
    expect((await again).count).toBe(2);
    expect(await unread()).toEqual([`message conversation:${convB}`, 'tip']);
    // The fan's own side is untouched by the performer's reading.
    expect((await db.selectFrom('notifications').select('id').where('userId', '=', fanA.id).execute())).toEqual([]);
  });

  it("delivers live to the recipient's tabs and the sender's other tabs, and nobody else", async () => {
    const db = t.ctx.db;
    const perf = await createUser(db, 'performer', { performer: { messagePolicy: 'fans' } });
    const fan = await createUser(db);
    const outsider = await createUser(db);
    const conv = (await start(fan, perf)).body._id as string;
    const [perfTab1, perfTab2, fanTab, outsiderTab] = (await Promise.all([perf, perf, fan, outsider].map((u) => open(t.url, { token: u.token })))) as TestSocket[];
    const strangerHeard = collect(outsiderTab!, 'message/created');
    const heard = [nextEvent(perfTab1!, 'message/created'), nextEvent(perfTab2!, 'message/created'), nextEvent(fanTab!, 'message/created')];
    const badge = nextEvent(perfTab1!, 'messages/unread');
    const sent = await postForm(t, `/messages/conversations/${conv}/messages`, { fields: { text: 'Live!' }, files: [{ name: 'file', filename: 'p.png', data: media.png, type: 'image/png' }] }, { headers: fan.headers });
    expect(sent.status).toBe(201);
    const [p1, p2, f] = await Promise.all(heard);
    for (const p of [p1!, p2!, f!]) expect(p).toMatchObject({ conversationId: conv, message: { _id: sent.body._id, text: 'Live!', senderId: fan.id } });
    // Each side gets URLs signed for themself.
    expect(p1!.message.attachments[0]!.url).toContain(`u=${perf.id}`);
    expect(f!.message.attachments[0]!.url).toContain(`u=${fan.id}`);
    expect((await badge).count).toBe(1);

    const seen = nextEvent(fanTab!, 'message/read');
    const cleared = nextEvent(perfTab2!, 'messages/unread', (p) => p.count === 0);
    expect((await as(perf, 'POST', `/messages/conversations/${conv}/read`)).status).toBe(200);
    expect(await seen).toMatchObject({ conversationId: conv, readerId: perf.id });
    await cleared;
    await sleep(200);
    expect(strangerHeard).toEqual([]);
  });

  it('delivers a mass message once into each recipient\'s conversation, skipping blocked fans, with progress', async () => {
    const db = t.ctx.db;
    const perf = await createUser(db, 'performer', { name: 'Mass Sender' });
    const [a, b, blocked, follower] = [await createUser(db), await createUser(db), await createUser(db), await createUser(db)];
    for (const fan of [a, b, blocked]) await subscribe(db, fan.id, perf.id);
    expect((await as(follower, 'POST', `/performers/${perf.id}/follow`)).status).toBe(200);
    expect((await as(perf, 'POST', '/performer/blocks', { userId: blocked.id })).status).toBe(200);
    // a already talks with the performer: the copy lands in that conversation.
    const existing = (await start(a, perf)).body._id as string;
    expect((await as(a, 'POST', '/performer/mass-messages', { text: 'x', audience: 'subscribers' })).status).toBe(403);
    expect((await as(await createUser(db, 'performer'), 'POST', '/performer/mass-messages', { text: 'x', audience: 'subscribers' })).body.code).toBe('NO_RECIPIENTS');

    const sent = await postForm(t, '/performer/mass-messages', { fields: { text: 'New set out tonight!', audience: 'subscribers' }, files: [{ name: 'file', filename: 'p.png', data: media.png, type: 'image/png' }] }, { headers: perf.headers });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body).toMatchObject({ total: 2, delivered: 0, status: 'sending', attachments: 1 });
    const done = await waitFor(async () => {
      const list = await as(perf, 'GET', '/performer/mass-messages');
      const item = list.body.items.find((m: { _id: string }) => m._id === sent.body._id);
      return item?.status === 'done' ? item : null;
    }, 'the mass message to be delivered');
    expect(done).toMatchObject({ total: 2, delivered: 2 });
    const copies = await db.selectFrom('messages').select(['recipientId', 'conversationId']).where('massMessageId', '=', sent.body._id).execute();
    expect(copies.map((c) => c.recipientId).sort()).toEqual([a.id, b.id].sort());
    expect(copies.find((c) => c.recipientId === a.id)!.conversationId).toBe(existing);
    // Each recipient reads it in their thread, with the picture signed for them; the blocked fan and the follower got nothing.
    const thread = await as(b, 'GET', `/messages/conversations/${copies.find((c) => c.recipientId === b.id)!.conversationId}/messages`);
    expect(thread.body.items[0]).toMatchObject({ text: 'New set out tonight!', senderId: perf.id });
    expect((await fetch(`${t.url}${thread.body.items[0].attachments[0].url}`, { headers: b.headers })).status).toBe(200);
    for (const nobody of [blocked, follower]) expect((await as(nobody, 'GET', '/messages/unread')).body).toEqual({ count: 0 });
    expect((await as(b, 'GET', '/messages/unread')).body).toEqual({ count: 1 });

    // A repeated delivery (a retried job) writes nothing twice, a batch at a time.
    await db.updateTable('massMessages').set({ status: 'sending', cursorUserId: '', finishedAt: null }).where('id', '=', sent.body._id).execute();
    const deps = messagesDeps(t.ctx);
    expect(await deliverMassBatch(deps, sent.body._id, 1)).toBe(true);
    expect(await deliverMassBatch(deps, sent.body._id, 1)).toBe(true);
    expect(await deliverMassBatch(deps, sent.body._id, 1)).toBe(false);
    expect(await db.selectFrom('messages').select('id').where('massMessageId', '=', sent.body._id).execute()).toHaveLength(2);
    expect((await as(b, 'GET', '/messages/unread')).body).toEqual({ count: 1 });
  });

  it('lands a mass message to 120 subscribers (three runs) once each, though its job runs twice at once and again when done', async () => {
    const db = t.ctx.db;
    const perf = await createUser(db, 'performer', { name: 'Big Sender' });
    const fans = Array.from({ length: 120 }, (_, i) => userRow({ username: `mass${i}x${perf.id.slice(-8).toLowerCase()}` }));
    await db.insertInto('users').values(fans).execute();
    await db.insertInto('subscriptions').values(fans.map((f) => subscriptionRow({ userId: f.id, performerId: perf.id }))).execute();
    const fanIds = fans.map((f) => f.id).sort();
    const reader = { headers: { authorization: `Bearer ${await createSession(db, fans[37]!.id)}` } } as TestUser;

    const sent = await as(perf, 'POST', '/performer/mass-messages', { text: 'To all 120 of you', audience: 'subscribers' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body).toMatchObject({ total: 120, delivered: 0 });
    const id: string = sent.body._id;
    const subject = `mass-message:${id}`;
    // A second chain of the same job (as when a job is claimed again after its lease ran out, or enqueued twice):
    // the worker runs both at once (JOBS_CONCURRENCY 2), and two more runs of the first batch start here meanwhile.
    await t.ctx.jobs.enqueue(db, JOB_MASS_MESSAGE, { massMessageId: id }, { subject });
    const deps = messagesDeps(t.ctx);
    await Promise.all([deliverMassBatch(deps, id, 50), deliverMassBatch(deps, id, 50)]);
    const settled = async () => {
      const jobs = await db.selectFrom('jobs').select(['status', 'lastError']).where('subject', '=', subject).execute();
      return jobs.every((j) => j.status === 'done' || j.status === 'failed') ? jobs : null;
    };
    await waitFor(async () => ((await db.selectFrom('massMessages').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status === 'done' ? true : null), 'the mass message to be delivered');
    const jobs = await waitFor(settled, 'every run of the job to finish');
    expect(jobs.filter((j) => j.status === 'failed')).toEqual([]);
    // Both chains walked the audience: more runs than the three one chain needs.
    expect(jobs.length).toBeGreaterThanOrEqual(4);

    const landed = async () => {
      const copies = await db.selectFrom('messages').select(['recipientId', 'conversationId', 'id']).where('massMessageId', '=', id).execute();
      const notified = await db.selectFrom('notifications').select('userId').where('type', '=', 'message').where('userId', 'in', fanIds).execute();
      const conversations = await db.selectFrom('conversations').select(['id', 'fanId', 'lastMessageId']).where('performerId', '=', perf.id).execute();
      return { copies, notified, conversations };
    };
    const once = async () => {
      const { copies, notified, conversations } = await landed();
      expect(copies).toHaveLength(120);
      expect(copies.map((c) => c.recipientId).sort()).toEqual(fanIds);
      expect(notified.map((n) => n.userId).sort()).toEqual(fanIds);
      expect(conversations.map((c) => c.fanId).sort()).toEqual(fanIds);
      // Each conversation's last message is the one copy in it.
      const copyIn = new Map(copies.map((c) => [c.conversationId, c.id]));
      for (const c of conversations) expect(c.lastMessageId).toBe(copyIn.get(c.id));
      const listed = (await as(perf, 'GET', '/performer/mass-messages')).body.items.find((m: { _id: string }) => m._id === id);
      expect(listed).toMatchObject({ total: 120, delivered: 120, status: 'done' });
      expect((await as(reader, 'GET', '/messages/unread')).body).toEqual({ count: 1 });
    };
    await once();

    // Enqueued again once done: the run finds the message done and writes nothing.
    await t.ctx.jobs.enqueue(db, JOB_MASS_MESSAGE, { massMessageId: id }, { subject });
    await waitFor(settled, 'the late run to finish');
    // The whole walk again from the start, by two runners racing batch for batch (a retried delivery).
    await db.updateTable('massMessages').set({ status: 'sending', cursorUserId: '', finishedAt: null }).where('id', '=', id).execute();
    const walk = async () => {
      while (await deliverMassBatch(deps, id, 50));
    };
    await Promise.all([walk(), walk()]);
    await once();
  });

  it('limits how fast one user sends', async () => {
    const perf = await createUser(t.ctx.db, 'performer', { performer: { messagePolicy: 'fans' } });
    const fan = await createUser(t.ctx.db);
    const conv = (await start(fan, perf)).body._id as string;
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push((await send(fan, conv, `flood ${i}`)).status);
    // The conversation's opening counted as one of the eight.
    expect(statuses.filter((s) => s === 201)).toHaveLength(7);
    expect(statuses.slice(-2)).toEqual([429, 429]);
    expect((await send(perf, conv, 'The performer is not limited by the fan')).status).toBe(201);
  });
});

const redisUrl = process.env.REDIS_URL;
const pgUrl = process.env.DATABASE_URL;

describe.skipIf(!redisUrl || !pgUrl)('messages across two instances (PostgreSQL + Redis)', () => {
  let a: TestApp;
  let b: Awaited<ReturnType<typeof startInstance>>;

  beforeAll(async () => {
    a = await startTestApp('postgres', { env: { REDIS_URL: redisUrl! } });
    b = await startInstance(a);
  });
  afterAll(async () => {
    await b?.built.close();
    await a?.close();
  });

  it('a message sent through instance A reaches the recipient on instance B, and the read receipt comes back', async () => {
    const perf = await createUser(a.ctx.db, 'performer', { performer: { messagePolicy: 'fans' } });
    const fan = await createUser(a.ctx.db);
    const conv = (await a.api('/messages/conversations', { method: 'POST', headers: fan.headers, json: { userId: perf.id } })).body._id;
    const onB = await open(b.url, { token: perf.token });
    const fanOnA = await open(a.url, { token: fan.token });
    await sleep(200);
    const got = nextEvent(onB, 'message/created', () => true, 8000);
    const badge = nextEvent(onB, 'messages/unread', () => true, 8000);
    const sent = await a.api(`/messages/conversations/${conv}/messages`, { method: 'POST', headers: fan.headers, json: { text: 'Across instances' } });
    expect(sent.status).toBe(201);
    expect((await got).message._id).toBe(sent.body._id);
    expect((await badge).count).toBe(1);
    const receipt = nextEvent(fanOnA, 'message/read', () => true, 8000);
    const read = await fetch(`${b.url}/api/messages/conversations/${conv}/read`, { method: 'POST', headers: perf.headers });
    expect(read.status).toBe(200);
    expect((await receipt).readerId).toBe(perf.id);
  });
});
