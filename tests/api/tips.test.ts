import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { buildMoneyWorld, chargeOf, ledger, payWithSandbox, postWebhook, sandboxEvent, type MoneyWorld } from '../helpers/money-fixture.js';
import { collect, nextEvent, sleep, socketsClosedAfterEach, type TestSocket } from '../helpers/realtime-client.js';
import { makePost } from '../../server/seed/factories.js';
import { MailCatcher } from '../helpers/mail-catcher.js';

/**
 * Tips (server/payments/README.md, "Tips"), on every engine, through the real checkout, the sandbox provider's page and
 * its signed webhooks: the site's limits, who may be tipped, the earning with the commission, the buyer's and the
 * performer's and the console's views, refunds whole and in part, replays and reordered events counted once, and the
 * performer's notification and live notice exactly once.
 */
const open = socketsClosedAfterEach();
const catcher = new MailCatcher();
beforeAll(async () => {
  await catcher.start();
});
afterAll(async () => {
  await catcher.stop();
});

describe.each(engines)('tips on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;
  const post = (path: string, who: TestUser | null, json?: unknown) => t.api(path, { method: 'POST', headers: who?.headers ?? {}, ...(json === undefined ? {} : { json }) });
  const tip = (who: TestUser | null, body: Record<string, unknown>) => post('/payment/tip', who, body);
  const count = async (table: 'payments' | 'tips' | 'paymentItems') => Number((await t.ctx.db.selectFrom(table).select(sql<number | string>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);
  const rowsNow = async () => [await count('payments'), await count('tips'), await count('paymentItems')];
  const earnings = (paymentId: string) =>
    t.ctx.db.selectFrom('earnings').select(['entry', 'sourceType', 'gross', 'commission', 'net', 'commissionBps', 'performerId', 'testMoney']).where('paymentId', '=', paymentId).orderBy('entry').orderBy('createdAt').execute();
  const paymentRow = (id: string) => t.ctx.db.selectFrom('payments').select(['status', 'type', 'amount', 'refundedAmount', 'performerId']).where('id', '=', id).executeTakeFirstOrThrow();
  const tipNotifications = async (performerId: string, paymentId: string) =>
    (await t.ctx.db.selectFrom('notifications').selectAll().where('userId', '=', performerId).where('type', '=', 'tip').execute())
      .map((n) => JSON.parse(n.payload) as Record<string, unknown>)
      .filter((p) => p.paymentId === paymentId);
  const exact = async () => {
    const l = await ledger(t.ctx.db);
    expect(l.paid).toBe(l.net + l.commission);
    expect(l.paid).toBe(l.gross);
  };
  /** Checkout 201, then Approve on the sandbox's page. */
  async function tipAndPay(who: TestUser, body: Record<string, unknown>) {
    const c = await tip(who, body);
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    expect((await payWithSandbox(t, who, c.body.redirectUrl)).status).toBe(200);
    return c.body as { paymentId: string; amount: number };
  }

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { SMTP_URL: catcher.smtpUrl } });
    w = await buildMoneyWorld(t.ctx);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('takes amounts within the limits the admin sets, in whole cents, and changes nothing otherwise', async () => {
    const before = await rowsNow();
    for (const [amount, code] of [[99, 'TIP_TOO_SMALL'], [50_001, 'TIP_TOO_LARGE'], [0, 'VALIDATION_FAILED'], [-500, 'VALIDATION_FAILED'], [5.5, 'VALIDATION_FAILED'], ['500', 'VALIDATION_FAILED']] as const) {
      const res = await tip(w.fan, { performerId: w.perf.id, amount });
      expect(res.status, `${amount}`).toBe(400);
      expect(res.body).toMatchObject({ code, message: expect.any(String) });
    }
    expect((await tip(w.fan, { performerId: w.perf.id, amount: 500, note: 'x'.repeat(201) })).body.code).toBe('VALIDATION_FAILED');
    expect((await tip(w.fan, { performerId: w.perf.id, amount: 500, price: 1 })).status).toBe(400);
    expect(await rowsNow()).toEqual(before);

    // The admin narrows the limits: the checkout follows them at once.
    const put = (json: unknown) => t.api('/admin/settings/payment', { method: 'PUT', headers: w.admin.headers, json });
    expect((await put({ tipMinimum: 300, tipMaximum: 1000 })).body).toMatchObject({ tipMinimum: 300, tipMaximum: 1000 });
    expect((await put({ tipMinimum: 2000 })).status).toBe(400);
    expect((await tip(w.fan, { performerId: w.perf.id, amount: 299 })).body.code).toBe('TIP_TOO_SMALL');
    expect((await tip(w.fan, { performerId: w.perf.id, amount: 1001 })).body.code).toBe('TIP_TOO_LARGE');
    expect(await rowsNow()).toEqual(before);
    const ok = await tip(w.fan, { performerId: w.perf.id, amount: 1000 });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body).toMatchObject({ amount: 1000, originalPrice: 1000, discount: 0, status: 'pending' });
    expect((await put({ tipMinimum: 100, tipMaximum: 50_000 })).status).toBe(200);
  });

  it('refuses oneself, guests, unknown, unapproved and suspended performers, and a context that is not theirs', async () => {
    const unapproved = await createUser(t.ctx.db, 'performer', { performer: { approved: 0 } });
    const inactive = await createUser(t.ctx.db, 'performer', { performer: { status: 'suspended' } });
    const before = await rowsNow();
    const self = await tip(w.perf, { performerId: w.perf.id, amount: 500 });
    expect(self.status).toBe(400);
    expect(self.body.code).toBe('CANNOT_TIP_SELF');
    expect((await tip(null, { performerId: w.perf.id, amount: 500 })).status).toBe(401);
    expect((await tip(w.fan, { performerId: 'no-such-performer', amount: 500 })).status).toBe(404);
    expect((await tip(w.fan, { performerId: w.fan2.id, amount: 500 })).status).toBe(404);
    expect((await tip(w.fan, { performerId: unapproved.id, amount: 500 })).body.code).toBe('PERFORMER_NOT_APPROVED');
    expect((await tip(w.fan, { performerId: inactive.id, amount: 500 })).status).toBe(404);
    // Another performer's video, a video that does not exist, another performer's page, an unknown kind of context.
    const otherPost = await makePost(t.ctx, { title: 'Otto post', performerId: w.perf2.id, authorId: w.perf2.id });
    expect((await tip(w.fan, { performerId: w.perf.id, amount: 500, context: { type: 'post', id: otherPost.id } })).body.code).toBe('TIP_CONTEXT_MISMATCH');
    expect((await tip(w.fan, { performerId: w.perf.id, amount: 500, context: { type: 'video', id: 'nope' } })).status).toBe(404);
    expect((await tip(w.fan, { performerId: w.perf.id, amount: 500, context: { type: 'performer', id: w.perf2.id } })).body.code).toBe('TIP_CONTEXT_MISMATCH');
    expect((await tip(w.fan, { performerId: w.perf.id, amount: 500, context: { type: 'message', id: 'abc' } })).status).toBe(400);
    expect(await rowsNow()).toEqual(before);
  });

  it('pays a tip through the sandbox: a tip item, the earning with the commission, and what fan, performer and admin see', async () => {
    const fan = await createUser(t.ctx.db, 'user', { name: 'Tipping Tina' });
    await t.ctx.mailer.flush();
    const since = catcher.mark();
    const { paymentId } = await tipAndPay(fan, { performerId: w.perf.id, amount: 1234, note: '  Loved it!  ', context: { type: 'video', id: w.videos.freeVideo.id } });
    expect(await paymentRow(paymentId)).toEqual({ status: 'success', type: 'tip', amount: 1234, refundedAmount: 0, performerId: w.perf.id });
    const items = await t.ctx.db.selectFrom('paymentItems').selectAll().where('paymentId', '=', paymentId).execute();
    const tipRow = await t.ctx.db.selectFrom('tips').selectAll().where('paymentId', '=', paymentId).executeTakeFirstOrThrow();
    expect(items).toEqual([expect.objectContaining({ objectType: 'tip', objectId: tipRow.id, performerId: w.perf.id, unitPrice: 1234, quantity: 1, discount: 0 })]);
    expect(tipRow).toMatchObject({ userId: fan.id, performerId: w.perf.id, amount: 1234, contextType: 'video', contextId: w.videos.freeVideo.id, note: 'Loved it!' });
    // 20 % of 12.34 is 2.468, rounded half up: 2.47 to the site, 9.87 to the performer. Sandbox money is test money.
    expect(await earnings(paymentId)).toEqual([{ entry: 'credit', sourceType: 'tip', gross: 1234, commission: 247, net: 987, commissionBps: 2000, performerId: w.perf.id, testMoney: 1 }]);
    // Nothing opens with a tip.
    expect(await t.ctx.db.selectFrom('entitlements').select('objectId').where('paymentId', '=', paymentId).execute()).toEqual([]);
    await exact();

    // Otto's own rate (10 %) applies to his tips.
    const otto = await tipAndPay(fan, { performerId: w.perf2.id, amount: 500 });
    expect(await earnings(otto.paymentId)).toEqual([expect.objectContaining({ sourceType: 'tip', gross: 500, commission: 50, net: 450, commissionBps: 1000 })]);

    const tx = await t.api('/payment/transactions', { headers: fan.headers });
    expect(tx.body.items.find((i: { _id: string }) => i._id === paymentId)).toMatchObject({ type: 'tip', status: 'success', description: 'Tip to Mona Money', amount: 1234 });
    const mine = await t.api('/earning/performer/search?sourceType=tip', { headers: w.perf.headers });
    expect(mine.status).toBe(200);
    expect(mine.body.items.find((e: { paymentId: string }) => e.paymentId === paymentId)).toMatchObject({
      sourceType: 'tip', net: 987, user: { _id: fan.id },
      tip: { note: 'Loved it!', contextType: 'video', contextId: w.videos.freeVideo.id, contextTitle: 'Free clip', contextUrl: `/videos/${w.videos.freeVideo.id}` },
    });
    // Otto's earnings do not list Mona's tip.
    const his = await t.api('/earning/performer/search?sourceType=tip', { headers: w.perf2.headers });
    expect(his.body.items.map((e: { paymentId: string }) => e.paymentId)).toEqual([otto.paymentId]);
    const console = await t.api(`/admin/payments?type=tip&q=${paymentId}`, { headers: w.admin.headers });
    expect(console.status, JSON.stringify(console.body)).toBe(200);
    expect(console.body.items.map((p: { _id: string }) => p._id)).toContain(paymentId);

    // The fan's receipt, by the money mails, as for any payment.
    await t.ctx.mailer.flush();
    const receipts = catcher.find(fan.email, /receipt/i, since);
    expect(receipts.map((m) => m.subject)).toEqual(['Your Fanstage receipt: Tip to Mona Money', 'Your Fanstage receipt: Tip to Otto Other']);
    expect(receipts[0]!.text).toContain('Tip to Mona Money: $12.34');
    expect(receipts[0]!.text).toContain('Total paid: $12.34');
    expect(receipts[0]!.text).toContain(`Payment id: ${paymentId}`);

    const notes = await tipNotifications(w.perf.id, paymentId);
    expect(notes).toEqual([
      { tipId: tipRow.id, paymentId, amount: 1234, actorId: fan.id, actorName: 'Tipping Tina', objectType: 'video', objectId: w.videos.freeVideo.id, url: '/studio/earnings' },
    ]);
  });

  it('counts a tip once under duplicate, concurrent and reordered webhooks, and notifies the performer live once', async () => {
    await t.ctx.mailer.flush();
    const since = catcher.mark();
    const onPerformer: TestSocket = await open(t.url, { token: w.perf.token });
    const live = collect(onPerformer, 'tip/received');
    const counts = collect(onPerformer, 'notification/count');
    await sleep(200);
    const c = await tip(w.fan, { performerId: w.perf.id, amount: 700, note: 'Twice?' });
    expect(c.status).toBe(201);
    const { paymentId } = c.body;
    const charge = await chargeOf(t.ctx.db, paymentId);
    const heard = nextEvent(onPerformer, 'tip/received', (p) => p.paymentId === paymentId);
    const same = sandboxEvent(t, 'charge.succeeded', charge, { id: `evt_tip_${paymentId}` });
    const answers = await Promise.all([...Array.from({ length: 4 }, () => postWebhook(t, same)), postWebhook(t, sandboxEvent(t, 'charge.succeeded', charge)), postWebhook(t, sandboxEvent(t, 'charge.succeeded', charge))]);
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    expect(answers.filter((a) => a.body.outcome === 'paid')).toHaveLength(1);
    expect(await heard).toMatchObject({ paymentId, amount: 700, currency: 'USD', actorName: expect.any(String), contextType: 'performer', url: '/studio/earnings' });
    await sleep(300);
    expect(live.filter((p) => p.paymentId === paymentId)).toHaveLength(1);
    expect(counts.length).toBeGreaterThanOrEqual(1);
    expect(await earnings(paymentId)).toHaveLength(1);
    expect(await tipNotifications(w.perf.id, paymentId)).toHaveLength(1);
    await t.ctx.mailer.flush();
    expect(catcher.find(w.fan.email, /receipt/i, since)).toHaveLength(1);
    await exact();

    // Reordered: the refund arrives before the payment. It ends refunded with a credit and its reversal, and the
    // performer is not told about a tip that was already given back.
    const r = await tip(w.fan, { performerId: w.perf.id, amount: 800 });
    const rc = await chargeOf(t.ctx.db, r.body.paymentId);
    expect((await postWebhook(t, sandboxEvent(t, 'charge.refunded', rc))).body.outcome).toBe('deferred');
    const paid = sandboxEvent(t, 'charge.succeeded', rc);
    expect((await postWebhook(t, paid)).body.outcome).toBe('paid_then_refunded');
    expect((await postWebhook(t, paid)).body.outcome).toBe('duplicate');
    expect((await paymentRow(r.body.paymentId)).status).toBe('refunded');
    expect((await earnings(r.body.paymentId)).map((e) => [e.entry, e.gross, e.commission, e.net])).toEqual([['credit', 800, 160, 640], ['reversal', -800, -160, -640]]);
    expect(await tipNotifications(w.perf.id, r.body.paymentId)).toEqual([]);
    await exact();
  });

  it('a refund reverses a tip, a partial refund takes its share, a chargeback what is left', async () => {
    const whole = await tipAndPay(w.fan2, { performerId: w.perf.id, amount: 2000 });
    const refund = (paymentId: string, amount?: number) => post(`/admin/payments/${paymentId}/refund`, w.admin, amount === undefined ? {} : { amount });
    expect((await refund(whole.paymentId)).status).toBe(200);
    expect((await paymentRow(whole.paymentId)).status).toBe('refunded');
    expect((await earnings(whole.paymentId)).map((e) => [e.entry, e.gross, e.commission, e.net])).toEqual([['credit', 2000, 400, 1600], ['reversal', -2000, -400, -1600]]);
    // The notification stays: the tip was paid, then given back.
    expect(await tipNotifications(w.perf.id, whole.paymentId)).toHaveLength(1);
    await exact();

    const part = await tipAndPay(w.fan2, { performerId: w.perf.id, amount: 1000, context: { type: 'performer', id: w.perf.username } });
    expect((await t.ctx.db.selectFrom('tips').select(['contextType', 'contextId']).where('paymentId', '=', part.paymentId).executeTakeFirstOrThrow())).toEqual({ contextType: 'performer', contextId: w.perf.id });
    expect((await refund(part.paymentId, 300)).status).toBe(200);
    expect(await paymentRow(part.paymentId)).toMatchObject({ status: 'success', refundedAmount: 300 });
    expect((await earnings(part.paymentId)).map((e) => [e.entry, e.gross, e.commission, e.net])).toEqual([['credit', 1000, 200, 800], ['partial_refund', -300, -60, -240]]);
    await exact();
    const charge = await chargeOf(t.ctx.db, part.paymentId);
    expect((await post(`/payment/sandbox/${charge.id}/reverse`, w.admin, { kind: 'chargeback' })).status).toBe(200);
    const rows = await earnings(part.paymentId);
    expect(rows.reduce((n, e) => n + e.gross, 0)).toBe(0);
    expect(rows.find((e) => e.entry === 'reversal')).toMatchObject({ gross: -700, commission: -140, net: -560 });
    expect((await paymentRow(part.paymentId)).status).toBe('chargeback');
    await exact();
  });

  it("a tip on a post must be the performer's and public to the fan; the fan's own tips are theirs only", async () => {
    const p = await makePost(t.ctx, { title: 'Tip me here', performerId: w.perf.id, authorId: w.perf.id });
    const { paymentId } = await tipAndPay(w.fan, { performerId: w.perf.username, amount: 100, context: { type: 'post', id: p.id } });
    const e = await t.api('/earning/performer/search?sourceType=tip', { headers: w.perf.headers });
    expect(e.body.items.find((x: { paymentId: string }) => x.paymentId === paymentId).tip).toMatchObject({ contextType: 'post', contextTitle: 'Tip me here', contextUrl: `/posts/${p.id}`, note: null });
    expect((await t.api(`/payment/status/${paymentId}`, { headers: w.fan2.headers })).status).toBe(404);
    expect((await t.api(`/payment/status/${paymentId}`, { headers: w.fan.headers })).body).toMatchObject({ type: 'tip', description: 'Tip to Mona Money' });
  });

  it('a tip from a conversation: only its fan, with its performer; the performer is told with a link to it, and the earning says it came from messages', async () => {
    const db = t.ctx.db;
    const perf = await createUser(db, 'performer', { name: 'Chatty Performer', performer: { messagePolicy: 'fans' } });
    const otherPerf = await createUser(db, 'performer', { name: 'Other Chatty', performer: { messagePolicy: 'fans' } });
    const [fan, otherFan, blocked] = [await createUser(db, 'user', { name: 'Messaging Mia' }), await createUser(db, 'user'), await createUser(db, 'user')];
    const conversationOf = async (who: TestUser, performer: TestUser) => {
      const res = await post('/messages/conversations', who, { userId: performer.id });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body._id as string;
    };
    const mine = await conversationOf(fan, perf);
    const theirs = await conversationOf(otherFan, perf);
    const withOther = await conversationOf(fan, otherPerf);
    const blockedConv = await conversationOf(blocked, perf);
    expect((await post('/performer/blocks', perf, { userId: blocked.id })).status).toBe(200);
    const inConversation = (id: string) => ({ performerId: perf.id, amount: 300, context: { type: 'conversation', id } });

    const before = await rowsNow();
    // Someone else's conversation does not exist for the caller: the same 404 as an unknown id.
    const unknown = await tip(fan, inConversation('no-such-conversation'));
    const foreign = await tip(fan, inConversation(theirs));
    expect([unknown.status, foreign.status]).toEqual([404, 404]);
    expect(foreign.body).toEqual(unknown.body);
    // The fan's conversation with another performer is not this performer's.
    expect((await tip(fan, inConversation(withOther))).body.code).toBe('TIP_CONTEXT_MISMATCH');
    // The performer does not tip from their own side, and a blocked fan is refused as anywhere.
    expect((await tip(perf, inConversation(mine))).body.code).toBe('CANNOT_TIP_SELF');
    const refused = await tip(blocked, inConversation(blockedConv));
    expect([refused.status, refused.body.code]).toEqual([403, 'BLOCKED_BY_PERFORMER']);
    expect(await rowsNow()).toEqual(before);

    const onPerformer: TestSocket = await open(t.url, { token: perf.token });
    const heard = nextEvent(onPerformer, 'tip/received');
    const { paymentId } = await tipAndPay(fan, { ...inConversation(mine), note: 'For the chat' });
    const tipRow = await db.selectFrom('tips').selectAll().where('paymentId', '=', paymentId).executeTakeFirstOrThrow();
    expect(tipRow).toMatchObject({ userId: fan.id, performerId: perf.id, contextType: 'conversation', contextId: mine, note: 'For the chat' });
    expect(await heard).toMatchObject({ paymentId, amount: 300, contextType: 'conversation', contextId: mine, url: `/messages/${mine}` });
    expect(await tipNotifications(perf.id, paymentId)).toEqual([
      { tipId: tipRow.id, paymentId, amount: 300, actorId: fan.id, actorName: 'Messaging Mia', objectType: 'conversation', objectId: mine, url: `/messages/${mine}` },
    ]);
    const list = await t.api('/notifications', { headers: perf.headers });
    expect(list.body.items.find((n: { type: string }) => n.type === 'tip')).toMatchObject({ text: 'Messaging Mia tipped you $3.00 in messages', url: `/messages/${mine}` });
    const earned = await t.api('/earning/performer/search?sourceType=tip', { headers: perf.headers });
    expect(earned.body.items.find((e: { paymentId: string }) => e.paymentId === paymentId).tip).toMatchObject({ contextType: 'conversation', contextId: mine, contextUrl: `/messages/${mine}`, note: 'For the chat' });
  });
});
