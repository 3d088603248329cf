import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { axeProblems, hasChromium, saveScreen, useBrowser, waitForIsland, waitForVideoControls, waitForPerformerControls } from '../helpers/browser.js';
import { buildMoneyWorld, type MoneyWorld } from '../helpers/money-fixture.js';
import { createUser } from '../helpers/sessions.js';
import { makePost } from '../../server/seed/factories.js';

/**
 * Tips in chromium (server/payments/README.md, "Tips"): a guest's Tip is a link to log in and come back; a fan on a
 * phone tips a performer on their page (a preset or a custom amount, a note) through the sandbox payment page; the
 * performer's open page shows the live notice, and their earnings list the tip with its note.
 */
describe.skipIf(!hasChromium)('tips in chromium', () => {
  let t: TestApp;
  let w: MoneyWorld;
  const chromium = useBrowser(() => t.url);
  const noSideScroll = (p: Page) => p.evaluate((width) => document.documentElement.scrollWidth <= width, p.viewportSize()!.width);

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true });
    w = await buildMoneyWorld(t.ctx);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('a guest is sent to log in and back; the performer has no Tip on their own page', async () => {
    const guest = await chromium.page({ as: null });
    await guest.goto(`${t.url}/performers/${w.perf.username}`);
    expect(await guest.getByTestId('tip-login').getAttribute('href')).toBe(`/auth/login?next=${encodeURIComponent(`/performers/${w.perf.username}`)}`);
    const own = await chromium.page({ as: w.perf });
    await own.goto(`${t.url}/performers/${w.perf.username}`);
    await waitForPerformerControls(own);
    expect(await own.getByTestId('performer-name').count()).toBe(1);
    expect(await own.getByTestId('tip').count() + (await own.getByTestId('tip-login').count())).toBe(0);
  });

  it('the open dialog passes the accessibility audit on a phone, and Escape closes it', async () => {
    const fan = await createUser(t.ctx.db, 'user');
    // The site's CSP refuses inline scripts, axe's included: only this test's browser bypasses it.
    const page = await chromium.page({ as: fan, viewport: { width: 390, height: 844 }, bypassCSP: true });
    await page.goto(`${t.url}/videos/${w.videos.freeVideo.id}`);
    await waitForVideoControls(page);
    await page.getByTestId('tip-button').scrollIntoViewIfNeeded();
    await page.getByTestId('tip-button').click();
    await expect.poll(() => page.getByTestId('tip-dialog').isVisible()).toBe(true);
    expect((await axeProblems(page)).map((v) => `${v.rule}: ${v.help} at ${v.targets.join(' | ')}`)).toEqual([]);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('tip-dialog').isVisible()).toBe(false);
  });

  it('the admin sets the tip limits in the console in money, and the dialog offers what fits them', async () => {
    const admin = await chromium.page({ as: w.admin, viewport: { width: 1280, height: 900 } });
    await admin.goto(`${t.url}/admin/settings`);
    await admin.waitForFunction(() => {
      const el = document.querySelector('[data-testid="payment-form"]')?.closest('astro-island');
      return !!el && !el.hasAttribute('ssr');
    });
    const form = admin.getByTestId('payment-form');
    await form.getByLabel('Smallest tip a fan may give').fill('8');
    await form.getByLabel('Largest tip a fan may give').fill('30');
    await Promise.all([admin.waitForEvent('load'), admin.getByTestId('payment-form-submit').click()]);
    expect(await t.ctx.settings.get('tipMinimum')).toBe(800);
    expect(await t.ctx.settings.get('tipMaximum')).toBe(3000);
    try {
      const fan = await createUser(t.ctx.db, 'user');
      const page = await chromium.page({ as: fan, viewport: { width: 390, height: 844 } });
      const post = await makePost(t.ctx, { title: 'Tip on a post', performerId: w.perf.id, authorId: w.perf.id });
      await page.goto(`${t.url}/posts/${post.id}`);
      await page.getByTestId('tip-button').scrollIntoViewIfNeeded();
      await waitForIsland(page, 'TipButton');
      await page.getByTestId('tip-button').click();
      const dialog = page.getByTestId('tip-dialog');
      expect(await dialog.getByTestId('tip-preset').allTextContents()).toEqual(['$10.00', '$20.00']);
      expect(await dialog.textContent()).toContain('From $8.00 to $30.00');
    } finally {
      await t.ctx.settings.set('tipMinimum', 100);
      await t.ctx.settings.set('tipMaximum', 50_000);
    }
  });

  it('a fan tips on a phone through the sandbox page; the performer is told live and sees it in their earnings', async () => {
    const fan = await createUser(t.ctx.db, 'user', { name: 'Phone Fan' });
    // The performer has their earnings page open, connected.
    const studio = await chromium.page({ as: w.perf, viewport: { width: 1280, height: 900 } });
    await studio.goto(`${t.url}/studio/earnings`);
    await expect.poll(() => studio.getByTestId('realtime-status').getAttribute('data-status'), { timeout: 15_000 }).toBe('connected');
    // Every toast the page shows, kept (a toast leaves after a few seconds).
    await studio.evaluate(() => {
      const seen: string[] = ((window as unknown as { seenToasts: string[] }).seenToasts = []);
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('[data-testid="toast"] .toast__message')) if (!seen.includes(el.textContent ?? '')) seen.push(el.textContent ?? '');
      }).observe(document.body, { childList: true, subtree: true });
    });

    const page = await chromium.page({ as: fan, viewport: { width: 390, height: 844 } });
    await page.goto(`${t.url}/performers/${w.perf.username}`);
    await waitForPerformerControls(page);
    await page.getByTestId('tip-button').click();
    const dialog = page.getByTestId('tip-dialog');
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.getByRole('heading').textContent()).toBe('Tip Mona Money');
    expect(await dialog.getByTestId('tip-preset').allTextContents()).toEqual(['$5.00', '$10.00', '$20.00', '$50.00']);
    expect(await noSideScroll(page)).toBe(true);

    // Over the limit: said at once, nothing sent.
    await dialog.getByLabel('Custom amount').fill('600');
    await dialog.getByTestId('tip-send').click();
    expect(await dialog.getByRole('alert').textContent()).toContain('The largest tip is $500.00');
    await dialog.getByLabel('Custom amount').fill('7.50');
    await dialog.getByLabel('Note (optional)').fill('For the sunset video');
    expect(await dialog.getByTestId('tip-send').textContent()).toBe('Send tip · $7.50');
    await saveScreen(page, 'tip-dialog-phone');
    await dialog.getByTestId('tip-send').click();

    await page.waitForURL('**/payments/sandbox/**');
    expect(await page.getByTestId('sandbox-amount').textContent()).toBe('$7.50');
    await waitForIsland(page, 'SandboxPay');
    await page.getByTestId('sandbox-approve').click();
    await page.waitForURL('**/payments/result/**');
    await expect.poll(() => page.getByTestId('payment-result').getAttribute('data-status')).toBe('success');

    // The performer's open page: a toast, without a reload.
    await expect.poll(() => studio.evaluate(() => (window as unknown as { seenToasts: string[] }).seenToasts), { timeout: 10_000 }).toContain('Phone Fan tipped you $7.50!');
    await studio.reload();
    const row = studio.getByTestId('earning-row').filter({ has: studio.getByTestId('earning-tip') }).first();
    expect(await row.getByTestId('earning-tip-note').textContent()).toBe('For the sunset video');
    expect(await row.textContent()).toContain('Phone Fan');
    expect(await row.textContent()).toContain('$7.50');

    // The fan's transactions name it.
    await page.goto(`${t.url}/account/transactions`);
    expect(await page.locator('body').textContent()).toContain('Tip to Mona Money');
    expect(await noSideScroll(page)).toBe(true);
  }, 90_000);
});
