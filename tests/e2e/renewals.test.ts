import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { hasChromium, saveScreen, useBrowser, waitForIsland, waitForPerformerControls, waitForVideoControls } from '../helpers/browser.js';
import { MailCatcher, type CaughtMail } from '../helpers/mail-catcher.js';
import { buildMoneyWorld, endPeriodAgo, ledger, sandboxBillingOf, subscriptionOf, type MoneyWorld } from '../helpers/money-fixture.js';
import { createInProcessMoney, type Money } from '../../server/payments/money.js';

/**
 * A subscription's life in chromium, on the sandbox provider's clock, with every mail read from a real SMTP server:
 * the fan starts the performer's free trial and sees when it renews and for how much; the performer is mailed a new
 * subscriber and their studio counts a renewing one; the trial ends and the first paid period is charged (a renewal
 * receipt); the next renewal fails: the fan is mailed, follows the mail's link to the subscriptions page, sees until
 * when it is retried, and the video closes; the provider's retry goes through and the video opens again; the fan
 * cancels, is mailed, sees that no further charge is made, and the provider's billing is stopped.
 */
describe.skipIf(!hasChromium)('renewals in chromium', () => {
  let t: TestApp;
  let w: MoneyWorld;
  let money: Money;
  const catcher = new MailCatcher();
  const chromium = useBrowser(() => t.url);
  let page: Page;
  const DAY = 86_400_000;

  const sub = () => subscriptionOf(t.ctx.db, w.fan.id, w.perf.id);
  const billing = () => sandboxBillingOf(t.ctx.db, w.fan.id, w.perf.id);
  const billingText = async () => {
    await page.goto(`${t.url}/account/subscriptions`);
    await waitForIsland(page, 'SubscriptionsList');
    return page.getByTestId('subscription-billing').textContent();
  };
  const locked = async () => {
    await page.goto(`${t.url}/videos/${w.videos.subsVideo.id}`);
    // The page every member shares, then the fan's own state there.
    await waitForVideoControls(page);
    return (await page.getByTestId('lock-box').count()) === 1;
  };
  /** A position in the catcher after every mail queued so far. */
  const mark = async () => {
    await t.ctx.mailer.flush();
    return catcher.mark();
  };
  /** The one mail to `to` since `since` with a subject matching `subject`, once the mailer has flushed. */
  const onlyMail = async (to: string, subject: RegExp, since: number): Promise<CaughtMail> => {
    await t.ctx.mailer.flush();
    const found = catcher.find(to, undefined, since);
    expect(found.map((m) => m.subject)).toEqual([expect.stringMatching(subject)]);
    return found[0]!;
  };
  /** The address in a mail that leads to `path` on this site. */
  const linkTo = (mail: CaughtMail, path: string) => {
    const link = (mail.text.match(/https?:\/\/[^\s<>"]+/g) ?? []).find((u) => new URL(u).pathname === path);
    expect(link, `a link to ${path} in:\n${mail.text}`).toBeDefined();
    expect(new URL(link!).origin).toBe(t.url);
    return link!;
  };

  beforeAll(async () => {
    await catcher.start();
    t = await startTestApp('sqlite', { web: true, env: { SMTP_URL: catcher.smtpUrl } });
    w = await buildMoneyWorld(t.ctx);
    await t.ctx.db.updateTable('performers').set({ trialDays: 7 }).where('id', '=', w.perf.id).execute();
    money = createInProcessMoney(t.ctx);
    page = await (await chromium.context({ as: w.fan })).newPage();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await catcher.stop();
  });

  it('start a trial, renew, fail, recover in the grace period, cancel: the page and the mails say each step', async () => {
    let since = await mark();
    await page.goto(`${t.url}/performers/${w.perf.username}`);
    await waitForPerformerControls(page);
    expect(await page.getByTestId('subscribe-monthly').textContent()).toBe('Start 7-day free trial, then $10.00/month');
    await page.getByTestId('subscribe-monthly').click();
    await page.waitForURL('**/payments/sandbox/**');
    expect(await page.getByTestId('sandbox-amount').textContent()).toBe('$0.00');
    await waitForIsland(page, 'SandboxPay');
    await page.getByTestId('sandbox-approve').click();
    await page.waitForURL('**/payments/result/**');
    await expect.poll(() => page.getByTestId('payment-result').getAttribute('data-status')).toBe('success');
    const trial = await sub();
    expect(Math.round((Date.parse(trial.expiresAt!) - Date.parse(trial.startedAt!)) / DAY)).toBe(7);
    expect(await billingText()).toBe(`Renews ${trial.expiresAt!.slice(0, 10)} for $10.00`);
    expect(await locked()).toBe(false);
    // The fan's receipt says nothing was taken and when it renews; the performer hears of a new subscriber.
    const receipt = await onlyMail(w.fan.email, /receipt/i, since);
    expect(receipt.text).toContain('Total paid: $0.00');
    expect(receipt.text).toContain('It renews by itself');
    await onlyMail(w.perf.email, /New subscriber/, since);

    // The performer's studio counts the renewing subscriber.
    const studio = await (await chromium.context({ as: w.perf })).newPage();
    await studio.goto(`${t.url}/studio`);
    expect(await studio.getByTestId('subscriber-stats').textContent()).toMatch(/Subscribers: 1 active · 1 renewing · 0 cancelled/);
    await studio.close();

    // The trial ends: the provider charges the first paid period, the fan gets a renewal receipt for $10.00.
    since = await mark();
    await endPeriodAgo(t.ctx.db, w.fan.id, w.perf.id, 60_000);
    await money.sandbox().renewDue(new Date());
    const paid = await sub();
    expect(Date.parse(paid.expiresAt!)).toBeGreaterThan(Date.now() + 29 * DAY);
    const renewal = await onlyMail(w.fan.email, /renewed: receipt/, since);
    expect(renewal.text).toContain('Total paid: $10.00');
    expect(await billingText()).toBe(`Renews ${paid.expiresAt!.slice(0, 10)} for $10.00`);

    // That period ends and the renewal fails: access closes; the mail leads to the page that says until when it is retried.
    since = await mark();
    await money.sandbox().failNext((await billing()).id, 1);
    await endPeriodAgo(t.ctx.db, w.fan.id, w.perf.id, 60_000);
    const now = new Date();
    await money.sandbox().renewDue(now);
    const failed = await sub();
    const failure = await onlyMail(w.fan.email, /could not be renewed/, since);
    await page.goto(linkTo(failure, '/account/subscriptions'));
    await waitForIsland(page, 'SubscriptionsList');
    expect(await page.getByTestId('subscription-billing').textContent()).toBe(`Payment failed: we retry until ${failed.graceUntil!.slice(0, 10)}, then the subscription ends`);
    expect(await page.getByTestId('subscription-status').textContent()).toBe('Payment failed');
    await saveScreen(page, 'subscription-renewal-failed', { fullPage: true });
    expect(await locked()).toBe(true);

    // The provider's retry a day later goes through: a new period from the charge, a receipt, the video opens again.
    since = await mark();
    await money.sandbox().renewDue(new Date(now.getTime() + DAY));
    const renewed = await sub();
    expect(renewed.renewalFailedAt).toBeNull();
    await onlyMail(w.fan.email, /renewed: receipt/, since);
    expect(await locked()).toBe(false);
    expect(await billingText()).toBe(`Renews ${renewed.expiresAt!.slice(0, 10)} for $10.00`);

    // Cancel: the browser asks, the provider's billing stops, access stays to the end of the period, a mail says so.
    since = await mark();
    page.once('dialog', (d) => void d.accept());
    await page.getByTestId('subscription-cancel').click();
    await expect.poll(() => page.getByTestId('subscription-billing').textContent()).toBe(`Ends ${renewed.expiresAt!.slice(0, 10)}, no further charge`);
    expect((await billing()).status).toBe('cancelled');
    expect(await locked()).toBe(false);
    const cancelled = await onlyMail(w.fan.email, /is cancelled/, since);
    linkTo(cancelled, '/account/subscriptions');
    await saveScreen(page, 'subscription-cancelled', { fullPage: true });

    // Two charges of $10.00 and a trial: the ledger holds exactly what was taken.
    const l = await ledger(t.ctx.db);
    expect(l.paid).toBe(2000);
    expect(l.net + l.commission).toBe(l.paid);
  }, 120_000);
});
