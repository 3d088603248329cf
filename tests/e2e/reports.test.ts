import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { failedRequest, hasChromium, saveScreen, useBrowser, waitForIsland, waitForVideoControls } from '../helpers/browser.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { makeVideo } from '../../server/seed/factories.js';

/**
 * Reports in chromium (docs/product.md, Reports): a guest's Report link leads to the login; a fan reports a video on a
 * phone in the dialog, and a comment from its menu; the admin sees them in the console's queue and removes the video
 * with "Remove"; the video is gone from the public site and the fan has a `report` notification saying so.
 */
describe.skipIf(!hasChromium)('reports in chromium', () => {
  let t: TestApp;
  let performer: TestUser;
  let fan: TestUser;
  let admin: TestUser;
  let videoId: string;
  const chromium = useBrowser(() => t.url);
  const noSideScroll = (p: Page) => p.evaluate((width) => document.documentElement.scrollWidth <= width, p.viewportSize()!.width);

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true });
    performer = await createUser(t.ctx.db, 'performer', { name: 'Reported Star' });
    fan = await createUser(t.ctx.db, 'user', { name: 'Watchful Fan' });
    admin = await createUser(t.ctx.db, 'admin', { name: 'Moderating Admin' });
    videoId = (await makeVideo(t.ctx, performer.id, { title: 'A clip to report', access: 'free' })).id;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('a guest is sent to log in and back to the video', async () => {
    const page = await chromium.page({ as: null, phone: true });
    await page.goto(`${t.url}/videos/${videoId}`);
    expect(await page.getByTestId('report-login').getAttribute('href')).toBe(`/auth/login?next=${encodeURIComponent(`/videos/${videoId}`)}`);
  });

  it('a fan reports a video on a phone, and its comment from the comment menu', async () => {
    const commenter = await createUser(t.ctx.db, 'user', { name: 'Loud Commenter' });
    const comment = await t.api('/comments', { method: 'POST', headers: commenter.headers, json: { objectType: 'video', objectId: videoId, content: 'Something nasty' } });
    expect(comment.status).toBe(201);

    const page = await chromium.page({ as: fan, phone: true });
    await page.goto(`${t.url}/videos/${videoId}`);
    await waitForVideoControls(page);
    await page.getByTestId('report-button').scrollIntoViewIfNeeded();
    await page.getByTestId('report-button').click();
    const dialog = page.getByRole('dialog', { name: 'Report this video' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    // Sending without a reason asks for one, and sends nothing.
    await dialog.getByTestId('report-submit').click();
    expect(await dialog.getByTestId('report-error').textContent()).toBe('Choose a reason');
    await dialog.getByLabel('Illegal content').check();
    await dialog.getByLabel('Anything to add? (optional)').fill('Filmed somewhere it should not have been');
    const box = await dialog.boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    expect(await noSideScroll(page)).toBe(true);
    await saveScreen(page, 'report-dialog-phone');
    await dialog.getByTestId('report-submit').click();
    await expect.poll(() => dialog.getByTestId('report-done').textContent()).toContain('Thank you');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    const rows = await t.ctx.db.selectFrom('reports').select(['reporterId', 'targetType', 'reason', 'details', 'status']).where('targetId', '=', videoId).execute();
    expect(rows).toEqual([{ reporterId: fan.id, targetType: 'video', reason: 'illegal', details: 'Filmed somewhere it should not have been', status: 'open' }]);

    // Again: the open report is still there, and the dialog says so (the server's 409).
    chromium.expectErrors(failedRequest(409, '/api/reports'));
    await page.getByTestId('report-button').click();
    await dialog.getByLabel('Spam or scam').check();
    await dialog.getByTestId('report-submit').click();
    await expect.poll(() => dialog.getByTestId('report-done').textContent()).toContain('already reported');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);

    // The comment, from its menu.
    const item = page.locator(`[data-comment-id="${comment.body._id}"]`);
    await item.scrollIntoViewIfNeeded();
    await waitForIsland(page, 'Comments');
    await item.getByTestId('comment-menu').locator('summary').click();
    await item.getByTestId('comment-report').click();
    const commentDialog = page.getByRole('dialog', { name: 'Report this comment' });
    await commentDialog.getByLabel('Harassment or hate').check();
    await commentDialog.getByTestId('report-submit').click();
    await expect.poll(() => commentDialog.getByTestId('report-done').textContent()).toContain('Thank you');
    expect(await t.ctx.db.selectFrom('reports').select('reason').where('targetId', '=', comment.body._id).execute()).toEqual([{ reason: 'harassment' }]);
  }, 60_000);

  it('the admin removes the reported video from the queue: gone from the site, the fan told', async () => {
    const page = await chromium.page({ as: admin, phone: true });
    await page.goto(`${t.url}/admin`);
    expect(await page.getByTestId('open-reports').locator('strong').textContent()).toBe('2');
    expect(await page.getByTestId('overdue-reports').locator('strong').textContent()).toBe('0');
    await page.goto(`${t.url}/admin/reports`);
    const row = page.locator(`[data-testid="report-row"][data-target-id="${videoId}"]`);
    expect(await row.getByTestId('report-target').textContent()).toBe('A clip to report');
    expect(await row.getByTestId('report-target').getAttribute('href')).toBe(`/videos/${videoId}`);
    expect(await row.getByTestId('report-count').textContent()).toBe('1 report');
    expect(await row.getByTestId('report-reason').textContent()).toBe('Illegal content');
    expect(await row.getByTestId('report-reporter').textContent()).toContain('@' + fan.username);
    expect(await row.getAttribute('data-overdue')).toBe('false');
    await saveScreen(page, 'admin-reports-phone', { fullPage: true });

    page.once('dialog', (d) => void d.accept());
    await waitForIsland(page, 'AdminAction');
    // The action reloads the page once it is done.
    const reloaded = page.waitForEvent('load', { timeout: 20_000 });
    await row.getByTestId('report-remove').click();
    await reloaded;
    expect(await page.locator(`[data-testid="report-row"][data-target-id="${videoId}"]`).count()).toBe(0);

    await page.goto(`${t.url}/admin/reports?status=resolved`);
    const done = page.locator(`[data-testid="report-row"][data-target-id="${videoId}"]`);
    expect(await done.getByTestId('report-outcome').textContent()).toBe('removed');

    // The video is gone from the public site.
    const guest = await chromium.page({ as: null });
    chromium.expectErrors(failedRequest(404, `/videos/${videoId}`));
    const res = await guest.goto(`${t.url}/videos/${videoId}`);
    expect(res!.status()).toBe(404);
    // And the fan was told.
    const notes = await t.ctx.db.selectFrom('notifications').select(['type', 'payload']).where('userId', '=', fan.id).execute();
    expect(notes.map((n) => ({ type: n.type, ...JSON.parse(n.payload) }))).toEqual([
      { type: 'report', reportId: expect.any(String), outcome: 'removed', targetType: 'video', actorName: null, url: `/videos/${videoId}` },
    ]);
  }, 60_000);
});
