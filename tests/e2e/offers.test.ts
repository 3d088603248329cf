import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { hasChromium, saveScreen, useBrowser, waitForIsland, waitForPerformerControls } from '../helpers/browser.js';
import { createUser, type TestUser } from '../helpers/sessions.js';

/**
 * Offers in chromium, on a phone: the performer sets a 7-day free trial in the studio; a new fan sees "Start 7-day
 * free trial, then $9.99/month" on the performer's page, starts it through the sandbox page for $0.00, and is
 * subscribed until the trial ends, renewing at the monthly price.
 */
describe.skipIf(!hasChromium)('offers journey in chromium', () => {
  let t: TestApp;
  let perf: TestUser;
  let fan: TestUser;
  const chromium = useBrowser(() => t.url);

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true });
    perf = await createUser(t.ctx.db, 'performer', { name: 'Tria Trial', performer: { monthlyPrice: 999, yearlyPrice: 0 } });
    fan = await createUser(t.ctx.db, 'user');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('the performer sets a trial; a fan starts it through the sandbox page', async () => {
    const studio = await (await chromium.context({ as: perf, phone: true })).newPage();
    await studio.goto(`${t.url}/studio/profile`);
    await waitForIsland(studio, 'StudioProfile');
    await studio.getByTestId('trial-days').fill('7');
    await studio.getByTestId('bundle-3').fill('10');
    await studio.getByTestId('studio-profile-submit').click();
    await expect.poll(async () => (await t.ctx.db.selectFrom('performers').select(['trialDays', 'bundle3Bps']).where('id', '=', perf.id).executeTakeFirst())).toEqual({ trialDays: 7, bundle3Bps: 1000 });
    await saveScreen(studio, 'studio-offers', { fullPage: true });

    const page = await (await chromium.context({ as: fan, phone: true })).newPage();
    await page.goto(`${t.url}/performers/${perf.username}`);
    await waitForPerformerControls(page);
    expect(await page.getByTestId('subscribe-monthly').textContent()).toBe('Start 7-day free trial, then $9.99/month');
    expect(await page.getByTestId('subscribe-bundle3').textContent()).toBe('3 months $26.97 (save 10%)');
    // Phone first: the buttons fit the 390 px screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await saveScreen(page, 'performer-offers', { fullPage: true });

    await page.getByTestId('subscribe-monthly').click();
    await page.waitForURL('**/payments/sandbox/**');
    expect(await page.getByTestId('sandbox-amount').textContent()).toBe('$0.00');
    await waitForIsland(page, 'SandboxPay');
    await page.getByTestId('sandbox-approve').click();
    await page.waitForURL('**/payments/result/**');
    await expect.poll(() => page.getByTestId('payment-result').getAttribute('data-status')).toBe('success');

    const sub = await t.ctx.db.selectFrom('subscriptions').selectAll().where('userId', '=', fan.id).where('performerId', '=', perf.id).executeTakeFirstOrThrow();
    expect(sub).toMatchObject({ status: 'active', autoRenew: 1, renewalAmount: 999, periodDays: 30 });
    expect(Math.round((Date.parse(sub.expiresAt!) - Date.parse(sub.startedAt!)) / 86_400_000)).toBe(7);

    await page.goto(`${t.url}/account/subscriptions`);
    await waitForIsland(page, 'SubscriptionsList');
    expect(await page.getByTestId('subscription-row').getAttribute('data-live')).toBe('true');
    // The trial was this fan's: the performer's page now says they are subscribed.
    await page.goto(`${t.url}/performers/${perf.username}`);
    await waitForPerformerControls(page);
    expect(await page.getByTestId('subscribe-active').count()).toBe(1);
  }, 90_000);
});
