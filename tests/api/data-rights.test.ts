import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createSession, createUser, type TestUser } from '../helpers/sessions.js';
import { socketsClosedAfterEach } from '../helpers/realtime-client.js';
import { buildMoneyWorld, ledger, payWithSandbox, sandboxBillingOf, subscriptionOf, type MoneyWorld } from '../helpers/money-fixture.js';
import { waitFor } from '../helpers/uploads.js';
import { counterMismatches } from '../helpers/counters.js';
import { hashPassword } from '../../server/auth/password.js';
import { mediaSigner } from '../../server/media/signed-urls.js';
import { makeVerification, makeVideo, putFile } from '../../server/seed/factories.js';
import { WITHDRAWN_BY_DELETION } from '../../server/verification/verification.service.js';
import { JOB_DATA_EXPORT_EXPIRE } from '../../server/privacy/export.service.js';

/**
 * Data rights (docs/product.md, Your data): a user's export holds their own data and nobody else's, opens only for
 * them through a short-lived signed URL, and is deleted when it expires; deleting an account erases the person,
 * keeps the money records on a tombstone, stops renewals, keeps every counter equal to its rows and takes a
 * performer's items off the site.
 */

const openSocket = socketsClosedAfterEach();
const PASSWORD = 'Correct-horse-42';
const SECRETS = {
  fanToPerf: 'fan-says-4c1e only for Mona',
  perfToFan: 'perf-says-8d2a only for the fan',
  fanComment: 'fan-comment-2b7f on the clip',
  fanTip: 'fan-tip-note-6a0c',
  thirdToPerf: 'third-says-9e3d never in the fan export',
  thirdComment: 'third-comment-1f5b never in the fan export',
};

