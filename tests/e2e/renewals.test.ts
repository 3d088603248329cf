import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { hasChromium, saveScreen, useBrowser, waitForIsland } from '../helpers/browser.js';
import { buildMoneyWorld, endPeriodAgo, sandboxBillingOf, subscriptionOf, type MoneyWorld } from '../helpers/money-fixture.js';
import { createInProcessMoney, type Money } from '../../server/payments/money.js';

/**
 * A subscription's life in chromium, on the sandbox provider's clock: the fan subscribes and sees when it renews and
 * for how much; the performer's studio counts a renewing subscriber; the renewal fails, the fan sees it and the video
 * closes; the provider's retry goes through and the video opens again; the fan cancels, sees that no further charge
 * is made, and the provider's billing is stopped.
 */
describe.skipIf(!hasChromium)('renewals in chromium', () => {
  let t: TestApp;
  let w: MoneyWorld;
  let money: Money;
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
    return (await page.getByTestId('lock-box').count()) === 1;
  };

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true });
    w = await buildMoneyWorld(t.ctx);
    money = createInProcessMoney(t.ctx);
    page = await (await chromium.context({ as: w.fan })).newPage();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('subscribe, renew, fail, recover in the grace period, cancel', async () => {
    await page.goto(`${t.url}/performers/${w.perf.username}`);
    await waitForIsland(page, 'SubscribeButton');
    await page.getByTestId('subscribe-monthly').click();
    await page.waitForURL('**/payments/sandbox/**');
    await waitForIsland(page, 'SandboxPay');
    await page.getByTestId('sandbox-approve').click();
    await page.waitForURL('**/payments/result/**');
    await expect.poll(() => page.getByTestId('payment-result').getAttribute('data-status')).toBe('success');
    const first = await sub();
    expect(await billingText()).toBe(`Renews ${first.expiresAt!.slice(0, 10)} for $10.00`);

    // The performer's studio counts the renewing subscriber.
    const studio = await (await chromium.context({ as: w.perf })).newPage();
    await studio.goto(`${t.url}/studio`);
    expect(await studio.getByTestId('subscriber-stats').textContent()).toMatch(/Subscribers: 1 active · 1 renewing · 0 cancelled/);
    await studio.close();

    // The period ends and the renewal fails: access closes, the fan is told until when it is retried.
    await money.sandbox().failNext((await billing()).id, 1);
    await endPeriodAgo(t.ctx.db, w.fan.id, w.perf.id, 60_000);
    const now = new Date();
    await money.sandbox().renewDue(now);
    const failed = await sub();
    expect(await billingText()).toBe(`Payment failed: we retry until ${failed.graceUntil!.slice(0, 10)}, then the subscription ends`);
    expect(await page.getByTestId('subscription-status').textContent()).toBe('Payment failed');
    await saveScreen(page, 'subscription-renewal-failed', { fullPage: true });
    expect(await locked()).toBe(true);

    // The provider's retry a day later goes through: a new period from the charge, the video opens again.
    await money.sandbox().renewDue(new Date(now.getTime() + DAY));
    const renewed = await sub();
    expect(renewed.renewalFailedAt).toBeNull();
    expect(await locked()).toBe(false);
    expect(await billingText()).toBe(`Renews ${renewed.expiresAt!.slice(0, 10)} for $10.00`);

    // Cancel: the browser asks, the provider's billing stops, access stays to the end of the period.
    page.once('dialog', (d) => void d.accept());
    await page.getByTestId('subscription-cancel').click();
    await expect.poll(() => page.getByTestId('subscription-billing').textContent()).toBe(`Ends ${renewed.expiresAt!.slice(0, 10)}, no further charge`);
    expect((await billing()).status).toBe('cancelled');
    expect(await locked()).toBe(false);
    await saveScreen(page, 'subscription-cancelled', { fullPage: true });
  }, 90_000);
});
