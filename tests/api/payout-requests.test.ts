import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../server/db/ids.js';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { ledger } from '../helpers/money-fixture.js';
import { encryptSecret } from '../../server/settings/secrets.js';
import { MailCatcher } from '../helpers/mail-catcher.js';

/**
 * Payout requests (server/payments/README.md, "Payouts"), over HTTP on every engine: payout details (validation,
 * masking, encryption at rest), the balance (hold period, refunds, test money), requests (details first, the minimum,
 * one open request, concurrent requests that can never claim an earning twice), the admin's approve / reject / paid
 * with their audit entries, who may see and act on whose payout, and the ledger staying exact throughout.
 */

const DAY = 86_400_000;
const IBAN = 'DE89370400440532013000';
const BANK = { method: 'bank', accountHolder: 'Mona Payee', accountNumber: 'de89 3704 0044 0532 0130 00', bankCode: 'cobadeffxxx', bankCountry: 'de' };

const catcher = new MailCatcher();
beforeAll(async () => {
  await catcher.start();
});
afterAll(async () => {
  await catcher.stop();
});

describe.each(engines)('payout requests on %s', (engine) => {
  let t: TestApp;
  let perf: TestUser;
  let perf2: TestUser;
  let fan: TestUser;
  let admin: TestUser;
  const serverErrors: string[] = [];

  async function call(who: TestUser | null, method: string, path: string, json?: unknown) {
    const res = await t.api(path, { method, headers: who?.headers ?? {}, ...(json !== undefined ? { json } : {}) });
    if (res.status >= 500) serverErrors.push(`${res.status} ${method} ${path}: ${JSON.stringify(res.body)}`);
    return res;
  }
  const get = (who: TestUser | null, path: string) => call(who, 'GET', path);
  const post = (who: TestUser | null, path: string, json: unknown = {}) => call(who, 'POST', path, json);
  const put = (who: TestUser | null, path: string, json: unknown) => call(who, 'PUT', path, json);
  const balance = async (who: TestUser) => {
    const res = await get(who, '/performer/payouts/balance');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();

  /**
   * A real (Stripe) sale credited `daysAgo`, net `net` (gross and commission such that the ledger balances), refunded
   * `refundedDaysAgo` when given (its payment refunded and a negative reversal row); `test`: a sandbox sale.
   */
  async function earn(performerId: string, net: number, o: { daysAgo: number; test?: boolean; refundedDaysAgo?: number }) {
    const paymentId = newId();
    const itemId = newId();
    const commission = Math.round(net / 4);
    const gross = net + commission;
    const at = ago(o.daysAgo);
    await t.ctx.db
      .insertInto('payments')
      .values({
        id: paymentId, userId: fan.id, performerId, type: 'video', status: o.refundedDaysAgo !== undefined ? 'refunded' : 'success', gateway: o.test ? 'sandbox' : 'stripe',
        gatewayRef: `cs_${paymentId}`, targetId: null, originalPrice: gross, amount: gross, currency: 'USD', paidAt: at, createdAt: at, updatedAt: at,
      })
      .execute();
    const row = { paymentId, paymentItemId: itemId, performerId, userId: fan.id, sourceType: 'video', commissionBps: 2000, testMoney: o.test ? 1 : 0 };
    await t.ctx.db.insertInto('earnings').values({ ...row, id: newId(), entry: 'credit', gross, commission, net, createdAt: at }).execute();
    if (o.refundedDaysAgo !== undefined) {
      await t.ctx.db
        .insertInto('earnings')
        .values({ ...row, id: newId(), entry: 'reversal', gross: -gross, commission: -commission, net: -net, createdAt: ago(o.refundedDaysAgo) })
        .execute();
    }
    return paymentId;
  }

  const earningsOf = (performerId: string) =>
    t.ctx.db.selectFrom('earnings').select(['id', 'net', 'isPaid', 'payoutId', 'testMoney', 'entry']).where('performerId', '=', performerId).orderBy('createdAt').execute();
  const auditOf = (action: string, targetId: string) =>
    t.ctx.db.selectFrom('auditLog').selectAll().where('action', '=', action).where('targetId', '=', targetId).orderBy('createdAt').execute();
  /** Every payout's amount is its earnings' sum, and no earning is in two payouts (a row holds one payout id). */
  async function expectPayoutsExact() {
    const payouts = await t.ctx.db.selectFrom('payouts').select(['id', 'amount', 'earningsCount', 'status']).where('status', '!=', 'rejected').execute();
    for (const p of payouts) {
      const s = await t.ctx.db
        .selectFrom('earnings')
        .select([sql<number | string | null>`sum(net)`.as('net'), sql<number | string>`count(*)`.as('n')])
        .where('payoutId', '=', p.id)
        .executeTakeFirst();
      expect({ id: p.id, amount: Number(s?.net ?? 0), count: Number(s?.n ?? 0) }).toEqual({ id: p.id, amount: p.amount, count: p.earningsCount });
    }
    const paidWrong = await t.ctx.db
      .selectFrom('earnings')
      .innerJoin('payouts', 'payouts.id', 'earnings.payoutId')
      .select('earnings.id')
      .where((eb) => eb.or([eb.and([eb('payouts.status', '=', 'paid'), eb('earnings.isPaid', '=', 0)]), eb.and([eb('payouts.status', '!=', 'paid'), eb('earnings.isPaid', '=', 1)])]))
      .execute();
    expect(paidWrong).toEqual([]);
    const rejectedHolding = await t.ctx.db.selectFrom('earnings').innerJoin('payouts', 'payouts.id', 'earnings.payoutId').select('earnings.id').where('payouts.status', '=', 'rejected').execute();
    expect(rejectedHolding).toEqual([]);
    expect(await t.ctx.db.selectFrom('earnings').select('id').where('testMoney', '=', 1).where('payoutId', 'is not', null).execute()).toEqual([]);
    const l = await ledger(t.ctx.db);
    expect(l.paid).toBe(l.net + l.commission);
  }

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { SMTP_URL: catcher.smtpUrl } });
    perf = await createUser(t.ctx.db, 'performer', { name: 'Mona Payee' });
    perf2 = await createUser(t.ctx.db, 'performer', { name: 'Otto Other' });
    fan = await createUser(t.ctx.db, 'user');
    admin = await createUser(t.ctx.db, 'admin');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('refuses payout details that would send money astray, each with its field and message, and stores nothing', async () => {
    const bad: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ ...BANK, accountNumber: 'DE89370400440532013001' }, 'accountNumber', /not valid/],
      [{ ...BANK, bankCountry: 'FR', bankCode: null }, 'accountNumber', /for DE, but the bank country is FR/],
      [{ ...BANK, bankCode: 'BNPAFRPP' }, 'bankCode', /for FR, but the bank country is DE/],
      [{ ...BANK, accountNumber: '12345678', bankCode: null }, 'bankCode', /needs a SWIFT\/BIC/],
      [{ ...BANK, accountNumber: '12345678', bankCode: '021000022', bankCountry: 'US' }, 'bankCode', /routing number is not valid/],
      [{ ...BANK, accountNumber: '12', bankCode: '021000021', bankCountry: 'US' }, 'accountNumber', /4 to 34/],
      [{ ...BANK, bankCode: 'CO!' }, 'bankCode', /SWIFT\/BIC/],
      [{ ...BANK, bankCountry: 'XX' }, 'bankCountry', /country/],
      [{ ...BANK, accountHolder: ' ' }, 'accountHolder', /holder/],
      [{ ...BANK, accountHolder: '<script>' }, 'accountHolder', /holder/],
      [{ method: 'paypal', paypalEmail: 'not-an-email' }, 'paypalEmail', /email/i],
      [{ method: 'paypal', paypalEmail: 'a@b.example', accountNumber: IBAN }, '', /./],
      [{ method: 'cheque' }, 'method', /bank.*paypal/],
      [{ ...BANK, accountNumber: undefined }, 'accountNumber', /IBAN or account number/],
    ];
    for (const [body, field, message] of bad) {
      const res = await put(perf, '/performer/payout-details', body);
      expect(res.status, JSON.stringify({ body, answer: res.body })).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      const issue = (res.body.details as Array<{ path: string; message: string }>).find((d) => (field ? d.path === `body.${field}` : true));
      expect(issue, JSON.stringify({ body, answer: res.body })).toBeDefined();
      expect(issue!.message).toMatch(message);
    }
    expect(await t.ctx.db.selectFrom('payoutDetails').selectAll().execute()).toEqual([]);
    expect((await get(perf, '/performer/payout-details')).body).toEqual({ details: null });
  });

  it('stores payout details encrypted and shows them back masked: the last 4 of the account, the domain of a PayPal address', async () => {
    const saved = await put(perf, '/performer/payout-details', BANK);
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body).toEqual({ method: 'bank', accountHolder: 'Mona Payee', account: '•••• 3000', bankCode: 'COBADEFFXXX', bankCountry: 'DE', updatedAt: expect.any(String) });
    const read = await get(perf, '/performer/payout-details');
    expect(read.headers.get('cache-control')).toContain('no-store');
    expect(read.body.details).toEqual(saved.body);
    expect(JSON.stringify(read.body)).not.toContain('0532013000');
    const row = await t.ctx.db.selectFrom('payoutDetails').selectAll().where('performerId', '=', perf.id).executeTakeFirstOrThrow();
    expect(row.detailsEnc.startsWith('enc:v1:')).toBe(true);
    expect(row.detailsEnc).not.toContain('0532013000');
    expect(row.detailsEnc).not.toContain('Mona');

    // A US account with its routing number; PayPal; each replaces the one before.
    const us = await put(perf2, '/performer/payout-details', { method: 'bank', accountHolder: 'Otto Other', accountNumber: '000123456789', bankCode: '021000021', bankCountry: 'US' });
    expect(us.body).toMatchObject({ account: '•••• 6789', bankCode: '021000021', bankCountry: 'US' });
    const paypal = await put(perf2, '/performer/payout-details', { method: 'paypal', paypalEmail: 'Otto.Other@Example.com' });
    expect(paypal.status).toBe(200);
    expect(paypal.body).toMatchObject({ method: 'paypal', accountHolder: null, account: 'o••••@example.com', bankCode: null, bankCountry: null });
    expect((await get(perf2, '/performer/payout-details')).body.details.method).toBe('paypal');
    // Another performer's details are never in my answer.
    expect(JSON.stringify((await get(perf2, '/performer/payout-details')).body)).not.toContain('Mona');
  });

  it('splits the balance into pending (hold period), available, requested, paid and test money; a refund goes with its credit', async () => {
    await earn(perf.id, 3000, { daysAgo: 10 }); // available
    await earn(perf.id, 2500, { daysAgo: 3 }); // pending
    await earn(perf.id, 4000, { daysAgo: 20, test: true }); // test money: never available
    await earn(perf.id, 1000, { daysAgo: 20, refundedDaysAgo: 1 }); // past the hold, refunded since: nets to 0 in available
    await earn(perf.id, 800, { daysAgo: 2, refundedDaysAgo: 0 }); // refunded within the hold: nets to 0 in pending
    const b = await balance(perf);
    expect(b).toMatchObject({ currency: 'USD', available: 3000, pending: 2500, requested: 0, paid: 0, test: 4000, holdDays: 7, minimum: 5000, hasDetails: true, openRequest: null, blocked: 'minimum' });

    // A shorter hold frees the 3-day-old sale.
    expect((await put(admin, '/admin/settings/payment', { payoutHoldDays: 2 })).status).toBe(200);
    expect(await balance(perf)).toMatchObject({ available: 5500, pending: 0 });
    expect((await put(admin, '/admin/settings/payment', { payoutHoldDays: 7 })).status).toBe(200);
    expect(await balance(perf)).toMatchObject({ available: 3000, pending: 2500 });
    // The other performer's money is not mine.
    expect(await balance(perf2)).toMatchObject({ available: 0, pending: 0, test: 0, blocked: 'minimum' });
  });

  it('refuses a request under the minimum or without payout details, writing nothing', async () => {
    const before = await earningsOf(perf.id);
    const low = await post(perf, '/performer/payouts');
    expect(low.status).toBe(400);
    expect(low.body).toMatchObject({ code: 'BELOW_MINIMUM', details: { available: 3000, minimum: 5000 } });
    expect(low.body.message).toBe('The smallest payout is $50.00; $30.00 is available now');
    expect(await earningsOf(perf.id)).toEqual(before);
    expect(await t.ctx.db.selectFrom('payouts').select('id').execute()).toEqual([]);

    const noDetails = await createUser(t.ctx.db, 'performer');
    await earn(noDetails.id, 9000, { daysAgo: 30 });
    expect((await balance(noDetails)).blocked).toBe('details');
    const missing = await post(noDetails, '/performer/payouts');
    expect(missing.status).toBe(409);
    expect(missing.body.code).toBe('PAYOUT_DETAILS_MISSING');
    expect(await t.ctx.db.selectFrom('payouts').select('id').execute()).toEqual([]);
    expect((await earningsOf(noDetails.id)).every((e) => e.payoutId === null)).toBe(true);

    // Details stored under another APP_SECRET cannot be read: they count as none, and are asked for again.
    const unreadable = await createUser(t.ctx.db, 'performer');
    await earn(unreadable.id, 9000, { daysAgo: 30 });
    const at = new Date().toISOString();
    await t.ctx.db
      .insertInto('payoutDetails')
      .values({ performerId: unreadable.id, method: 'paypal', detailsEnc: encryptSecret('a-previous-secret', JSON.stringify({ method: 'paypal', paypalEmail: 'x@example.com' })), createdAt: at, updatedAt: at })
      .execute();
    expect((await get(unreadable, '/performer/payout-details')).body).toEqual({ details: null });
    expect(await balance(unreadable)).toMatchObject({ hasDetails: false, blocked: 'details', available: 9000 });
    expect((await post(unreadable, '/performer/payouts')).body.code).toBe('PAYOUT_DETAILS_MISSING');

    // Test money alone never reaches the minimum, however much of it there is.
    const sandboxOnly = await createUser(t.ctx.db, 'performer');
    expect((await put(sandboxOnly, '/performer/payout-details', { method: 'paypal', paypalEmail: 'sandbox@example.com' })).status).toBe(200);
    await earn(sandboxOnly.id, 50_000, { daysAgo: 30, test: true });
    expect(await balance(sandboxOnly)).toMatchObject({ available: 0, test: 50_000, blocked: 'minimum' });
    expect((await post(sandboxOnly, '/performer/payouts')).body.code).toBe('BELOW_MINIMUM');
    await expectPayoutsExact();
  });

  let requestId: string;

  it('claims exactly the available earnings, keeps one request open at a time and the details it was asked with', async () => {
    await earn(perf.id, 4000, { daysAgo: 9 });
    expect(await balance(perf)).toMatchObject({ available: 7000, blocked: null });
    const res = await post(perf, '/performer/payouts');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      performerId: perf.id, status: 'requested', amount: 7000, currency: 'USD', earningsCount: 4, reference: null, reason: null,
      account: { method: 'bank', account: '•••• 3000', accountHolder: 'Mona Payee', bankCountry: 'DE' },
    });
    requestId = res.body._id;
    const rows = await earningsOf(perf.id);
    // The 3000 and 4000 sales and the refunded 1000 with its reversal; not the held or test rows.
    expect(rows.filter((e) => e.payoutId === requestId).map((e) => e.net).sort((a, b) => a - b)).toEqual([-1000, 1000, 3000, 4000]);
    expect(rows.filter((e) => e.testMoney === 1).every((e) => e.payoutId === null)).toBe(true);
    expect(rows.every((e) => e.isPaid === 0)).toBe(true);
    expect(await balance(perf)).toMatchObject({ available: 0, pending: 2500, requested: 7000, paid: 0, blocked: 'open', openRequest: { _id: requestId, status: 'requested' } });

    const again = await post(perf, '/performer/payouts');
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('PAYOUT_OPEN');

    // New details later do not redirect the money already asked for.
    expect((await put(perf, '/performer/payout-details', { method: 'paypal', paypalEmail: 'mona@example.com' })).status).toBe(200);
    const mine = await get(perf, '/performer/payouts');
    expect(mine.body).toMatchObject({ total: 1, items: [{ _id: requestId, account: { method: 'bank', account: '•••• 3000' } }] });
    expect((await put(perf, '/performer/payout-details', BANK)).status).toBe(200);
    await expectPayoutsExact();
  });

  it('lets nobody else see or act on the payout: fans, other performers, guests; admins only through the console', async () => {
    for (const path of ['/performer/payouts', '/performer/payouts/balance', '/performer/payout-details']) {
      expect((await get(fan, path)).status).toBe(403);
      expect((await get(admin, path)).status).toBe(403);
      expect((await get(null, path)).status).toBe(401);
    }
    expect((await post(fan, '/performer/payouts')).status).toBe(403);
    expect((await put(fan, '/performer/payout-details', BANK)).status).toBe(403);
    const theirs = await get(perf2, '/performer/payouts');
    expect(theirs.status).toBe(200);
    expect(JSON.stringify(theirs.body)).not.toContain(requestId);
    expect((await balance(perf2)).openRequest).toBeNull();
    for (const who of [fan, perf2, perf]) {
      expect((await get(who, '/admin/payout-requests')).status).toBe(403);
      for (const action of ['approve', 'reveal']) expect((await post(who, `/admin/payout-requests/${requestId}/${action}`)).status).toBe(403);
      expect((await post(who, `/admin/payout-requests/${requestId}/paid`, { reference: 'X' })).status).toBe(403);
      expect((await post(who, `/admin/payout-requests/${requestId}/reject`, { reason: 'no way' })).status).toBe(403);
    }
    expect((await t.ctx.db.selectFrom('payouts').select('status').where('id', '=', requestId).executeTakeFirstOrThrow()).status).toBe('requested');
  });

  it('queues the request for the admin with its age, performer, amount and masked details; the full details only by an audited reveal', async () => {
    const queue = await get(admin, '/admin/payout-requests?status=open');
    expect(queue.status).toBe(200);
    expect(queue.body.total).toBe(1);
    expect(queue.body.items[0]).toMatchObject({
      _id: requestId, status: 'requested', amount: 7000, createdAt: expect.any(String), performer: { _id: perf.id, username: perf.username, name: 'Mona Payee' },
      account: { account: '•••• 3000' },
    });
    expect(JSON.stringify(queue.body)).not.toContain('0532013000');
    expect((await get(admin, '/admin/payout-requests?status=paid')).body.total).toBe(0);
    expect((await get(admin, '/admin/payout-requests?status=nope')).status).toBe(400);

    const revealed = await post(admin, `/admin/payout-requests/${requestId}/reveal`);
    expect(revealed.status, JSON.stringify(revealed.body)).toBe(200);
    expect(revealed.body).toEqual({ payoutId: requestId, method: 'bank', accountHolder: 'Mona Payee', accountNumber: IBAN, bankCode: 'COBADEFFXXX', bankCountry: 'DE', paypalEmail: null });
    const looked = await auditOf('payout.details.reveal', perf.id);
    expect(looked).toHaveLength(1);
    expect(looked[0]!.actorId).toBe(admin.id);
    expect(looked[0]!.details).not.toContain('0532013000');
    expect((await post(admin, '/admin/payout-requests/no-such-id/reveal')).status).toBe(404);
  });

  it('approves, then marks paid with a reference: the earnings are paid, the full copy of the details erased, each step audited', async () => {
    await t.ctx.mailer.flush();
    const since = catcher.mark();
    const approved = await post(admin, `/admin/payout-requests/${requestId}/approve`);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', approvedAt: expect.any(String), actorId: admin.id });
    const twice = await post(admin, `/admin/payout-requests/${requestId}/approve`);
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ code: 'PAYOUT_NOT_OPEN', message: 'This payout is already approved' });
    expect((await balance(perf)).openRequest.status).toBe('approved');

    for (const body of [{}, { reference: '' }, { reference: 'x'.repeat(201) }, { reference: 'OK', extra: 1 }]) {
      const res = await post(admin, `/admin/payout-requests/${requestId}/paid`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await t.ctx.db.selectFrom('payouts').select('status').where('id', '=', requestId).executeTakeFirstOrThrow()).status).toBe('approved');

    const paid = await post(admin, `/admin/payout-requests/${requestId}/paid`, { reference: 'SEPA-2026-0042' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', reference: 'SEPA-2026-0042', paidAt: expect.any(String), amount: 7000 });
    const rows = await earningsOf(perf.id);
    expect(rows.filter((e) => e.payoutId === requestId).every((e) => e.isPaid === 1)).toBe(true);
    expect(await balance(perf)).toMatchObject({ available: 0, requested: 0, paid: 7000, pending: 2500, openRequest: null, blocked: 'minimum' });
    expect((await t.ctx.db.selectFrom('payouts').select('detailsEnc').where('id', '=', requestId).executeTakeFirstOrThrow()).detailsEnc).toBeNull();
    expect((await post(admin, `/admin/payout-requests/${requestId}/reveal`)).body.code).toBe('PAYOUT_DETAILS_GONE');
    const reject = await post(admin, `/admin/payout-requests/${requestId}/reject`, { reason: 'Too late' });
    expect(reject.status).toBe(409);
    expect(reject.body.message).toBe('This payout is already paid');

    const approveAudit = await auditOf('payout.approve', perf.id);
    const payAudit = await auditOf('payout.pay', perf.id);
    expect(approveAudit).toHaveLength(1);
    expect(payAudit).toHaveLength(1);
    expect(JSON.parse(approveAudit[0]!.details)).toMatchObject({ payoutId: requestId, amount: 7000, from: 'requested', to: 'approved' });
    expect(JSON.parse(payAudit[0]!.details)).toMatchObject({ payoutId: requestId, amount: 7000, from: 'approved', to: 'paid', reference: 'SEPA-2026-0042' });
    expect(payAudit[0]!.actorId).toBe(admin.id);

    // The console's list of payouts made and the earnings summary agree.
    const made = await get(admin, `/admin/payouts?performerId=${perf.id}`);
    expect(made.body.items.map((p: { _id: string }) => p._id)).toEqual([requestId]);
    const summary = (await get(admin, `/admin/earnings?q=${perf.username}`)).body.items[0];
    expect(summary).toMatchObject({ paidNet: 7000, requestedNet: 0, unpaidNet: 2500, testNet: 4000 });
    // The performer sees it paid, with the reference.
    expect((await get(perf, '/performer/payouts')).body.items[0]).toMatchObject({ _id: requestId, status: 'paid', reference: 'SEPA-2026-0042' });
    await expectPayoutsExact();
    // The performer is mailed each step once (refused attempts mail nothing), linking to their earnings.
    await t.ctx.mailer.flush();
    const mails = catcher.find(perf.email, /Payout of/, since);
    expect(mails.map((m) => m.subject)).toEqual(['Payout of $70.00 approved', 'Payout of $70.00 paid']);
    expect(mails[1]!.text).toContain('Reference: SEPA-2026-0042');
    expect(mails[1]!.text).toContain(`${t.url}/studio/earnings`);
  });

  it('rejects with a reason the performer reads: the earnings are available again and can be requested anew', async () => {
    await earn(perf.id, 6000, { daysAgo: 8 });
    const req = await post(perf, '/performer/payouts');
    expect(req.status, JSON.stringify(req.body)).toBe(201);
    expect(req.body.amount).toBe(6000);
    const id = req.body._id as string;

    for (const body of [{}, { reason: 'no' }, { reason: 'x'.repeat(501) }]) expect((await post(admin, `/admin/payout-requests/${id}/reject`, body)).status).toBe(400);
    expect((await earningsOf(perf.id)).filter((e) => e.payoutId === id)).toHaveLength(1);

    const rejected = await post(admin, `/admin/payout-requests/${id}/reject`, { reason: 'The account holder does not match your legal name' });
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'rejected', reason: 'The account holder does not match your legal name', rejectedAt: expect.any(String) });
    expect((await earningsOf(perf.id)).filter((e) => e.payoutId === id)).toEqual([]);
    expect(await balance(perf)).toMatchObject({ available: 6000, requested: 0, paid: 7000, openRequest: null, blocked: null });
    expect((await get(perf, '/performer/payouts')).body.items[0]).toMatchObject({ _id: id, status: 'rejected', reason: 'The account holder does not match your legal name' });
    const audit = await auditOf('payout.reject', perf.id);
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]!.details)).toMatchObject({ payoutId: id, from: 'requested', to: 'rejected', released: 1 });
    expect((await post(admin, `/admin/payout-requests/${id}/paid`, { reference: 'late' })).status).toBe(409);

    const anew = await post(perf, '/performer/payouts');
    expect(anew.status).toBe(201);
    expect(anew.body).toMatchObject({ amount: 6000, earningsCount: 1 });
    // The admin's direct "mark paid" pays what is outside the request, whatever its age (the held sale, and the one
    // refunded within its hold with its reversal), and leaves the request alone.
    const direct = await post(admin, '/admin/earnings/payout', { performerId: perf.id, note: 'settled by hand' });
    expect(direct.status, JSON.stringify(direct.body)).toBe(201);
    expect(direct.body).toMatchObject({ amount: 2500, earningsCount: 3 });
    expect(await balance(perf)).toMatchObject({ pending: 0, available: 0, requested: 6000, paid: 9500 });
    expect((await post(admin, '/admin/earnings/payout', { performerId: perf.id })).body.code).toBe('NOTHING_TO_PAY');
    expect((await post(admin, `/admin/payout-requests/${anew.body._id}/paid`, { reference: 'SEPA-2026-0043' })).status).toBe(200);
    expect(await balance(perf)).toMatchObject({ requested: 0, paid: 15_500, test: 4000 });
    await expectPayoutsExact();
  });

  it('validates the payout settings the admin sets', async () => {
    for (const body of [{ payoutMinimum: 99 }, { payoutMinimum: 10.5 }, { payoutHoldDays: -1 }, { payoutHoldDays: 91 }]) {
      const res = await put(admin, '/admin/settings/payment', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const ok = await put(admin, '/admin/settings/payment', { payoutMinimum: 2000 });
    expect(ok.body).toMatchObject({ payoutMinimum: 2000, payoutHoldDays: 7 });
    expect((await get(admin, '/admin/settings')).body.payment).toMatchObject({ payoutMinimum: 2000 });
    expect((await balance(perf2)).minimum).toBe(2000);
    expect((await put(admin, '/admin/settings/payment', { payoutMinimum: 5000 })).status).toBe(200);
    const audit = await t.ctx.db.selectFrom('auditLog').select('details').where('action', '=', 'settings.payment.update').orderBy('createdAt', 'desc').executeTakeFirstOrThrow();
    expect(JSON.parse(audit.details)).toMatchObject({ keys: ['payoutMinimum'], payoutMinimum: 5000 });
  });

  it('concurrent requests of one performer: exactly one wins, no earning is claimed twice (10 at once, 5 rounds)', async () => {
    const racer = await createUser(t.ctx.db, 'performer');
    expect((await put(racer, '/performer/payout-details', BANK)).status).toBe(200);
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 4; i++) await earn(racer.id, 1500 + i, { daysAgo: 8 + i });
      const answers = await Promise.all(Array.from({ length: 10 }, () => post(racer, '/performer/payouts')));
      const won = answers.filter((a) => a.status === 201);
      expect(won, JSON.stringify(answers.map((a) => [a.status, a.body.code]))).toHaveLength(1);
      expect(answers.filter((a) => a.status !== 201).map((a) => [a.status, a.body.code])).toEqual(Array(9).fill([409, 'PAYOUT_OPEN']));
      const winner = won[0]!.body;
      const rows = await earningsOf(racer.id);
      const claimed = rows.filter((e) => e.payoutId === winner._id);
      expect(claimed.reduce((s, e) => s + e.net, 0)).toBe(winner.amount);
      expect(rows.filter((e) => e.payoutId !== null && e.payoutId !== winner._id && e.isPaid === 0)).toEqual([]);
      expect(rows.filter((e) => e.payoutId === null)).toEqual([]);
      // Alternate the endings: a rejection gives the rows back for the next round's race, a payment keeps them.
      const end = round % 2 === 0 ? post(admin, `/admin/payout-requests/${winner._id}/reject`, { reason: 'Round over' }) : post(admin, `/admin/payout-requests/${winner._id}/paid`, { reference: `R${round}` });
      expect((await end).status).toBe(200);
    }
    expect((await t.ctx.db.selectFrom('payouts').select('id').where('performerId', '=', racer.id).where('status', 'in', ['requested', 'approved']).execute())).toEqual([]);
    await expectPayoutsExact();
  }, 60_000);

  it("a request racing the admin's direct payout and the admin's paid racing reject: each earning goes to one payout, each payout ends once", async () => {
    const racer = await createUser(t.ctx.db, 'performer');
    expect((await put(racer, '/performer/payout-details', { method: 'paypal', paypalEmail: 'racer@example.com' })).status).toBe(200);
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 3; i++) await earn(racer.id, 2000 + i, { daysAgo: 10 });
      const [request, direct] = await Promise.all([post(racer, '/performer/payouts'), post(admin, '/admin/earnings/payout', { performerId: racer.id })]);
      // One of them takes the rows; the other finds nothing (or, for the request, less than the minimum).
      expect([request.status, direct.status].filter((s) => s === 201), JSON.stringify([request.body, direct.body])).toHaveLength(1);
      if (request.status !== 201) expect(request.body.code).toBe('BELOW_MINIMUM');
      if (direct.status !== 201) expect(direct.body.code).toBe('NOTHING_TO_PAY');
      if (request.status === 201) {
        const id = request.body._id as string;
        const [paid, rejected] = await Promise.all([
          post(admin, `/admin/payout-requests/${id}/paid`, { reference: `P${round}` }),
          post(admin, `/admin/payout-requests/${id}/reject`, { reason: 'Raced the payment' }),
        ]);
        expect([paid.status, rejected.status].sort()).toEqual([200, 409]);
        const status = (await t.ctx.db.selectFrom('payouts').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
        expect(status).toBe(paid.status === 200 ? 'paid' : 'rejected');
        // A rejected round's rows are paid by hand, so every round starts from nothing.
        if (status === 'rejected') expect((await post(admin, '/admin/earnings/payout', { performerId: racer.id })).status).toBe(201);
      }
      expect((await earningsOf(racer.id)).filter((e) => e.isPaid === 0)).toEqual([]);
      await expectPayoutsExact();
    }
  }, 60_000);

  it('answered no request with a 5xx', () => {
    expect(serverErrors).toEqual([]);
  });
});
