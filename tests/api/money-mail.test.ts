import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { MailCatcher, type CaughtMail } from '../helpers/mail-catcher.js';
import {
  buildMoneyWorld, chargeOf, endPeriodAgo, payWithSandbox, postWebhook, sandboxBillingOf, sandboxEvent, subscribeWithSandbox, subscriptionOf, type MoneyWorld,
} from '../helpers/money-fixture.js';
import { createInProcessMoney, type Money } from '../../server/payments/money.js';
import { moneyClock } from '../../server/payments/maintenance.service.js';
import { mailDateTime } from '../../server/mail/money-templates.js';
import { upsertSetting } from '../../server/settings/settings.repository.js';

/**
 * The money mails end to end, on every engine, delivered over real SMTP to a local catcher: a receipt for each paid
 * payment, the performer's new subscriber, renewals that went through or failed, the subscription cancelled, ended at
 * the provider or lapsed, the yearly reminder once per period, an order shipped. Each mail is looked for by its
 * recipient and subject; every link in it must point at the page it names, on this server. Repeated provider events
 * and repeated requests mail nothing twice, and a mailer that throws leaves the money as it is.
 */

const DAY = 86_400_000;
const catcher = new MailCatcher();

beforeAll(async () => {
  await catcher.start();
});
afterAll(async () => {
  await catcher.stop();
});

