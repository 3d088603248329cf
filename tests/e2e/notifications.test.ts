import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { hasChromium, saveScreen, useBrowser, waitForIsland } from '../helpers/browser.js';
import { createUser } from '../helpers/sessions.js';
import { MailCatcher } from '../helpers/mail-catcher.js';
import { buildMoneyWorld, subscribeWithSandbox, type MoneyWorld } from '../helpers/money-fixture.js';

/**
 * Notifications in chromium on a phone (docs/product.md, Notifications): a performer's bell gets its badge live when a
 * fan subscribes, the list shows it, clicking it marks it read and follows its link, and the badge is gone; a new
 * one arrives on top of the open list; "Mark all read"; the unsubscribe link of a real mail (read from the SMTP
 * catcher) works in the browser without logging in.
 */
describe.skipIf(!hasChromium)('notifications in chromium', () => {
  let t: TestApp;
  let w: MoneyWorld;
  const catcher = new MailCatcher();
  const chromium = useBrowser(() => t.url);
  const noSideScroll = (p: Page) => p.evaluate((width) => document.documentElement.scrollWidth <= width, p.viewportSize()!.width);
  const badge = (page: Page) => page.getByTestId('notification-bell').getAttribute('data-count');

  beforeAll(async () => {
    await catcher.start();
    t = await startTestApp('sqlite', { web: true, env: { SMTP_URL: catcher.smtpUrl, JOBS_POLL_MS: '100' } });
    w = await buildMoneyWorld(t.ctx);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await catcher.stop();
  });

  it('the performer’s bell counts a new subscriber live; the list shows it; clicking it clears the badge and follows the link', async () => {
    const page = await chromium.page({ as: w.perf, phone: true, viewport: { width: 390, height: 844 } });
    await page.goto(`${t.url}/studio`);
    await waitForIsland(page, 'NotificationBell');
    await expect.poll(() => page.getByTestId('realtime-status').getAttribute('data-status'), { timeout: 15_000 }).toBe('connected');
    expect(await badge(page)).toBe('0');
    expect(await page.getByTestId('notification-badge').count()).toBe(0);

    const fan = await createUser(t.ctx.db, 'user', { name: 'Nora Newfan' });
    await subscribeWithSandbox(t, fan, { performerId: w.perf.id, type: 'monthly' });
    await expect.poll(() => badge(page), { timeout: 15_000 }).toBe('1');
    expect(await page.getByTestId('notification-badge').textContent()).toBe('1');
    expect(await page.getByTestId('notification-bell').getAttribute('aria-label')).toBe('Notifications, 1 unread');
    expect(await noSideScroll(page)).toBe(true);

    await page.getByTestId('notification-bell').click();
    await page.waitForURL(`${t.url}/notifications`);
    await waitForIsland(page, 'NotificationList');
    const item = page.getByTestId('notification-item').first();
    expect(await item.textContent()).toContain('Nora Newfan subscribed to you');
    expect(await item.getAttribute('data-read')).toBe('false');
    expect(await noSideScroll(page)).toBe(true);
    await saveScreen(page, 'notifications-phone', { fullPage: true });

    await item.locator('a').click();
    await page.waitForURL(`${t.url}/studio`);
    await waitForIsland(page, 'NotificationBell');
    expect(await badge(page)).toBe('0');
    expect(await page.getByTestId('notification-badge').count()).toBe(0);
    await page.goto(`${t.url}/notifications`);
    expect(await page.getByTestId('notification-item').first().getAttribute('data-read')).toBe('true');
  }, 90_000);

  it('a new notification arrives on top of the open list; Mark all read clears them', async () => {
    const page = await chromium.page({ as: w.perf, phone: true, viewport: { width: 390, height: 844 } });
    await page.goto(`${t.url}/notifications`);
    await waitForIsland(page, 'NotificationList');
    await expect.poll(() => page.getByTestId('realtime-status').getAttribute('data-status'), { timeout: 15_000 }).toBe('connected');
    const before = await page.getByTestId('notification-item').count();
    const fan = await createUser(t.ctx.db, 'user', { name: 'Omar Comment' });
    const res = await t.api('/comments', { method: 'POST', headers: fan.headers, json: { objectType: 'video', objectId: w.videos.freeVideo.id, content: 'Great clip' } });
    expect(res.status).toBe(201);
    await expect.poll(() => page.getByTestId('notification-item').count(), { timeout: 15_000 }).toBe(before + 1);
    const first = page.getByTestId('notification-item').first();
    expect(await first.textContent()).toContain('Omar Comment commented on “Free clip”');
    expect(await first.locator('a').getAttribute('href')).toBe(`/videos/${w.videos.freeVideo.id}`);
    await expect.poll(() => badge(page), { timeout: 15_000 }).toBe('1');

    await page.getByTestId('notification-read-all').click();
    await expect.poll(() => page.locator('[data-testid="notification-item"][data-read="false"]').count()).toBe(0);
    await expect.poll(() => badge(page), { timeout: 15_000 }).toBe('0');
    expect(await page.getByTestId('notification-unread').textContent()).toBe('All caught up');
  }, 90_000);

  it('the unsubscribe link of a real mail turns that mail off in the browser without logging in; a tampered link is refused', async () => {
    const since = catcher.mark();
    const fan = await createUser(t.ctx.db, 'user', { name: 'Pia Mail' });
    const res = await t.api('/comments', { method: 'POST', headers: fan.headers, json: { objectType: 'video', objectId: w.videos.freeVideo.id, content: 'Mail me' } });
    expect(res.status).toBe(201);
    const mail = await catcher.waitFor(w.perf.email, /Pia Mail commented/, since, 15_000);
    const link = (mail.text.match(/https?:\/\/\S+\/notifications\/unsubscribe\?token=\S+/) ?? [])[0]!;
    expect(new URL(link).origin).toBe(t.url);

    const page = await chromium.page({ as: null, phone: true, viewport: { width: 390, height: 844 } });
    const tampered = link.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    // The refusal is the page's 400, which the browser reports.
    chromium.expectErrors(/status of 400/);
    const bad = await page.goto(tampered);
    expect(bad!.status()).toBe(400);
    expect(await page.getByTestId('unsubscribe-invalid').isVisible()).toBe(true);

    await page.goto(link);
    expect(await page.getByTestId('unsubscribe-question').textContent()).toContain('Comments on your content');
    await waitForIsland(page, 'UnsubscribeButton');
    await page.getByTestId('unsubscribe-confirm').click();
    await expect.poll(() => page.getByTestId('unsubscribe-done').count()).toBe(1);
    expect(await noSideScroll(page)).toBe(true);
    const prefs = await t.api('/notifications/preferences', { headers: w.perf.headers });
    expect(prefs.body.preferences.find((p: { type: string }) => p.type === 'comment').email).toBe(false);
    await page.goto(link);
    expect(await page.getByTestId('unsubscribe-already').isVisible()).toBe(true);

    // Signed in, the performer sees the choice off on the account page and turns it on again.
    const own = await chromium.page({ as: w.perf, phone: true, viewport: { width: 390, height: 844 } });
    await own.goto(`${t.url}/account/notifications`);
    await waitForIsland(own, 'EmailPreferencesForm');
    const box = own.getByTestId('email-pref-comment');
    expect(await box.isChecked()).toBe(false);
    expect(await own.getByTestId('email-pref-payout').isDisabled()).toBe(true);
    await box.click();
    await expect.poll(() => box.isChecked()).toBe(true);
    await expect.poll(() => own.getByTestId('email-preferences-status').textContent()).toBe('Saved');
    expect((await t.api('/notifications/preferences', { headers: w.perf.headers })).body.preferences.find((p: { type: string }) => p.type === 'comment').email).toBe(true);
    expect(await noSideScroll(own)).toBe(true);
  }, 90_000);
});
