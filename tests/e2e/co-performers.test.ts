import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { failedRequest, hasChromium, saveScreen, useBrowser, waitForIsland } from '../helpers/browser.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { makeVideo } from '../../server/seed/factories.js';

/**
 * Co-performers in chromium (docs/product.md, Co-performers and consent): performer A, on a phone, names performer B
 * in a published video from the video's editor ("People in this"); the video goes back to draft and publishing it is
 * refused while B has not confirmed. B, in another browser context with their requests page open, sees the request
 * arrive live and confirms; A then publishes, and a guest finds the video.
 */
describe.skipIf(!hasChromium)('co-performers in chromium', () => {
  let t: TestApp;
  let a: TestUser;
  let b: TestUser;
  let videoId: string;
  const chromium = useBrowser(() => t.url);
  const noSideScroll = (p: Page) => p.evaluate((width) => document.documentElement.scrollWidth <= width, p.viewportSize()!.width);
  const statusOf = async () => (await t.ctx.db.selectFrom('videos').select('status').where('id', '=', videoId).executeTakeFirstOrThrow()).status;

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true });
    a = await createUser(t.ctx.db, 'performer', { name: 'Ana Uploader' });
    b = await createUser(t.ctx.db, 'performer', { name: 'Bea Partner' });
    videoId = (await makeVideo(t.ctx, a.id, { title: 'Our duet', access: 'free', status: 'active' })).id;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('A names B; publishing is refused until B confirms in their studio; then A publishes', async () => {
    const pageA = await chromium.page({ as: a, phone: true });
    const pageB = await chromium.page({ as: b, viewport: { width: 1280, height: 900 } });
    await pageB.goto(`${t.url}/studio/co-performers`);
    await waitForIsland(pageB, 'CoPerformerRequests');
    expect(await pageB.getByTestId('co-requests-empty').count()).toBe(1);
    await expect.poll(() => pageB.getByTestId('realtime-status').getAttribute('data-status'), { timeout: 15_000 }).toBe('connected');

    // A opens the video's editor and names B in "People in this".
    await pageA.goto(`${t.url}/studio/videos`);
    await waitForIsland(pageA, 'StudioVideos');
    const row = pageA.locator(`[data-testid="studio-video"][data-id="${videoId}"]`);
    await row.getByTestId('video-edit').click();
    const people = pageA.getByTestId('co-performers');
    await expect.poll(() => people.getByTestId('co-performers-none').count()).toBe(1);
    await people.getByTestId('co-performer-username').fill(`@${b.username}`);
    await people.getByTestId('co-performer-add').click();
    await expect.poll(() => people.getByTestId('co-performer').count()).toBe(1);
    expect(await people.getByTestId('co-performer-status').textContent()).toBe('Waiting for them');
    expect(await people.getByTestId('co-performers-blocked').isVisible()).toBe(true);
    expect(await noSideScroll(pageA)).toBe(true);
    await saveScreen(pageA, 'co-performers-named-phone', { fullPage: true });
    expect(await statusOf()).toBe('draft');

    // Publishing is refused, with the reason in the editor.
    chromium.expectErrors(failedRequest(409, `/api/performer/assets/videos/${videoId}`));
    await pageA.reload();
    await waitForIsland(pageA, 'StudioVideos');
    await row.getByTestId('video-edit').click();
    const editor = pageA.getByTestId('item-editor');
    expect(await editor.getByTestId('edit-status').inputValue()).toBe('draft');
    await editor.getByTestId('edit-status').selectOption('active');
    await editor.getByTestId('edit-save').click();
    await expect.poll(() => editor.locator('.form__error').textContent()).toContain('must confirm');
    expect(await statusOf()).toBe('draft');

    // B's request arrived live; B confirms.
    const request = pageB.getByTestId('co-request');
    await expect.poll(() => request.count(), { timeout: 15_000 }).toBe(1);
    expect(await request.textContent()).toContain('Our duet');
    await saveScreen(pageB, 'co-performer-request');
    await request.getByTestId('co-request-confirm').click();
    await expect.poll(() => request.getByTestId('co-request-status').textContent()).toBe('Confirmed');

    // A publishes: the same save now goes through.
    await editor.getByTestId('edit-save').click();
    await expect.poll(() => editor.count()).toBe(0);
    expect(await statusOf()).toBe('active');
    expect((await fetch(`${t.url}/videos/${videoId}`)).status).toBe(200);
    await pageA.context().close();
    await pageB.context().close();
  }, 120_000);
});
