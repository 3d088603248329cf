import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { makeTestMedia, postForm, type FilePart, type TestMedia } from '../helpers/uploads.js';
import { ledger, payWithSandbox } from '../helpers/money-fixture.js';
import { nextEvent, socketsClosedAfterEach } from '../helpers/realtime-client.js';
import { subscribe } from '../../server/seed/factories.js';
import { mediaSigner } from '../../server/media/signed-urls.js';
import { deliverMassBatch } from '../../server/messages/mass.service.js';
import { messagesDeps } from '../../server/messages/messages.service.js';

/**
 * Paid messages (docs/product.md, Messages; server/messages/README.md, "Paid messages"), on every engine: a performer's
 * price on a message with files, the recipient's locked placeholders (no URL, no file id) and the protected-file check,
 * the unlock through the real checkout, the sandbox's page and its signed webhook (entitlement, earning with the
 * commission, the fan's transaction, the performer's notification), refusals for everyone else, a refund that locks it
 * again, and a mass message whose copies each recipient buys for themself.
 */
const open = socketsClosedAfterEach();

describe.each(engines)('paid messages on %s', (engine) => {
  let t: TestApp;
  let media: TestMedia;
  let admin: TestUser;

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { JOBS_POLL_MS: '50' } });
    media = await makeTestMedia();
    admin = await createUser(t.ctx.db, 'admin');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await media?.cleanup();
  });

  const as = (who: TestUser | undefined, method: string, p: string, json?: unknown) => t.api(p, { method, headers: who?.headers ?? {}, json });
  const picture = (): FilePart => ({ name: 'file', filename: 'p.png', data: media.png, type: 'image/png' });
  const clip = (): FilePart => ({ name: 'file', filename: 'clip.mp4', data: media.video, type: 'video/mp4' });
  const sendForm = (who: TestUser, conv: string, fields: Record<string, string>, files: FilePart[]) =>
    postForm(t, `/messages/conversations/${conv}/messages`, { fields, files }, { headers: who.headers });
  const buy = (who: TestUser | undefined, id: string) => as(who, 'POST', `/payment/purchase-message/${id}`, {});
  const fetchAs = (who: TestUser | undefined, url: string) => fetch(`${t.url}${url}`, { headers: who?.headers ?? {} });
  const count = async (table: 'messages' | 'messageAttachments' | 'files' | 'payments' | 'entitlements' | 'massMessages') =>
    Number((await t.ctx.db.selectFrom(table).select(sql<number | string>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);
  const rowsNow = async () => Promise.all((['messages', 'messageAttachments', 'files', 'payments', 'entitlements', 'massMessages'] as const).map(count));
  /** Every file the storage holds under private/messages (a refused upload leaves none behind). */
  const storedMessageFiles = () => {
    const dir = path.join(t.config.mediaDir, 'private', 'messages');
    return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).filter((f) => fs.statSync(path.join(dir, String(f))).isFile()).length : 0;
  };

  /** A performer who lets fans write first, and a fan who wrote: the conversation both may write in. */
  async function pair(name = 'Paid Pia') {
    const perf = await createUser(t.ctx.db, 'performer', { name, performer: { messagePolicy: 'fans' } });
    const fan = await createUser(t.ctx.db, 'user', { name: 'Buying Ben' });
    const conv = (await as(fan, 'POST', '/messages/conversations', { userId: perf.id })).body._id as string;
    expect((await as(fan, 'POST', `/messages/conversations/${conv}/messages`, { text: 'Hi!' })).status).toBe(201);
    return { perf, fan, conv };
  }

  it('takes a price only from a performer, on a message with files, within the sale limits; a refusal writes nothing', async () => {
    const { perf, fan, conv } = await pair();
    const before = await rowsNow();
    const storedBefore = storedMessageFiles();
    for (const [price, code] of [['-1', 'VALIDATION_FAILED'], ['100000001', 'VALIDATION_FAILED'], ['4.99', 'VALIDATION_FAILED'], ['lots', 'VALIDATION_FAILED']] as const) {
      const res = await sendForm(perf, conv, { text: 'Buy me', price }, [picture()]);
      expect([res.status, res.body.code], `${price}: ${JSON.stringify(res.body)}`).toEqual([400, code]);
      expect(res.body.message).toEqual(expect.any(String));
    }
    // JSON too: a price needs files; a fan never prices.
    expect((await as(perf, 'POST', `/messages/conversations/${conv}/messages`, { text: 'Text only', price: 500 })).body.code).toBe('PRICE_NEEDS_ATTACHMENT');
    expect((await as(perf, 'POST', `/messages/conversations/${conv}/messages`, { text: 'Negative', price: -5 })).status).toBe(400);
    expect((await sendForm(fan, conv, { text: 'Pay me', price: '500' }, [picture()])).body.code).toBe('PRICE_NOT_ALLOWED');
    // The mass message follows the same rules.
    await subscribe(t.ctx.db, fan.id, perf.id);
    const mass = (fields: Record<string, string>, files: FilePart[]) => postForm(t, '/performer/mass-messages', { fields: { audience: 'subscribers', ...fields }, files }, { headers: perf.headers });
    expect((await mass({ text: 'x', price: '-100' }, [picture()])).status).toBe(400);
    expect((await mass({ text: 'x', price: '100000001' }, [picture()])).status).toBe(400);
    expect((await mass({ text: 'No files', price: '300' }, [])).body.code).toBe('PRICE_NEEDS_ATTACHMENT');
    expect(await rowsNow()).toEqual(before);
    expect(storedMessageFiles()).toBe(storedBefore);

    // 0 is a free message; the largest sale price is taken.
    const free = await sendForm(perf, conv, { text: 'Free one', price: '0' }, [picture()]);
    expect(free.body).toMatchObject({ price: 0, locked: false, purchased: false });
    const top = await sendForm(perf, conv, { text: 'Dear', price: '100000000' }, [picture()]);
    expect([top.status, top.body.price]).toEqual([201, 100_000_000]);
  }, 60_000);

  it('shows the recipient a locked message without its files, refuses them its files, and shows them to the sender and admins', async () => {
    const { perf, fan, conv } = await pair();
    const [outsider, otherPerf] = [await createUser(t.ctx.db), await createUser(t.ctx.db, 'performer')];
    const fanTab = await open(t.url, { token: fan.token });
    const live = nextEvent(fanTab, 'message/created', (p) => p.message.senderId === perf.id);
    const sent = await sendForm(perf, conv, { text: 'Something special', price: '700' }, [picture(), clip()]);
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const id = sent.body._id as string;
    // The sender sees everything, and that it is not bought yet.
    expect(sent.body).toMatchObject({ price: 700, locked: false, purchased: false, lockedAttachments: [] });
    expect(sent.body.attachments.map((a: { kind: string }) => a.kind)).toEqual(['image', 'video']);
    const fileIds = sent.body.attachments.map((a: { _id: string }) => a._id) as string[];
    expect(await t.ctx.db.selectFrom('messages').select('price').where('id', '=', id).executeTakeFirstOrThrow()).toEqual({ price: 700 });

    // The recipient: the text, what kind of files and their size; never a URL or a file id (thread, one message, live).
    const thread = await as(fan, 'GET', `/messages/conversations/${conv}/messages`);
    const one = await as(fan, 'GET', `/messages/${id}`);
    const pushed = (await live).message;
    for (const view of [thread.body.items.find((m: { _id: string }) => m._id === id), one.body, pushed]) {
      expect(view).toMatchObject({ _id: id, text: 'Something special', price: 700, locked: true, attachments: [], purchased: false });
      // A message's video keeps no size (it is stored as sent), so its placeholder has none either.
      expect(view.lockedAttachments).toEqual([{ kind: 'image', width: 64, height: 48 }, { kind: 'video', width: null, height: null }]);
      const text = JSON.stringify(view);
      expect(text).not.toContain('/media/protected');
      for (const f of fileIds) expect(text).not.toContain(f);
    }
    // A URL signed for the recipient anyway (the signature is not the permission) is refused until bought.
    const signer = mediaSigner(t.config);
    for (const f of fileIds) {
      const refused = await fetchAs(fan, signer.sign({ objectType: 'message', objectId: id, fileId: f }, fan.id).url);
      expect(refused.status).toBe(403);
      expect((await refused.json()).code).toBe('LOCKED');
    }
    // The sender and an admin open them; outsiders find nothing at all.
    for (const who of [perf, admin]) {
      const view = (await as(who, 'GET', `/messages/${id}`)).body;
      expect(view).toMatchObject({ locked: false, price: 700 });
      expect((await fetchAs(who, view.attachments[0].url)).status).toBe(200);
    }
    for (const who of [outsider, otherPerf]) {
      expect((await as(who, 'GET', `/messages/${id}`)).status).toBe(404);
      expect((await fetchAs(who, signer.sign({ objectType: 'message', objectId: id, fileId: fileIds[0]! }, who.id).url)).status).toBe(404);
    }
    expect((await as(fan, 'GET', '/messages/no-such-message')).status).toBe(404);
    expect((await as(undefined, 'GET', `/messages/${id}`)).status).toBe(401);
  }, 60_000);

  it('unlocks through the checkout for the recipient only: entitlement, earning with the commission, transactions, once; a refund locks it again', async () => {
    const { perf, fan, conv } = await pair('Selling Sue');
    const [outsider, otherPerf] = [await createUser(t.ctx.db), await createUser(t.ctx.db, 'performer')];
    const sent = await sendForm(perf, conv, { text: 'Unlock me', price: '1234' }, [picture()]);
    const id = sent.body._id as string;
    const freeOne = await sendForm(perf, conv, { text: 'Free picture' }, [picture()]);

    // Nobody else may buy it: outsiders and admins find nothing, the sender cannot, a free message is not for sale.
    const before = await rowsNow();
    for (const who of [outsider, otherPerf, admin]) {
      const res = await buy(who, id);
      expect([res.status, res.body.code], JSON.stringify(res.body)).toEqual([404, 'NOT_FOUND']);
    }
    expect((await buy(fan, 'no-such-message')).status).toBe(404);
    expect((await buy(undefined, id)).status).toBe(401);
    const own = await buy(perf, id);
    expect(own.status).toBe(400);
    expect(own.body.message).toMatch(/own message/);
    expect((await buy(fan, freeOne.body._id)).body.code).toBe('NOT_FOR_SALE');
    // A fan the performer blocked cannot unlock what is already in their thread; unblocked, they can.
    expect((await as(perf, 'POST', '/performer/blocks', { userId: fan.id })).status).toBe(200);
    const blocked = await buy(fan, id);
    expect([blocked.status, blocked.body.code]).toEqual([403, 'BLOCKED_BY_PERFORMER']);
    expect((await as(perf, 'DELETE', `/performer/blocks/${fan.id}`)).status).toBe(200);
    expect(await rowsNow()).toEqual(before);

    const fanTab = await open(t.url, { token: fan.token });
    const paidEvent = nextEvent(fanTab, 'payment/success');
    const checkout = await buy(fan, id);
    expect(checkout.status, JSON.stringify(checkout.body)).toBe(201);
    expect(checkout.body).toMatchObject({ amount: 1234, originalPrice: 1234, discount: 0, status: 'pending' });
    // Locked while the payment is pending.
    expect((await as(fan, 'GET', `/messages/${id}`)).body.locked).toBe(true);
    expect((await payWithSandbox(t, fan, checkout.body.redirectUrl)).status).toBe(200);
    const paymentId = checkout.body.paymentId as string;
    expect(await paidEvent).toMatchObject({ paymentId, type: 'message', targetId: id });

    const db = t.ctx.db;
    expect(await db.selectFrom('payments').select(['status', 'type', 'amount', 'performerId', 'targetId']).where('id', '=', paymentId).executeTakeFirstOrThrow())
      .toEqual({ status: 'success', type: 'message', amount: 1234, performerId: perf.id, targetId: id });
    expect(await db.selectFrom('entitlements').select(['userId', 'objectType', 'objectId', 'revokedAt']).where('paymentId', '=', paymentId).execute())
      .toEqual([{ userId: fan.id, objectType: 'message', objectId: id, revokedAt: null }]);
    // 20 % of 12.34 is 2.468, rounded half up: 2.47 to the site, 9.87 to the performer (sandbox money is test money).
    expect(await db.selectFrom('earnings').select(['entry', 'sourceType', 'gross', 'commission', 'net', 'performerId', 'userId', 'testMoney']).where('paymentId', '=', paymentId).execute())
      .toEqual([{ entry: 'credit', sourceType: 'message', gross: 1234, commission: 247, net: 987, performerId: perf.id, userId: fan.id, testMoney: 1 }]);
    const l = await ledger(db);
    expect(l.paid).toBe(l.net + l.commission);

    // The fan sees the files now, and fetches them; the sender sees it was bought.
    const view = (await as(fan, 'GET', `/messages/${id}`)).body;
    expect(view).toMatchObject({ locked: false, purchased: true, lockedAttachments: [] });
    expect((await fetchAs(fan, view.attachments[0].url)).status).toBe(200);
    expect((await as(perf, 'GET', `/messages/${id}`)).body).toMatchObject({ purchased: true, locked: false });
    // Where each sees the money: the fan's transactions, the performer's earnings and notification, the console.
    const tx = (await as(fan, 'GET', '/payment/transactions')).body.items.find((p: { _id: string }) => p._id === paymentId);
    expect(tx).toMatchObject({ type: 'message', status: 'success', amount: 1234, targetId: id, description: 'Message: Paid message from Selling Sue' });
    const earned = (await as(perf, 'GET', '/earning/performer/search')).body.items;
    expect(earned).toEqual(expect.arrayContaining([expect.objectContaining({ sourceType: 'message', gross: 1234, net: 987 })]));
    const sale = await db.selectFrom('notifications').select('payload').where('userId', '=', perf.id).where('type', '=', 'purchase').execute();
    expect(sale.map((n) => JSON.parse(n.payload))).toEqual([expect.objectContaining({ paymentId, amount: 1234, url: '/studio/earnings' })]);
    const console = await as(admin, 'GET', `/admin/payments?q=${paymentId}`);
    expect(JSON.stringify(console.body)).toContain('"type":"message"');

    // Bought once: a second checkout is refused and writes nothing.
    const again = await buy(fan, id);
    expect([again.status, again.body.code]).toEqual([409, 'ALREADY_PURCHASED']);

    // A refund (the sandbox's back office) shuts the files again.
    const chargeId = String(checkout.body.redirectUrl).split('/').pop()!;
    expect((await as(admin, 'POST', `/payment/sandbox/${chargeId}/reverse`, { kind: 'refunded' })).status).toBe(200);
    expect((await db.selectFrom('entitlements').select('revokedAt').where('paymentId', '=', paymentId).executeTakeFirstOrThrow()).revokedAt).not.toBeNull();
    expect((await as(fan, 'GET', `/messages/${id}`)).body).toMatchObject({ locked: true, purchased: false, attachments: [] });
    expect((await fetchAs(fan, view.attachments[0].url)).status).toBe(403);
  }, 60_000);

  it("puts a mass message's price on every copy: each recipient unlocks their own", async () => {
    const db = t.ctx.db;
    const perf = await createUser(db, 'performer', { name: 'Mass Mia' });
    const [fanA, fanB] = [await createUser(db), await createUser(db)];
    for (const f of [fanA, fanB]) await subscribe(db, f.id, perf.id);
    const sent = await postForm(t, '/performer/mass-messages', { fields: { text: 'For my subscribers', audience: 'subscribers', price: '300' }, files: [picture()] }, { headers: perf.headers });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body).toMatchObject({ price: 300, total: 2, attachments: 1 });
    await deliverMassBatch(messagesDeps(t.ctx), sent.body._id, t.ctx.config.massMessages.batch);
    const copies = await db.selectFrom('messages').select(['id', 'recipientId', 'price']).where('massMessageId', '=', sent.body._id).execute();
    expect(copies.map((c) => c.price)).toEqual([300, 300]);
    const copyOf = (f: TestUser) => copies.find((c) => c.recipientId === f.id)!.id;
    expect((await as(perf, 'GET', '/performer/mass-messages')).body.items[0]).toMatchObject({ _id: sent.body._id, price: 300 });

    for (const f of [fanA, fanB]) expect((await as(f, 'GET', `/messages/${copyOf(f)}`)).body).toMatchObject({ locked: true, price: 300, attachments: [] });
    // A fan cannot buy another's copy (it does not exist for them).
    expect((await buy(fanA, copyOf(fanB))).status).toBe(404);
    const checkout = await buy(fanA, copyOf(fanA));
    expect(checkout.status, JSON.stringify(checkout.body)).toBe(201);
    expect((await payWithSandbox(t, fanA, checkout.body.redirectUrl)).status).toBe(200);
    expect((await as(fanA, 'GET', `/messages/${copyOf(fanA)}`)).body).toMatchObject({ locked: false, purchased: true });
    // The other copy stays locked; the same files open for fanA through fanA's copy only.
    const locked = (await as(fanB, 'GET', `/messages/${copyOf(fanB)}`)).body;
    expect(locked).toMatchObject({ locked: true, purchased: false });
    const fileId = (await as(fanA, 'GET', `/messages/${copyOf(fanA)}`)).body.attachments[0]._id;
    const signer = mediaSigner(t.config);
    expect((await fetchAs(fanB, signer.sign({ objectType: 'message', objectId: copyOf(fanB), fileId }, fanB.id).url)).status).toBe(403);
    expect((await fetchAs(fanA, signer.sign({ objectType: 'message', objectId: copyOf(fanA), fileId }, fanA.id).url)).status).toBe(200);
    expect(await db.selectFrom('entitlements').select(['userId', 'objectId']).where('objectType', '=', 'message').where('objectId', 'in', [copyOf(fanA), copyOf(fanB)]).execute())
      .toEqual([{ userId: fanA.id, objectId: copyOf(fanA) }]);
    expect((await buy(fanB, copyOf(fanB))).status).toBe(201);
  }, 60_000);
});