describe.each(engines)('money mails on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;
  let money: Money;
  const db = () => t.ctx.db;
  const post = (path: string, who: TestUser | undefined, json: unknown = {}) => t.api(path, { method: 'POST', headers: who?.headers ?? {}, json });
  const put = (path: string, who: TestUser, json: unknown) => t.api(path, { method: 'PUT', headers: who.headers, json });

  /** The mail's links on this server, by path: every http(s) address in the text except the footer's site address. */
  const pathsIn = (mail: CaughtMail) => {
    const urls = (mail.text.match(/https?:\/\/[^\s<>"]+/g) ?? []).filter((u) => u !== t.url);
    for (const u of urls) expect(new URL(u).origin, u).toBe(t.url);
    return [...new Set(urls.map((u) => new URL(u).pathname))].sort();
  };
  /** A position in the catcher after every mail queued so far (an earlier step's mails must not count as this one's). */
  const mark = async () => {
    await t.ctx.mailer.flush();
    return catcher.mark();
  };
  /** The mails to `to` since `since`, once every queued mail has reached the catcher. */
  const mailsTo = async (to: string, subject: RegExp, since: number) => {
    await t.ctx.mailer.flush();
    return catcher.find(to, subject, since);
  };

  const subRow = (userId: string, performerId = w.perf.id) => subscriptionOf(db(), userId, performerId);
  const billingOf = (userId: string) => sandboxBillingOf(db(), userId, w.perf.id);
  /** Ages the subscription so that its period ends `ago` ms before now (negative: after now). */
  const endedAgo = (fan: TestUser, ago: number) => endPeriodAgo(db(), fan.id, w.perf.id, ago);
  /** A new fan subscribed through the checkout and the sandbox's Approve. */
  async function subscribed(type: 'monthly' | 'yearly' = 'monthly', name?: string) {
    const fan = await createUser(db(), 'user', name ? { name } : {});
    await subscribeWithSandbox(t, fan, { performerId: w.perf.id, type });
    return fan;
  }

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { SMTP_URL: catcher.smtpUrl } });
    expect(t.ctx.mailer.mode).toBe('smtp');
    w = await buildMoneyWorld(t.ctx);
    money = createInProcessMoney(t.ctx);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('a subscription paid through the sandbox mails the fan a receipt (after the commit) and the performer their new subscriber', async () => {
    const name = `Sam <b>&</b> "Fan" ${engine}`;
    const since = await mark();
    const fan = await subscribed('monthly', name);
    const receipt = await catcher.waitFor(fan.email, /receipt/i, since);
    // The mail left after the commit: the payment it is about reads as paid.
    const payment = await db().selectFrom('payments').selectAll().where('userId', '=', fan.id).executeTakeFirstOrThrow();
    expect(payment.status).toBe('success');
    expect(receipt.subject).toBe('Your Fanstage receipt: Monthly subscription to Mona Money');
    expect(receipt.text).toContain(`Hi ${name},`);
    expect(receipt.text).toContain('Monthly subscription to Mona Money: $10.00');
    expect(receipt.text).toContain('Total paid: $10.00');
    expect(receipt.text).toContain(`Date: ${mailDateTime(payment.paidAt!)}`);
    expect(receipt.text).toContain(`Payment id: ${payment.id}`);
    expect(receipt.text).toContain(`now runs until ${mailDateTime((await subRow(fan.id)).expiresAt!)}. It renews by itself`);
    expect(pathsIn(receipt)).toEqual(['/account/subscriptions', '/account/transactions']);
    // The fan's chosen name is text in the HTML, never markup.
    expect(receipt.html).toContain(`Hi Sam &lt;b&gt;&amp;&lt;/b&gt; &quot;Fan&quot; ${engine},`);
    expect(receipt.html).not.toContain('<b>&</b>');

    const news = await catcher.waitFor(w.perf.email, /new subscriber/i, since);
    expect(news.subject).toBe(`New subscriber: ${name}`);
    expect(news.text).toContain(`${name} just subscribed to you (monthly, $10.00 paid).`);
    expect(news.html).toContain('Sam &lt;b&gt;&amp;&lt;/b&gt;');
    // The studio, and the link that stops these mails (the performer's 'subscriber' email choice).
    expect(pathsIn(news)).toEqual(['/notifications/unsubscribe', '/studio']);
    expect(await mailsTo(fan.email, /./, since)).toHaveLength(1);
  });

  it('a purchase delivered twice under one event id, and again under another, mails one receipt naming what was bought', async () => {
    const buyer = await createUser(db(), 'user');
    const checkout = await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, buyer, { couponCode: 'WELCOME10' });
    expect(checkout.status).toBe(201);
    const charge = await chargeOf(db(), checkout.body.paymentId);
    const since = await mark();
    const event = sandboxEvent(t, 'charge.succeeded', charge, { id: `evt_mail_${charge.id}` });
    expect((await postWebhook(t, event)).body.outcome).toBe('paid');
    expect((await postWebhook(t, event)).body.outcome).toBe('duplicate');
    expect((await postWebhook(t, sandboxEvent(t, 'charge.succeeded', charge))).body.outcome).toBe('already_paid');
    const receipts = await mailsTo(buyer.email, /receipt/i, since);
    expect(receipts).toHaveLength(1);
    expect(receipts[0]!.subject).toBe('Your Fanstage receipt: Video: Pay per view');
    expect(receipts[0]!.text).toContain('Video: Pay per view: $12.99\nDiscount (coupon WELCOME10): -$1.29\nTotal paid: $11.70');
    expect(pathsIn(receipts[0]!)).toEqual(['/account/transactions']);
    // No subscription, no performer mail.
    expect(await mailsTo(w.perf.email, /new subscriber/i, since)).toHaveLength(0);
  });

  it('a subscription whose refund overtook its payment gets a receipt saying so, and brings the performer no new subscriber', async () => {
    const fan = await createUser(db(), 'user');
    const checkout = await post('/payment/subscribe', fan, { performerId: w.perf.id, type: 'monthly' });
    expect(checkout.status).toBe(201);
    const charge = await chargeOf(db(), checkout.body.paymentId);
    const since = await mark();
    expect((await postWebhook(t, sandboxEvent(t, 'charge.refunded', charge))).body.outcome).toBe('deferred');
    expect((await postWebhook(t, sandboxEvent(t, 'charge.succeeded', charge))).body.outcome).toBe('paid_then_refunded');
    const receipts = await mailsTo(fan.email, /receipt/i, since);
    expect(receipts).toHaveLength(1);
    expect(receipts[0]!.text).toContain('This payment has since been refunded.');
    expect(receipts[0]!.text).not.toContain('runs until');
    expect(await mailsTo(w.perf.email, /new subscriber/i, since)).toHaveLength(0);
  });

  it("a cart's receipt lists its lines; marking an order shipping mails its buyer the tracking code, once", async () => {
    const buyer = await createUser(db(), 'user');
    const since = await mark();
    const res = await post('/payment/purchase-products', buyer, {
      items: [{ productId: w.products.mug.id, quantity: 2 }, { productId: w.products.ebook.id, quantity: 1 }, { productId: w.products.tee.id, quantity: 1 }],
      shippingAddress: '1 Mail Street',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await payWithSandbox(t, buyer, res.body.redirectUrl);
    const receipt = await catcher.waitFor(buyer.email, /receipt/i, since);
    expect(receipt.subject).toBe('Your Fanstage receipt: 3 items');
    for (const line of ['Mug × 2: $30.00', 'Ebook: $9.99', 'Tee: $25.00', 'Total paid: $64.99']) expect(receipt.text).toContain(line);

    const orders = await db().selectFrom('orders').selectAll().where('paymentId', '=', res.body.paymentId).execute();
    const mona = orders.find((o) => o.performerId === w.perf.id)!;
    const otto = orders.find((o) => o.performerId === w.perf2.id)!;
    // Processing is no news; shipping is, with its code.
    expect((await put(`/orders/${mona.id}/update`, w.perf, { deliveryStatus: 'processing' })).status).toBe(200);
    expect(await mailsTo(buyer.email, /shipped/i, since)).toHaveLength(0);
    const upd = await put(`/orders/${mona.id}/update`, w.perf, { deliveryStatus: 'shipping', trackingCode: 'TRK<1>&2' });
    expect(upd.status).toBe(200);
    const shipped = await catcher.waitFor(buyer.email, /shipped/i, since);
    expect(shipped.subject).toBe(`Your order ${mona.orderNumber} has shipped`);
    expect(shipped.text).toContain('Mona Money has shipped your order');
    expect(shipped.text).toContain('\n  Mug × 2\n');
    expect(shipped.text).toContain('\n  Ebook\n');
    expect(shipped.text).not.toContain('Tee');
    expect(shipped.text).toContain('Tracking code: TRK<1>&2');
    expect(shipped.html).toContain('Tracking code: TRK&lt;1&gt;&amp;2');
    expect(pathsIn(shipped)).toEqual([`/account/orders/${mona.id}`]);
    // Saying it again, or moving on to delivered, mails nothing; a corrected tracking code is mailed.
    await put(`/orders/${mona.id}/update`, w.perf, { deliveryStatus: 'shipping', trackingCode: 'TRK<1>&2' });
    await put(`/orders/${mona.id}/update`, w.perf, { deliveryStatus: 'shipping' });
    expect(await mailsTo(buyer.email, /shipped/i, since)).toHaveLength(1);
    await put(`/orders/${mona.id}/update`, w.perf, { trackingCode: 'TRK-2' });
    expect((await mailsTo(buyer.email, /shipped/i, since)).map((m) => m.text.includes('Tracking code: TRK-2'))).toEqual([false, true]);
    await put(`/orders/${mona.id}/update`, w.perf, { deliveryStatus: 'delivered' });
    expect(await mailsTo(buyer.email, /shipped/i, since)).toHaveLength(2);

    // An admin shipping the other performer's order, through the console, mails the buyer too.
    const admin = await put(`/admin/orders/${otto.id}/delivery`, w.admin, { deliveryStatus: 'shipping', trackingCode: 'ADM-7' });
    expect(admin.status, JSON.stringify(admin.body)).toBe(200);
    const byAdmin = await catcher.waitFor(buyer.email, new RegExp(`order ${otto.orderNumber} has shipped`), since);
    expect(byAdmin.text).toContain('Otto Other has shipped your order');
    expect(byAdmin.text).toContain('Tracking code: ADM-7');
    expect(pathsIn(byAdmin)).toEqual([`/account/orders/${otto.id}`]);
  });

  it('a sandbox renewal mails the renewal receipt; the clock running again mails nothing more', async () => {
    const fan = await subscribed();
    await endedAgo(fan, -5 * 60_000);
    const since = await mark();
    const at = new Date();
    await money.sandbox().renewDue(at);
    const receipt = await catcher.waitFor(fan.email, /renewed/i, since);
    const renewal = await db().selectFrom('payments').selectAll().where('userId', '=', fan.id).orderBy('createdAt', 'desc').orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(receipt.subject).toBe('Your monthly subscription to Mona Money renewed: receipt');
    expect(receipt.text).toContain('Renewal of your monthly subscription to Mona Money: $10.00');
    expect(receipt.text).toContain(`Payment id: ${renewal.id}`);
    expect(receipt.text).toContain(`now runs until ${mailDateTime((await subRow(fan.id)).expiresAt!)}`);
    expect(pathsIn(receipt)).toEqual(['/account/subscriptions', '/account/transactions']);
    await money.sandbox().renewDue(at);
    expect(await mailsTo(fan.email, /./, since)).toHaveLength(1);
    // A renewal is not a new subscriber.
    expect(await mailsTo(w.perf.email, /new subscriber/i, since)).toHaveLength(0);
  });

  it('a failed renewal mails until when it is retried (once, not at every retry); the lapse after the grace period mails that it ended', async () => {
    const fan = await subscribed();
    await money.sandbox().failNext((await billingOf(fan.id)).id, 10);
    await endedAgo(fan, 60_000);
    const since = await mark();
    const now = Date.now();
    await money.sandbox().renewDue(new Date(now));
    const failed = await catcher.waitFor(fan.email, /could not be renewed/i, since);
    const sub = await subRow(fan.id);
    expect(sub.graceUntil).toBe(new Date(Date.parse(sub.expiresAt!) + 3 * DAY).toISOString());
    expect(failed.subject).toBe('Your subscription to Mona Money could not be renewed');
    expect(failed.text).toContain('($10.00)');
    expect(failed.text).toContain(`tried again until ${mailDateTime(sub.graceUntil!)}`);
    expect(failed.text).toContain(`Your paid period ended on ${mailDateTime(sub.expiresAt!)}`);
    expect(pathsIn(failed)).toEqual(['/account/subscriptions']);

    // Three daily retries fail too; on the fourth day the grace period is over and the subscription lapses.
    for (let day = 1; day <= 4; day++) await moneyClock(money, new Date(now + day * DAY));
    expect(await subRow(fan.id)).toMatchObject({ autoRenew: 0, status: 'expired' });
    expect(await mailsTo(fan.email, /could not be renewed/i, since)).toHaveLength(1);
    const ended = await catcher.waitFor(fan.email, /has ended/i, since);
    expect(ended.subject).toBe('Your subscription to Mona Money has ended');
    expect(ended.text).toContain(`(the last period paid for ended on ${mailDateTime(sub.expiresAt!)})`);
    expect(pathsIn(ended)).toEqual(['/account/subscriptions', `/performers/${w.perf.username}`]);
    await moneyClock(money, new Date(now + 5 * DAY));
    expect(await mailsTo(fan.email, /./, since)).toHaveLength(2);
  });

  it('cancelling mails the fan once, with the end of their access; the provider ending a billing mails its own', async () => {
    const fan = await subscribed();
    const since = await mark();
    const res = await post(`/subscriptions/cancel/${(await subRow(fan.id)).id}`, fan);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const mail = await catcher.waitFor(fan.email, /is cancelled/i, since);
    expect(mail.subject).toBe('Your subscription to Mona Money is cancelled');
    expect(mail.text).toContain('is cancelled: it will not renew');
    expect(mail.text).toContain(`You keep access until ${mailDateTime(res.body.expiresAt)}.`);
    expect(pathsIn(mail)).toEqual(['/account/subscriptions', `/performers/${w.perf.username}`]);
    // Cancelling again changes nothing and mails nothing.
    expect((await post('/subscriptions/cancel', fan, { performerId: w.perf.id })).status).toBe(200);
    expect(await mailsTo(fan.email, /./, since)).toHaveLength(1);

    // Another fan's billing is ended by the provider (a cancellation made at the provider): one mail, a replay none.
    const other = await subscribed();
    const billing = await billingOf(other.id);
    const attempt = { id: `sbf_end_${billing.id}`, paymentId: '', amount: 1000, currency: 'USD', renewalOf: billing.id };
    const event = money.sandbox().buildEvent('subscription.cancelled', attempt, `evt_end_${billing.id}`, { at: new Date().toISOString() });
    const since2 = await mark();
    expect((await postWebhook(t, event)).body.outcome).toBe('ended');
    expect((await postWebhook(t, event)).body.outcome).toBe('duplicate');
    const atProvider = await catcher.waitFor(other.email, /is cancelled/i, since2);
    expect(atProvider.text).toContain('was ended at the payment provider');
    expect(await mailsTo(other.email, /./, since2)).toHaveLength(1);
  });

  it('a yearly subscription is reminded of its renewal once per period, renewalReminderDays before it; monthly ones are not', async () => {
    const yearly = await subscribed('yearly');
    const monthly = await subscribed('monthly');
    await endedAgo(yearly, -3 * DAY);
    await endedAgo(monthly, -3 * DAY);
    const since = await mark();
    const now = new Date();
    // Off: nobody is reminded (and nothing is marked reminded).
    await upsertSetting(db(), 'renewalReminderDays', 0, 'payment', false);
    expect((await moneyClock(money, now)).reminded).toBe(0);
    await upsertSetting(db(), 'renewalReminderDays', 7, 'payment', false);
    // Two clocks at once (two instances) remind once.
    const [a, b] = await Promise.all([moneyClock(money, now), moneyClock(money, now)]);
    expect(a.reminded + b.reminded).toBe(1);
    expect((await subRow(yearly.id)).renewalRemindedAt).not.toBeNull();
    const reminder = await catcher.waitFor(yearly.email, /renews on/i, since);
    const end = (await subRow(yearly.id)).expiresAt!;
    expect(reminder.text).toContain(`Your yearly subscription to Mona Money renews on ${mailDateTime(end)}, for $90.00.`);
    expect(pathsIn(reminder)).toEqual(['/account/subscriptions']);
    await moneyClock(money, new Date(now.getTime() + DAY));
    expect(await mailsTo(yearly.email, /renews on/i, since)).toHaveLength(1);
    expect(await mailsTo(monthly.email, /./, since)).toHaveLength(0);

    // The renewal adds a period; three days before its end the next reminder goes out.
    await endedAgo(yearly, -60_000);
    await money.sandbox().renewDue(new Date());
    await catcher.waitFor(yearly.email, /renewed/i, since);
    expect((await subRow(yearly.id)).renewalRemindedAt).toBeNull();
    await endedAgo(yearly, -3 * DAY);
    await moneyClock(money, new Date());
    await t.ctx.mailer.flush();
    expect(await mailsTo(yearly.email, /renews on/i, since)).toHaveLength(2);
  });

  it('a mailer that throws never fails or undoes the money: the payment is paid and the webhook answered 200', async () => {
    const buyer = await createUser(db(), 'user');
    const checkout = await post(`/payment/purchase-video/${w.videos.saleVideo.id}`, buyer, {});
    const charge = await chargeOf(db(), checkout.body.paymentId);
    const queue = vi.spyOn(t.ctx.mailer, 'queue').mockImplementation(() => {
      throw new Error('mail server on fire');
    });
    const res = await postWebhook(t, sandboxEvent(t, 'charge.succeeded', charge));
    expect({ status: res.status, outcome: res.body.outcome }).toEqual({ status: 200, outcome: 'paid' });
    expect(queue).toHaveBeenCalled();
    expect((await db().selectFrom('payments').select('status').where('id', '=', checkout.body.paymentId).executeTakeFirstOrThrow()).status).toBe('success');
    expect((await t.api(`/user/assets/videos/${w.videos.saleVideo.id}`, { headers: buyer.headers })).body.locked).toBe(false);
  });
});
