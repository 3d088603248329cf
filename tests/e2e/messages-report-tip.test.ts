import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { axeProblems, hasChromium, saveScreen, useBrowser, waitForIsland } from '../helpers/browser.js';
import { createUser, type TestUser } from '../helpers/sessions.js';

/**
 * Messages tied to tips, reports and notifications, in chromium (docs/product.md, Messages and Reports): a fan on a
 * phone opens a thread (the bell's message notification is read with it), tips the performer from the thread's header
 * through the sandbox page and comes back to the conversation; the performer is told live and their notification
 * leads to the conversation. The fan reports a message from its "⋯" menu; the admin reads it in its context in the
 * console and removes it; it leaves the fan's open thread, and the fan is told the outcome.
 */
describe.skipIf(!hasChromium)('tips and reports in messages, in chromium', () => {
  let t: TestApp;
  let performer: TestUser;
  let fan: TestUser;
  let admin: TestUser;
  let conversationId: string;
  const chromium = useBrowser(() => t.url);
  const noSideScroll = (p: Page) => p.evaluate((width) => document.documentElement.scrollWidth <= width, p.viewportSize()!.width);
  const connected = (p: Page) => expect.poll(() => p.getByTestId('realtime-status').getAttribute('data-status'), { timeout: 15_000 }).toBe('connected');
  const say = async (who: TestUser, text: string) => {
    const res = await t.api(`/messages/conversations/${conversationId}/messages`, { method: 'POST', headers: who.headers, json: { text } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body._id as string;
  };

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true });
    performer = await createUser(t.ctx.db, 'performer', { name: 'Tipped Tara', performer: { messagePolicy: 'fans' } });
    fan = await createUser(t.ctx.db, 'user', { name: 'Generous Gus' });
    admin = await createUser(t.ctx.db, 'admin', { name: 'Careful Admin' });
    const opened = await t.api('/messages/conversations', { method: 'POST', headers: fan.headers, json: { userId: performer.id } });
    expect(opened.status).toBe(200);
    conversationId = opened.body._id;
    await say(fan, 'Loved your last set!');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('opening the thread reads its notification; the fan tips from the thread through the sandbox; the performer is told and led to the conversation', async () => {
    await say(performer, 'Thank you so much');
    const perfPage = await chromium.page({ as: performer, viewport: { width: 1280, height: 900 } });
    await perfPage.goto(`${t.url}/studio`);
    await connected(perfPage);
    // Every toast the performer's page shows, kept (a toast leaves after a few seconds).
    await perfPage.evaluate(() => {
      const seen: string[] = ((window as unknown as { seenToasts: string[] }).seenToasts = []);
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('[data-testid="toast"] .toast__message')) if (!seen.includes(el.textContent ?? '')) seen.push(el.textContent ?? '');
      }).observe(document.body, { childList: true, subtree: true });
    });

    const page = await chromium.page({ as: fan, phone: true, viewport: { width: 390, height: 844 } });
    await page.goto(`${t.url}/notifications`);
    await waitForIsland(page, 'NotificationBell');
    expect(await page.getByTestId('notification-bell').getAttribute('data-count')).toBe('1');
    // Opening the conversation reads the message and its notification: the bell and the messages badge both clear.
    await page.goto(`${t.url}/messages/${conversationId}`);
    await waitForIsland(page, 'Inbox');
    await connected(page);
    await expect.poll(() => page.getByTestId('notification-bell').getAttribute('data-count')).toBe('0');
    expect(await page.getByTestId('messages-badge').count()).toBe(0);
    expect(await t.ctx.db.selectFrom('notifications').select('id').where('userId', '=', fan.id).where('readAt', 'is', null).execute()).toEqual([]);

    // The Tip in the thread's header: the ordinary tip dialog, given in this conversation.
    const thread = page.getByTestId('thread');
    await thread.getByTestId('tip-button').click();
    const dialog = page.getByTestId('tip-dialog');
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.getByRole('heading').textContent()).toBe('Tip Tipped Tara');
    await dialog.getByTestId('tip-preset').first().click();
    await dialog.getByLabel('Note (optional)').fill('For the chat');
    expect(await noSideScroll(page)).toBe(true);
    await saveScreen(page, 'messages-tip-dialog-phone');
    await dialog.getByTestId('tip-send').click();
    await page.waitForURL('**/payments/sandbox/**');
    expect(await page.getByTestId('sandbox-amount').textContent()).toBe('$5.00');
    await waitForIsland(page, 'SandboxPay');
    await page.getByTestId('sandbox-approve').click();
    await page.waitForURL('**/payments/result/**');
    await expect.poll(() => page.getByTestId('payment-result').getAttribute('data-status')).toBe('success');
    // Back to the conversation.
    expect(await page.getByTestId('payment-next').getAttribute('href')).toBe(`/messages/${conversationId}`);

    const tip = await t.ctx.db.selectFrom('tips').select(['userId', 'performerId', 'amount', 'contextType', 'contextId', 'note']).executeTakeFirstOrThrow();
    expect(tip).toEqual({ userId: fan.id, performerId: performer.id, amount: 500, contextType: 'conversation', contextId: conversationId, note: 'For the chat' });

    // The performer: told live, and the notification leads to the conversation.
    await expect.poll(() => perfPage.evaluate(() => (window as unknown as { seenToasts: string[] }).seenToasts), { timeout: 10_000 }).toContain('Generous Gus tipped you $5.00!');
    await perfPage.goto(`${t.url}/notifications`);
    const note = perfPage.locator('[data-testid="notification-item"][data-type="tip"]');
    expect(await note.textContent()).toContain('Generous Gus tipped you $5.00 in messages');
    await waitForIsland(perfPage, 'NotificationList');
    await note.getByRole('link').first().click();
    await perfPage.waitForURL(`**/messages/${conversationId}`);
    expect(await perfPage.getByTestId('thread').textContent()).toContain('Loved your last set!');
    // And the earnings say where it came from.
    await perfPage.goto(`${t.url}/studio/earnings`);
    const earned = perfPage.getByTestId('earning-tip').first();
    expect(await earned.textContent()).toContain('in messages');
    expect(await earned.getByRole('link', { name: 'messages' }).getAttribute('href')).toBe(`/messages/${conversationId}`);
  }, 120_000);

  it('the fan reports a message from its menu; the admin removes it in the console; it leaves the thread and the fan is told', async () => {
    const nasty = await say(performer, 'Send me your password or else');
    const page = await chromium.page({ as: fan, phone: true, viewport: { width: 390, height: 844 } });
    await page.goto(`${t.url}/messages/${conversationId}`);
    await waitForIsland(page, 'Inbox');
    await connected(page);
    const bubble = page.locator(`[data-testid="message"][data-message-id="${nasty}"]`);
    // Only received messages have the menu.
    const own = page.locator('[data-testid="message"]').filter({ hasText: 'Loved your last set!' });
    expect(await own.getByTestId('message-menu').count()).toBe(0);
    await bubble.getByTestId('message-menu').locator('summary').click();
    await saveScreen(page, 'messages-thread-menu-phone');
    await bubble.getByTestId('message-report').click();
    const dialog = page.getByRole('dialog', { name: 'Report this message' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await dialog.getByLabel('Spam or scam').check();
    await dialog.getByLabel('Anything to add? (optional)').fill('Asks for my password');
    const box = await dialog.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    await saveScreen(page, 'messages-report-dialog-phone');
    await dialog.getByTestId('report-submit').click();
    await expect.poll(() => dialog.getByTestId('report-done').textContent()).toContain('Thank you');
    await dialog.getByRole('button', { name: 'Close' }).click();
    expect(await t.ctx.db.selectFrom('reports').select(['reporterId', 'targetType', 'reason', 'details']).where('targetId', '=', nasty).execute()).toEqual([
      { reporterId: fan.id, targetType: 'message', reason: 'spam', details: 'Asks for my password' },
    ]);

    // The admin judges it in its context and removes it.
    const console = await chromium.page({ as: admin, viewport: { width: 1280, height: 900 } });
    await console.goto(`${t.url}/admin/reports`);
    const row = console.locator(`[data-testid="report-row"][data-target-id="${nasty}"]`);
    expect(await row.getByTestId('report-target').textContent()).toBe('Send me your password or else');
    expect(await row.getByTestId('report-target').getAttribute('href')).toBe(`/messages/${conversationId}`);
    expect(await row.getByTestId('report-thread-reported').textContent()).toContain('Send me your password or else');
    expect(await row.getByTestId('report-thread').textContent()).toContain('Loved your last set!');
    await saveScreen(console, 'admin-reports-message', { fullPage: true });
    console.once('dialog', (d) => void d.accept());
    await waitForIsland(console, 'AdminAction');
    const reloaded = console.waitForEvent('load', { timeout: 20_000 });
    await row.getByTestId('report-remove').click();
    await reloaded;
    expect(await console.locator(`[data-testid="report-row"][data-target-id="${nasty}"]`).count()).toBe(0);

    // Gone from the fan's open thread without a reload, and after one.
    await expect.poll(() => bubble.count(), { timeout: 10_000 }).toBe(0);
    await page.reload();
    await waitForIsland(page, 'Inbox');
    expect(await page.getByTestId('thread').textContent()).not.toContain('Send me your password');
    expect(await page.getByTestId('thread').textContent()).toContain('Thank you so much');

    // The fan is told the outcome, with a link back to the conversation.
    await page.goto(`${t.url}/notifications`);
    const told = page.locator('[data-testid="notification-item"][data-type="report"]');
    expect(await told.textContent()).toContain('Your report was reviewed: the content was removed');
    expect(await told.getByRole('link').first().getAttribute('href')).toBe(`/messages/${conversationId}`);
  }, 120_000);

  it('the thread with its Tip and a received message\'s open menu passes the accessibility audit on a phone', async () => {
    await say(performer, 'One more for the audit');
    // The site's CSP refuses inline scripts, axe's included: only this test's browser bypasses it.
    const page = await chromium.page({ as: fan, viewport: { width: 390, height: 844 }, bypassCSP: true });
    await page.goto(`${t.url}/messages/${conversationId}`);
    await waitForIsland(page, 'Inbox');
    const menu = page.getByTestId('message-menu').last();
    await menu.locator('summary').click();
    await expect.poll(() => menu.getByTestId('message-report').isVisible()).toBe(true);
    expect(await page.getByTestId('thread').getByTestId('tip-button').isVisible()).toBe(true);
    expect((await axeProblems(page)).map((v) => `${v.rule}: ${v.help} at ${v.targets.join(' | ')}`)).toEqual([]);
  }, 60_000);
});
