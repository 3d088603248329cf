import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createSession, createUser, type TestUser } from '../helpers/sessions.js';
import { bearer, buildEngagement, type Engagement, recordingCaller } from '../helpers/engagement-fixture.js';
import { daysFromNow, entitle, makeGallery, makeProduct, subscribe } from '../../server/seed/factories.js';
import { ask, collect, nextEvent, sleep, socketsClosedAfterEach, type TestSocket } from '../helpers/realtime-client.js';
import { postForm } from '../helpers/uploads.js';
import { countComments } from '../../server/comments/comments.repository.js';
import { hashPassword } from '../../server/auth/password.js';
import type { EngagementObjectType } from '../../common/enums.js';

/**
 * Comments follow access, live too. A locked item's comments (subscribers-only, for sale, a digital product)
 * are read, written and edited only by those who may open the item: subscribers or buyers, its performer,
 * admins. Everyone else gets 403 LOCKED with the public count, over HTTP (list, create, edit) and over
 * socket.io (object/watch is refused, and no comment reaches their socket). A socket whose user changes
 * (auth/login with another token, logout, a revoked session) or whose subscription lapsed leaves the room at
 * the next auth/login or object/watch. Who edits and deletes: the author edits, the author / the object's
 * performer / an admin delete, nobody else. The micro-cache is on here: a guest's refusal may be shared, a
 * subscriber's list never is.
 */

const redisEnv: Record<string, string> = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};

const open = socketsClosedAfterEach();