describe.each(engines)('data rights on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;
  let fan: TestUser;
  let perf: TestUser;
  let third: TestUser;

  const api = (who: TestUser | null, method: string, path: string, json?: unknown) => t.api(path, { method, headers: who?.headers ?? {}, json });
  const setPassword = async (who: TestUser) => t.ctx.db.updateTable('users').set({ passwordHash: await hashPassword(PASSWORD) }).where('id', '=', who.id).execute();
  const media = (url: string, who: TestUser | null) => fetch(`${t.url}${url}`, { headers: who?.headers ?? {} });
  const readyExport = async (who: TestUser) => {
    const asked = await api(who, 'POST', '/users/me/data-exports');
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    expect(asked.body).toMatchObject({ status: 'queued', downloadUrl: null });
    return waitFor(async () => {
      const res = await api(who, 'GET', `/users/me/data-exports/${asked.body._id}`);
      return res.body.status === 'ready' ? res.body : null;
    }, 'the export to be ready');
  };

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { RATE_LIMIT_DATA_RIGHTS: '100/3600', RATE_LIMIT_MESSAGES: '1000/60' } });
    w = await buildMoneyWorld(t.ctx);
    ({ fan, perf } = w);
    third = w.fan2;
    await t.ctx.db.updateTable('performers').set({ messagePolicy: 'fans' }).execute();
    // The fan subscribes (renewing, through the sandbox provider), buys a video and a mug, tips with a note.
    const sub = await api(fan, 'POST', '/payment/subscribe', { performerId: perf.id, type: 'monthly' });
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    expect((await payWithSandbox(t, fan, sub.body.redirectUrl)).status).toBe(200);
    const video = await api(fan, 'POST', `/payment/purchase-video/${w.videos.saleVideo.id}`, {});
    expect(video.status, JSON.stringify(video.body)).toBe(201);
    expect((await payWithSandbox(t, fan, video.body.redirectUrl)).status).toBe(200);
    const order = await api(fan, 'POST', '/payment/purchase-products', { items: [{ productId: w.products.mug.id, quantity: 1 }], shippingAddress: '1 Fan Street, Fantown' });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    expect((await payWithSandbox(t, fan, order.body.redirectUrl)).status).toBe(200);
    const tip = await api(fan, 'POST', '/payment/tip', { performerId: perf.id, amount: 500, note: SECRETS.fanTip });
    expect(tip.status, JSON.stringify(tip.body)).toBe(201);
    expect((await payWithSandbox(t, fan, tip.body.redirectUrl)).status).toBe(200);
    // Both fans talk with the performer, like, favourite, comment on the free clip and follow her.
    for (const [who, text, comment] of [[fan, SECRETS.fanToPerf, SECRETS.fanComment], [third, SECRETS.thirdToPerf, SECRETS.thirdComment]] as const) {
      const conv = await api(who, 'POST', '/messages/conversations', { userId: perf.id });
      expect(conv.status, JSON.stringify(conv.body)).toBe(200);
      expect((await api(who, 'POST', `/messages/conversations/${conv.body._id}/messages`, { text })).status).toBe(201);
      if (who === fan) expect((await api(perf, 'POST', `/messages/conversations/${conv.body._id}/messages`, { text: SECRETS.perfToFan })).status).toBe(201);
      for (const action of ['like', 'favourite']) {
        expect((await api(who, 'POST', '/reactions', { objectType: 'video', objectId: w.videos.freeVideo.id, action })).status).toBe(200);
      }
      expect((await api(who, 'POST', '/reactions', { objectType: 'performer', objectId: perf.id, action: 'like' })).status).toBe(200);
      expect((await api(who, 'POST', '/comments', { objectType: 'video', objectId: w.videos.freeVideo.id, content: comment })).status).toBe(201);
      expect((await api(who, 'POST', `/performers/${perf.id}/follow`)).status).toBe(200);
      expect((await api(who, 'POST', '/reports', { targetType: 'video', targetId: w.videos.subsVideo.id, reason: 'spam', details: `report by ${who.username}` })).status).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('an export holds the user\'s own data (messages both ways, money, engagement) and none of another user\'s', async () => {
    const ready = await readyExport(fan);
    expect(ready.downloadUrl).toMatch(new RegExp(`^/media/protected/export/${ready._id}/`));
    expect(Date.parse(ready.expiresAt) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    const res = await media(ready.downloadUrl, fan);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="data-export-/);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const text = await res.text();
    const data = JSON.parse(text);
    expect(data.account).toMatchObject({ id: fan.id, email: fan.email, username: fan.username });
    expect(data.account).not.toHaveProperty('passwordHash');
    expect(data.sessions.length).toBeGreaterThan(0);
    expect(data.sessions[0]).not.toHaveProperty('tokenHash');
    expect(data.messages.sent.map((m: { text: string }) => m.text)).toEqual([SECRETS.fanToPerf]);
    expect(data.messages.received.map((m: { text: string }) => m.text)).toEqual([SECRETS.perfToFan]);
    expect(data.comments.map((c: { content: string }) => c.content)).toEqual([SECRETS.fanComment]);
    expect(data.reactions).toHaveLength(3);
    expect(data.follows).toEqual([expect.objectContaining({ performerId: perf.id })]);
    expect(data.subscriptions).toEqual([expect.objectContaining({ performerId: perf.id, status: 'active', autoRenew: 1 })]);
    expect(data.payments.filter((p: { status: string }) => p.status === 'success')).toHaveLength(4);
    expect(data.orders).toEqual([expect.objectContaining({ shippingAddress: '1 Fan Street, Fantown', items: [expect.objectContaining({ productId: w.products.mug.id })] })]);
    expect(data.entitlements).toEqual([expect.objectContaining({ objectType: 'video', objectId: w.videos.saleVideo.id })]);
    expect(data.tips).toEqual([expect.objectContaining({ note: SECRETS.fanTip, amount: 500 })]);
    expect(data.reports).toEqual([expect.objectContaining({ targetId: w.videos.subsVideo.id, details: `report by ${fan.username}` })]);
    expect(data.notifications.length).toBeGreaterThan(0);
    expect(data.performer).toBeNull();
    // The third user, who did all the same things, is nowhere in it.
    for (const s of [third.id, third.email, third.username, SECRETS.thirdToPerf, SECRETS.thirdComment, w.perf2.id]) expect(text, s).not.toContain(s);
    // The user is told, in the app.
    const notes = await api(fan, 'GET', '/notifications');
    expect(notes.body.items[0]).toMatchObject({ type: 'data_export', text: 'Your data export is ready to download', url: '/account/data' });
  });

  it('a performer\'s export adds their profile, items, earnings and payouts, without stored payout account details', async () => {
    const put = await api(perf, 'PUT', '/performer/payout-details', { method: 'bank', accountHolder: 'Mona Money', accountNumber: 'DE89370400440532013000', bankCode: 'COBADEFFXXX', bankCountry: 'DE' });
    expect([200, 404]).toContain(put.status);
    const ready = await readyExport(perf);
    const text = await (await media(ready.downloadUrl, perf)).text();
    const data = JSON.parse(text);
    expect(data.performer.profile).toMatchObject({ id: perf.id });
    expect(data.performer.items.videos.map((v: { id: string }) => v.id).sort()).toEqual(Object.values(w.videos).map((v) => v.id).sort());
    expect(data.performer.earnings.length).toBeGreaterThan(0);
    expect(data.performer.tipsReceived).toEqual([expect.objectContaining({ userId: fan.id, note: SECRETS.fanTip })]);
    if (put.status === 200) expect(text).not.toContain('DE89370400440532013000');
    expect(text).not.toContain('detailsEnc');
  });

  it('one export at a time per user (409), and only its owner may read it', async () => {
    const someone = await createUser(t.ctx.db, 'user');
    await t.ctx.db.insertInto('dataExports').values({ id: `x${Date.now()}`, userId: someone.id, status: 'running', size: 0, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() }).execute();
    const again = await api(someone, 'POST', '/users/me/data-exports');
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('EXPORT_RUNNING');
    const list = await api(fan, 'GET', '/users/me/data-exports');
    const own = list.body.items[0];
    expect(own.status).toBe('ready');
    expect(list.body.days).toBe(7);
    // Another user never sees it, by id or in their list.
    expect((await api(third, 'GET', `/users/me/data-exports/${own._id}`)).status).toBe(404);
    expect(JSON.stringify((await api(third, 'GET', '/users/me/data-exports')).body)).not.toContain(own._id);
    expect((await api(null, 'GET', '/users/me/data-exports')).status).toBe(401);
  });

  it('the download URL is refused to anyone else, admins included, and when forged or expired', async () => {
    const own = (await api(fan, 'GET', '/users/me/data-exports')).body.items[0];
    const fileId = own.downloadUrl.split('?')[0].split('/').pop();
    const signer = mediaSigner(t.config);
    const refused = async (url: string, who: TestUser | null, status: number, code?: string) => {
      const res = await media(url, who);
      expect(res.status, `${who?.username ?? 'guest'} ${url}`).toBe(status);
      if (code) expect((await res.json()).code).toBe(code);
    };
    await refused(own.downloadUrl, third, 403, 'MEDIA_URL_OTHER_USER');
    await refused(own.downloadUrl, w.admin, 403, 'MEDIA_URL_OTHER_USER');
    await refused(own.downloadUrl, null, 403, 'MEDIA_URL_OTHER_USER');
    // Signed for them: the export is still the fan's alone (404, as for a file that does not exist).
    for (const who of [third, w.admin, perf]) await refused(signer.sign({ objectType: 'export', objectId: own._id, fileId }, who.id).url, who, 404);
    await refused(signer.sign({ objectType: 'export', objectId: own._id, fileId }, null).url, null, 404);
    await refused(own.downloadUrl.replace(/s=[^&]+/, `s=${'A'.repeat(43)}`), fan, 403, 'MEDIA_URL_INVALID');
    const past = signer.sign({ objectType: 'export', objectId: own._id, fileId }, fan.id, { expiresAt: Math.floor(Date.now() / 1000) - 5 }).url;
    await refused(past, fan, 403, 'MEDIA_URL_EXPIRED');
    // The URL signed for the fan does open for the fan: the refusals are about who asks.
    expect((await media(own.downloadUrl, fan)).status).toBe(200);
  });

  it('expiry: the job deletes the file, the export says expired, and its old URL finds nothing', async () => {
    const own = (await api(fan, 'GET', '/users/me/data-exports')).body.items[0];
    const row = await t.ctx.db.selectFrom('dataExports').innerJoin('files', 'files.id', 'dataExports.fileId').select(['files.id as fileId', 'files.storageKey']).where('dataExports.id', '=', own._id).executeTakeFirstOrThrow();
    expect(row.storageKey).toBe(`private/exports/${fan.id}/${own._id}.json`);
    expect(await t.ctx.storage.stat(row.storageKey)).not.toBeNull();
    // Its expiry job, due in 7 days, is made due now.
    const moved = await t.ctx.db.updateTable('jobs').set({ runAt: new Date(Date.now() - 1000).toISOString() }).where('type', '=', JOB_DATA_EXPORT_EXPIRE).where('subject', '=', `data-export:${own._id}`).where('status', '=', 'queued').executeTakeFirst();
    expect(Number(moved.numUpdatedRows)).toBe(1);
    t.ctx.jobs.wake();
    await waitFor(async () => (await api(fan, 'GET', `/users/me/data-exports/${own._id}`)).body.status === 'expired', 'the export to expire');
    // The bytes go right after the commit that forgot them.
    await waitFor(async () => (await t.ctx.storage.stat(row.storageKey)) === null, 'the file to be deleted');
    expect(await t.ctx.db.selectFrom('files').select('id').where('id', '=', row.fileId).executeTakeFirst()).toBeUndefined();
    expect((await api(fan, 'GET', `/users/me/data-exports/${own._id}`)).body).toMatchObject({ downloadUrl: null, expiresAt: null });
    expect((await media(own.downloadUrl, fan)).status).toBe(404);
  });

  it('deleting an account: 400 for a wrong password or no typed DELETE, and nothing changes', async () => {
    await setPassword(fan);
    const wrong = await api(fan, 'POST', '/users/me/delete', { password: 'not-it', confirm: 'DELETE' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('WRONG_PASSWORD');
    const untyped = await api(fan, 'POST', '/users/me/delete', { password: PASSWORD, confirm: 'delete me' });
    expect(untyped.status).toBe(400);
    expect(untyped.body.code).toBe('VALIDATION_FAILED');
    expect((await api(fan, 'GET', '/users/me')).status).toBe(200);
    expect((await t.ctx.db.selectFrom('users').select('status').where('id', '=', fan.id).executeTakeFirstOrThrow()).status).toBe('active');
  });

  it('deleting a fan: no login, personal data erased, money rows and sums kept, renewals stopped, counters exact, the email free again', async () => {
    const db = t.ctx.db;
    const before = await ledger(db);
    const moneyRows = async () => ({
      payments: (await db.selectFrom('payments').select(['id', 'amount', 'status']).where('userId', '=', fan.id).orderBy('id').execute()),
      orders: (await db.selectFrom('orders').select(['id', 'totalPrice']).where('buyerId', '=', fan.id).orderBy('id').execute()),
      earnings: (await db.selectFrom('earnings').select(['id', 'net']).where('userId', '=', fan.id).orderBy('id').execute()),
      tips: (await db.selectFrom('tips').select(['id', 'amount']).where('userId', '=', fan.id).orderBy('id').execute()),
      entitlements: (await db.selectFrom('entitlements').select(['objectId']).where('userId', '=', fan.id).execute()),
    });
    const kept = await moneyRows();
    expect(kept.payments.length).toBe(4);
    const likesBefore = (await db.selectFrom('videos').select(['likeCount', 'commentCount']).where('id', '=', w.videos.freeVideo.id).executeTakeFirstOrThrow());
    // The fixture's rows were inserted without their counters (factories), so what must hold is that the deletion
    // makes no counter differ from its rows that did not before.
    const baseline = (await counterMismatches(t, { allowEmpty: true })).mismatches;
    const followersBefore = (await db.selectFrom('performers').select('followerCount').where('id', '=', perf.id).executeTakeFirstOrThrow()).followerCount;

    // The fan is also signed in on a phone, with a live connection.
    const phone = await createSession(db, fan.id);
    const socket = await openSocket(t.url, { token: phone });
    const dropped = new Promise<string>((resolve) => socket.once('disconnect', (reason) => resolve(reason)));

    const res = await api(fan, 'POST', '/users/me/delete', { password: PASSWORD, confirm: 'DELETE' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get('set-cookie')).toMatch(/token=;/);
    expect(await dropped).toBe('io server disconnect');
    expect((await t.api('/users/me', { headers: { authorization: `Bearer ${phone}` } })).status).toBe(401);

    // Signed out everywhere, and no way back in.
    expect((await api(fan, 'GET', '/users/me')).status).toBe(401);
    const login = await t.api('/auth/login', { method: 'POST', json: { email: fan.email, password: PASSWORD } });
    expect(login.status).toBe(400);
    expect(login.body.code).toBe('INVALID_CREDENTIALS');
    expect((await t.api('/auth/login', { method: 'POST', json: { email: fan.username, password: PASSWORD } })).status).toBe(400);
    // The tombstone.
    const row = await db.selectFrom('users').selectAll().where('id', '=', fan.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'deleted', name: 'Deleted account', passwordHash: '', bio: null, avatarPath: null, coverPath: null });
    expect(row.email).not.toBe(fan.email);
    expect(row.deletedAt).not.toBeNull();
    expect(await db.selectFrom('sessions').select('id').where('userId', '=', fan.id).execute()).toEqual([]);
    // Money: every row still there, the sums unchanged.
    expect(await moneyRows()).toEqual(kept);
    expect(await ledger(db)).toEqual(before);
    expect((await db.selectFrom('tips').select('note').where('userId', '=', fan.id).executeTakeFirstOrThrow()).note).toBeNull();
    // No more renewals: cancelled at the period's end, at the provider too.
    expect(await subscriptionOf(db, fan.id, perf.id)).toMatchObject({ status: 'active', cancelAtPeriodEnd: 1, autoRenew: 0 });
    expect((await sandboxBillingOf(db, fan.id, perf.id)).status).toBe('cancelled');
    // Engagement gone, counters moved with their rows.
    expect(await db.selectFrom('reactions').select('id').where('userId', '=', fan.id).execute()).toEqual([]);
    expect(await db.selectFrom('comments').select('id').where('userId', '=', fan.id).execute()).toEqual([]);
    expect(await db.selectFrom('follows').select('performerId').where('userId', '=', fan.id).execute()).toEqual([]);
    const likesAfter = await db.selectFrom('videos').select(['likeCount', 'commentCount']).where('id', '=', w.videos.freeVideo.id).executeTakeFirstOrThrow();
    expect(Number(likesAfter.likeCount)).toBe(Number(likesBefore.likeCount) - 1);
    expect(Number(likesAfter.commentCount)).toBe(Number(likesBefore.commentCount) - 1);
    expect(Number((await db.selectFrom('performers').select('followerCount').where('id', '=', perf.id).executeTakeFirstOrThrow()).followerCount)).toBe(Number(followersBefore) - 1);
    expect((await counterMismatches(t, { allowEmpty: true })).mismatches).toEqual(baseline);
    // Their messages' texts are gone; the performer's answer to them stays the performer's.
    const texts = (await db.selectFrom('messages').select(['senderId', 'body']).where((eb) => eb.or([eb('senderId', '=', fan.id), eb('recipientId', '=', fan.id)])).execute());
    expect(texts.filter((m) => m.senderId === fan.id).map((m) => m.body)).toEqual(['']);
    expect(texts.filter((m) => m.senderId === perf.id).map((m) => m.body)).toEqual([SECRETS.perfToFan]);
    // Their exports are gone with them; the third user's rows are untouched.
    expect(await db.selectFrom('dataExports').select('id').where('userId', '=', fan.id).execute()).toEqual([]);
    expect(await db.selectFrom('reactions').select('id').where('userId', '=', third.id).execute()).toHaveLength(3);
    // The email signs up again, as a new account.
    const again = await t.api('/auth/users/register', { method: 'POST', json: { email: fan.email, username: `again${Date.now() % 100000}`, name: 'Back Again', password: PASSWORD, role: 'user', confirmAdult: true, acceptTerms: true } });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    const fresh = await db.selectFrom('users').select(['id', 'status']).where('email', '=', fan.email).executeTakeFirstOrThrow();
    expect(fresh.id).not.toBe(fan.id);
  });

  it('deleting a performer takes their profile and items off the site and stops their subscribers\' renewals', async () => {
    const db = t.ctx.db;
    const other = w.perf2;
    const clip = await makeVideo(t.ctx, other.id, { title: 'Soon gone', access: 'free', withFiles: false });
    expect((await api(third, 'GET', `/user/assets/videos/${clip.id}`)).status).toBe(200);
    expect((await api(third, 'GET', `/performers/${other.id}`)).status).toBe(200);
    const sub = await api(third, 'POST', '/payment/subscribe', { performerId: other.id, type: 'monthly' });
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    expect((await payWithSandbox(t, third, sub.body.redirectUrl)).status).toBe(200);
    // Their identity pictures: an approved submission's (kept until the retention time) and a newer one still waiting.
    const picture = () => putFile(t.ctx, { prefix: 'private/verification', ext: 'jpg', kind: 'image', mime: 'image/jpeg', ownerId: other.id });
    const pictures = async () => ({ documentFrontFileId: await picture(), documentBackFileId: await picture(), selfieFileId: await picture() });
    const decided = await makeVerification(db, other.id, { status: 'approved', seeded: 0, ...(await pictures()) });
    const waiting = await makeVerification(db, other.id, { status: 'pending', decidedAt: null, seeded: 0, ...(await pictures()) });
    const pictureIds = [decided, waiting].flatMap((v) => [v.documentFrontFileId!, v.documentBackFileId!, v.selfieFileId!]);
    const pictureKeys = (await db.selectFrom('files').select('storageKey').where('id', 'in', pictureIds).execute()).map((f) => f.storageKey);
    expect(pictureKeys).toHaveLength(6);
    const before = await ledger(db);
    const baseline = (await counterMismatches(t, { allowEmpty: true })).mismatches;
    await setPassword(other);
    const res = await api(other, 'POST', '/users/me/delete', { password: PASSWORD, confirm: 'DELETE' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await api(third, 'GET', `/user/assets/videos/${clip.id}`)).status).toBe(404);
    expect((await api(third, 'GET', `/performers/${other.id}`)).status).toBe(404);
    expect(JSON.stringify((await api(null, 'GET', '/user/assets/videos/search?limit=100')).body)).not.toContain(clip.id);
    expect(await subscriptionOf(db, third.id, other.id)).toMatchObject({ cancelAtPeriodEnd: 1, autoRenew: 0 });
    expect(await ledger(db)).toEqual(before);
    expect(await db.selectFrom('earnings').select('id').where('performerId', '=', other.id).execute()).not.toEqual([]);
    expect((await db.selectFrom('performers').select(['status', 'displayName', 'bio']).where('id', '=', other.id).executeTakeFirstOrThrow())).toEqual({ status: 'inactive', displayName: 'Deleted account', bio: null });
    expect((await counterMismatches(t, { allowEmpty: true })).mismatches).toEqual(baseline);
    // The identity pictures are gone now, rows and bytes; the decisions stay on record, the waiting one closed.
    expect(await db.selectFrom('files').select('id').where('id', 'in', pictureIds).execute()).toEqual([]);
    for (const key of pictureKeys) expect(await t.ctx.storage.stat(key), key).toBeNull();
    const records = await db.selectFrom('performerVerifications').select(['id', 'status', 'reason', 'filesDeletedAt', 'legalName']).where('performerId', '=', other.id).execute();
    expect(records.find((r) => r.id === decided.id)).toMatchObject({ status: 'approved', legalName: decided.legalName, filesDeletedAt: expect.any(String) });
    expect(records.find((r) => r.id === waiting.id)).toMatchObject({ status: 'rejected', reason: WITHDRAWN_BY_DELETION, filesDeletedAt: expect.any(String) });
  });

  it('the last admin cannot delete their account; with another admin they can', async () => {
    await setPassword(w.admin);
    const last = await api(w.admin, 'POST', '/users/me/delete', { password: PASSWORD, confirm: 'DELETE' });
    expect(last.status).toBe(409);
    expect(last.body.code).toBe('LAST_ADMIN');
    expect((await api(w.admin, 'GET', '/users/me')).status).toBe(200);
    await createUser(t.ctx.db, 'admin');
    expect((await api(w.admin, 'POST', '/users/me/delete', { password: PASSWORD, confirm: 'DELETE' })).status).toBe(200);
  });
});

describe.each(engines)('data rights are rate limited per account on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, { env: { RATE_LIMIT_DATA_RIGHTS: '2/3600' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('password guesses at the deletion and export requests meet the limit (429), per account', async () => {
    const guesser = await createUser(t.ctx.db, 'user');
    const guess = () => t.api('/users/me/delete', { method: 'POST', headers: guesser.headers, json: { password: 'guess', confirm: 'DELETE' } });
    expect((await guess()).status).toBe(400);
    expect((await guess()).status).toBe(400);
    const limited = await guess();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    const asker = await createUser(t.ctx.db, 'user');
    const ask = () => t.api('/users/me/data-exports', { method: 'POST', headers: asker.headers });
    expect([202, 409]).toContain((await ask()).status);
    expect([202, 409]).toContain((await ask()).status);
    expect((await ask()).status).toBe(429);
    // Another account is not slowed by them.
    const other = await createUser(t.ctx.db, 'user');
    expect((await t.api('/users/me/delete', { method: 'POST', headers: other.headers, json: { password: 'guess', confirm: 'DELETE' } })).status).toBe(400);
  });
});