describe.each(engines)('comments follow access on %s', (engine) => {
  let t: TestApp;
  let e: Engagement;
  /** Subscribed to star (and so to e.subsVideo). */
  let subscriber: TestUser;
  let subscriber2: TestUser;
  /** Bought the sale gallery and the digital product. */
  let buyer: TestUser;
  let saleGallery: { id: string };
  let digital: { id: string };
  const serverErrors: string[] = [];

  const call = recordingCaller(() => t, serverErrors);
  const post = (who: { token: string } | null, objectType: EngagementObjectType, objectId: string, content: string) =>
    call('POST', '/comments', who, { objectType, objectId, content });
  const search = (objectType: EngagementObjectType, objectId: string, who?: { token: string } | null) =>
    call('GET', `/comments/search?objectType=${objectType}&objectId=${objectId}`, who);

  beforeAll(async () => {
    // The micro-cache on, as in production: anonymous answers of /comments/search may be reused.
    t = await startTestApp(engine, { env: { ...redisEnv, PAGE_CACHE_MS: '60000' } });
    e = await buildEngagement(t.ctx);
    subscriber = await createUser(t.ctx.db, 'user', { name: 'Subscriber' });
    subscriber2 = await createUser(t.ctx.db, 'user', { name: 'Subscriber Two' });
    buyer = await createUser(t.ctx.db, 'user', { name: 'Buyer' });
    await subscribe(t.ctx.db, subscriber.id, e.star.id);
    await subscribe(t.ctx.db, subscriber2.id, e.star.id);
    saleGallery = await makeGallery(t.ctx, e.star.id, { title: 'Sale gallery', access: 'sale', photos: 1 });
    digital = await makeProduct(t.ctx, e.star.id, { name: 'Digital guide', type: 'digital' });
    await entitle(t.ctx.db, buyer.id, 'gallery', saleGallery.id);
    await entitle(t.ctx.db, buyer.id, 'product', digital.id);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('without access the list is refused with the public count, the same for every guest; nothing of the text leaks', async () => {
    const secret = `subscribers only ${Math.random()}`;
    const made = await post(subscriber, 'video', e.subsVideo.id, secret);
    expect(made.status).toBe(201);
    const count = made.body.commentCount as number;
    // A subscriber's read is never cached for guests.
    const forSubscriber = await search('video', e.subsVideo.id, subscriber);
    expect(forSubscriber.status).toBe(200);
    expect(forSubscriber.body.items.map((c: { content: string }) => c.content)).toContain(secret);
    expect(forSubscriber.headers.get('cache-control')).toBe('private, no-store');

    for (const who of [null, null, e.fan, e.other]) {
      const res = await search('video', e.subsVideo.id, who);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ code: 'LOCKED', message: 'Subscribe to read and join the conversation', details: { needs: 'subscription', commentCount: count } });
      expect(JSON.stringify(res.body)).not.toContain(secret);
    }
    // Sale items: buyers only.
    for (const [type, id] of [['gallery', saleGallery.id], ['product', digital.id]] as const) {
      for (const who of [null, e.fan, subscriber]) {
        const res = await search(type, id, who);
        expect(res.status, `${type} ${who ? 'user' : 'guest'}`).toBe(403);
        expect(res.body.details).toEqual({ needs: 'purchase', commentCount: 0 });
      }
    }
    // Not visible stays a 404, before any question of access.
    expect((await search('video', e.draft.id)).status).toBe(404);
    // Free items are open to everyone, guests included.
    expect((await search('video', e.video.id)).status).toBe(200);
  });

  it('subscribers, buyers, the performer and admins read and write; a lapsed subscription or a refunded purchase does not', async () => {
    for (const who of [subscriber, e.star, e.admin]) {
      expect((await search('video', e.subsVideo.id, who)).status).toBe(200);
      expect((await post(who, 'video', e.subsVideo.id, 'allowed')).status).toBe(201);
    }
    for (const [type, id] of [['gallery', saleGallery.id], ['product', digital.id]] as const) {
      for (const who of [buyer, e.star, e.admin]) {
        expect((await search(type, id, who)).status, type).toBe(200);
        expect((await post(who, type, id, 'bought it')).status, type).toBe(201);
      }
    }
    const lapsed = await createUser(t.ctx.db, 'user');
    await subscribe(t.ctx.db, lapsed.id, e.star.id, { startedAt: daysFromNow(-40), expiresAt: daysFromNow(-1) });
    const refunded = await createUser(t.ctx.db, 'user');
    await entitle(t.ctx.db, refunded.id, 'gallery', saleGallery.id, { revokedAt: daysFromNow(-1) });
    expect((await search('video', e.subsVideo.id, lapsed)).status).toBe(403);
    expect((await search('gallery', saleGallery.id, refunded)).status).toBe(403);
  });

  it('without access nothing is created: 401 for guests, 403 LOCKED for signed-in users, no row and no counter change', async () => {
    const before = await countComments(t.ctx.db, 'video', e.subsVideo.id);
    expect((await post(null, 'video', e.subsVideo.id, 'guest')).status).toBe(401);
    const fan = await post(e.fan, 'video', e.subsVideo.id, 'let me in');
    expect(fan.status).toBe(403);
    expect(fan.body).toMatchObject({ code: 'LOCKED', details: { needs: 'subscription' } });
    expect((await post(e.other, 'video', e.subsVideo.id, 'another performer')).status).toBe(403);
    expect((await post(subscriber, 'gallery', saleGallery.id, 'subscribed is not bought')).status).toBe(403);
    expect((await post(e.fan, 'product', digital.id, 'not bought')).status).toBe(403);
    expect(await countComments(t.ctx.db, 'video', e.subsVideo.id)).toBe(before);
    // The public count did not move either.
    expect((await search('video', e.subsVideo.id)).body.details.commentCount).toBe(before);
  });

  it('an author whose subscription lapsed may no longer edit (JSON or multipart) but may still delete their comment', async () => {
    const author = await createUser(t.ctx.db, 'user');
    await subscribe(t.ctx.db, author.id, e.star.id);
    const made = (await post(author, 'video', e.subsVideo.id, 'while subscribed')).body;
    expect((await call('PUT', `/comments/${made._id}`, author, { content: 'still subscribed' })).status).toBe(200);
    await t.ctx.db.updateTable('subscriptions').set({ expiresAt: daysFromNow(-1) }).where('userId', '=', author.id).execute();
    const edit = await call('PUT', `/comments/${made._id}`, author, { content: 'after it lapsed' });
    expect(edit.status).toBe(403);
    expect(edit.body.code).toBe('LOCKED');
    const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#00ff00' } }).png().toBuffer();
    const form = await postForm(t, `/comments/${made._id}`, { fields: { content: 'with a picture' }, files: [{ name: 'image', filename: 'p.png', data: png, type: 'image/png' }] }, { method: 'PUT', headers: bearer(author) });
    expect(form.status).toBe(403);
    expect(form.body.code).toBe('LOCKED');
    const row = await t.ctx.db.selectFrom('comments').select(['content', 'imageFileId']).where('id', '=', made._id).executeTakeFirstOrThrow();
    expect(row).toEqual({ content: 'still subscribed', imageFileId: null });
    expect(await t.ctx.db.selectFrom('files').select('id').where('variant', '=', 'comment').where('ownerId', '=', author.id).execute()).toEqual([]);
    expect((await call('DELETE', `/comments/${made._id}`, author)).status).toBe(200);
  });

  it('who edits and deletes on a locked item: the author edits; another fan, the performer and an admin do not; the author, the performer and an admin delete', async () => {
    const mk = async () => (await post(subscriber, 'video', e.subsVideo.id, 'a fan wrote this')).body._id as string;
    const [a, b, c] = [await mk(), await mk(), await mk()];
    expect((await call('PUT', `/comments/${a}`, subscriber, { content: 'fixed my typo' })).status).toBe(200);
    for (const who of [subscriber2, e.star, e.admin, e.fan]) {
      const res = await call('PUT', `/comments/${a}`, who, { content: 'words put in the mouth of a fan' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
    const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#ff00ff' } }).png().toBuffer();
    const byPerformer = await postForm(t, `/comments/${a}`, { files: [{ name: 'image', filename: 'x.png', data: png, type: 'image/png' }] }, { method: 'PUT', headers: bearer(e.star) });
    expect(byPerformer.status).toBe(403);
    expect((await t.ctx.db.selectFrom('comments').select('content').where('id', '=', a).executeTakeFirstOrThrow()).content).toBe('fixed my typo');

    for (const who of [subscriber2, e.other, e.fan]) expect((await call('DELETE', `/comments/${a}`, who)).status).toBe(403);
    expect((await call('DELETE', `/comments/${a}`, e.star)).status).toBe(200);
    expect((await call('DELETE', `/comments/${b}`, e.admin)).status).toBe(200);
    expect((await call('DELETE', `/comments/${c}`, subscriber)).status).toBe(200);
    expect((await search('video', e.subsVideo.id, e.star)).body.canModerate).toBe(true);
    expect((await search('video', e.subsVideo.id, subscriber)).body.canModerate).toBe(false);
  });

  it('object/watch on a locked item is refused to guests and fans, who receive no comment; subscribers, the performer and admins receive it', async () => {
    const room = { objectType: 'video' as const, objectId: e.subsVideo.id };
    const guest = await open(t.url);
    const fan = await open(t.url, { token: e.fan.token });
    const sub = await open(t.url, { token: subscriber.token });
    const owner = await open(t.url, { token: e.star.token });
    const admin = await open(t.url, { token: e.admin.token });
    expect(await ask(guest, 'object/watch', room)).toMatchObject({ ok: false, code: 'LOCKED' });
    expect(await ask(fan, 'object/watch', room)).toMatchObject({ ok: false, code: 'LOCKED' });
    // Without waiting for an acknowledgement either.
    guest.emit('object/watch', room);
    for (const s of [sub, owner, admin]) expect(await ask(s, 'object/watch', room)).toEqual({ ok: true });
    // A guest may not watch what it may not see at all either.
    expect(await ask(guest, 'object/watch', { objectType: 'video', objectId: e.draft.id })).toMatchObject({ ok: false, code: 'NOT_FOUND' });
    expect(await ask(owner, 'object/watch', { objectType: 'video', objectId: e.draft.id })).toEqual({ ok: true });
    const leaks = [collect(guest, 'comment/created'), collect(fan, 'comment/created'), collect(guest, 'comment/updated'), collect(fan, 'comment/deleted')];
    const got = [sub, owner, admin].map((s) => nextEvent(s, 'comment/created'));
    const made = await post(subscriber2, 'video', e.subsVideo.id, 'for subscribers only');
    expect(made.status).toBe(201);
    for (const p of got) expect((await p).comment.content).toBe('for subscribers only');
    const updated = nextEvent(sub, 'comment/updated');
    await call('PUT', `/comments/${made.body._id}`, subscriber2, { content: 'edited for subscribers' });
    await updated;
    const deleted = nextEvent(sub, 'comment/deleted');
    await call('DELETE', `/comments/${made.body._id}`, subscriber2);
    await deleted;
    await sleep(100);
    expect(leaks).toEqual([[], [], [], []]);
    // Free items and posts stay open to guests.
    expect(await ask(guest, 'object/watch', { objectType: 'video', objectId: e.video.id })).toEqual({ ok: true });
    expect(await ask(guest, 'object/watch', { objectType: 'post', objectId: e.post.id })).toEqual({ ok: true });
    expect(await ask(guest, 'object/watch', { objectType: 'performer', objectId: e.star.id })).toEqual({ ok: true });
    // Buyers watch what they bought; a subscription does not open a sale item.
    const bought = await open(t.url, { token: buyer.token });
    expect(await ask(bought, 'object/watch', { objectType: 'gallery', objectId: saleGallery.id })).toEqual({ ok: true });
    expect(await ask(sub, 'object/watch', { objectType: 'gallery', objectId: saleGallery.id })).toMatchObject({ ok: false, code: 'LOCKED' });
  });

  async function watching(token: string) {
    const s = await open(t.url, { token });
    expect(await ask(s, 'object/watch', { objectType: 'video', objectId: e.subsVideo.id })).toEqual({ ok: true });
    return s;
  }
  /** Posts a comment and resolves once `witness` (still allowed) received it, so any leak had its chance to arrive. */
  async function commentSeenBy(witness: TestSocket, content: string) {
    const seen = nextEvent(witness, 'comment/created', (p) => p.comment.content === content);
    expect((await post(e.star, 'video', e.subsVideo.id, content)).status).toBe(201);
    await seen;
    await sleep(100);
  }

  it('a subscriber socket that logs out, or switches to a token without access, stops receiving at once', async () => {
    const witness = await watching(e.star.token);
    const loggingOut = await watching(subscriber.token);
    const switching = await watching(subscriber.token);
    const toOtherSubscriber = await watching(subscriber.token);
    const before = [collect(loggingOut, 'comment/created'), collect(switching, 'comment/created'), collect(toOtherSubscriber, 'comment/created')];
    await commentSeenBy(witness, 'everyone subscribed sees this');
    expect(before.map((seen) => seen.length)).toEqual([1, 1, 1]);

    expect(await ask(loggingOut, 'auth/logout', {})).toEqual({ ok: true, userId: null });
    expect(await ask(switching, 'auth/login', { token: e.fan.token })).toEqual({ ok: true, userId: e.fan.id });
    expect(await ask(toOtherSubscriber, 'auth/login', { token: subscriber2.token })).toEqual({ ok: true, userId: subscriber2.id });
    const after = [collect(loggingOut, 'comment/created'), collect(switching, 'comment/created'), collect(toOtherSubscriber, 'comment/created')];
    await commentSeenBy(witness, 'after the change');
    // Another subscriber keeps the room; the others left it.
    expect(after.map((seen) => seen.length)).toEqual([0, 0, 1]);
    // And watching again is refused to them.
    expect(await ask(loggingOut, 'object/watch', { objectType: 'video', objectId: e.subsVideo.id })).toMatchObject({ ok: false, code: 'LOCKED' });
    expect(await ask(switching, 'object/watch', { objectType: 'video', objectId: e.subsVideo.id })).toMatchObject({ ok: false, code: 'LOCKED' });
  });

  it('a revoked session is dropped from the room at the next auth/login', async () => {
    const witness = await watching(e.star.token);
    const u = await createUser(t.ctx.db, 'user');
    await subscribe(t.ctx.db, u.id, e.star.id);
    const s = await watching(u.token);
    await t.ctx.db.updateTable('sessions').set({ revokedAt: new Date().toISOString() }).where('userId', '=', u.id).execute();
    expect(await ask(s, 'auth/login', {})).toMatchObject({ ok: false, userId: null });
    const seen = collect(s, 'comment/created');
    await commentSeenBy(witness, 'after the revocation');
    expect(seen).toEqual([]);
  });

  it('a subscription that lapses closes the room at the next auth/login or object/watch', async () => {
    const witness = await watching(e.star.token);
    const u = await createUser(t.ctx.db, 'user');
    await subscribe(t.ctx.db, u.id, e.star.id);
    // A second session of the same user: one socket re-authenticates, the other watches again.
    const second = await createSession(t.ctx.db, u.id);
    const byLogin = await watching(u.token);
    const byWatch = await watching(second);
    await t.ctx.db.updateTable('subscriptions').set({ status: 'expired', expiresAt: daysFromNow(-1) }).where('userId', '=', u.id).execute();
    expect(await ask(byLogin, 'auth/login', {})).toEqual({ ok: true, userId: u.id });
    expect(await ask(byWatch, 'object/watch', { objectType: 'video', objectId: e.subsVideo.id })).toMatchObject({ ok: false, code: 'LOCKED' });
    const seen = [collect(byLogin, 'comment/created'), collect(byWatch, 'comment/created')];
    await commentSeenBy(witness, 'after the lapse');
    expect(seen).toEqual([[], []]);
    // Renewed: watching again opens it.
    await t.ctx.db.updateTable('subscriptions').set({ status: 'active', expiresAt: daysFromNow(30) }).where('userId', '=', u.id).execute();
    expect(await ask(byWatch, 'object/watch', { objectType: 'video', objectId: e.subsVideo.id })).toEqual({ ok: true });
  });

  it('signing out over HTTP drops the sockets of that session; a password change drops those of the other sessions', async () => {
    const u = await createUser(t.ctx.db, 'user');
    await subscribe(t.ctx.db, u.id, e.star.id);
    await t.ctx.db.updateTable('users').set({ passwordHash: await hashPassword('old-password-1') }).where('id', '=', u.id).execute();
    const other = await createSession(t.ctx.db, u.id);
    const third = await createSession(t.ctx.db, u.id);
    const [signingOut, kept, elsewhere] = [await watching(u.token), await watching(other), await watching(third)];
    const ended = (s: TestSocket) => new Promise<string>((resolve) => s.once('disconnect', (reason) => resolve(reason)));
    const outGone = ended(signingOut);
    expect((await call('POST', '/auth/logout', u)).status).toBe(204);
    expect(await outGone).toBe('io server disconnect');
    expect(kept.connected).toBe(true);

    const elsewhereGone = ended(elsewhere);
    const changed = await call('PUT', '/auth/users/me/password', { token: other }, { currentPassword: 'old-password-1', password: 'new-password-2' });
    expect(changed.status).toBe(200);
    expect(await elsewhereGone).toBe('io server disconnect');
    // The session that changed the password stays, in its rooms.
    const still = nextEvent(kept, 'comment/created', (p) => p.comment.content === 'still here');
    await post(e.star, 'video', e.subsVideo.id, 'still here');
    await still;
    expect(kept.connected).toBe(true);
  });

  it('a guest socket that signs in as a subscriber may then watch', async () => {
    const s = await open(t.url);
    expect(await ask(s, 'object/watch', { objectType: 'video', objectId: e.subsVideo.id })).toMatchObject({ ok: false, code: 'LOCKED' });
    expect(await ask(s, 'auth/login', { token: subscriber.token })).toEqual({ ok: true, userId: subscriber.id });
    expect(await ask(s, 'object/watch', { objectType: 'video', objectId: e.subsVideo.id })).toEqual({ ok: true });
    const got = nextEvent(s, 'comment/created', (p) => p.comment.content === 'welcome in');
    await post(e.star, 'video', e.subsVideo.id, 'welcome in');
    expect((await got).comment.objectId).toBe(e.subsVideo.id);
  });

  it('never answered 5xx', () => {
    expect(serverErrors).toEqual([]);
  });
});
