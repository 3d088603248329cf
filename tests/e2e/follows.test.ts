import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { hasChromium, saveScreen, useBrowser, waitForFeed, waitForIsland, waitForPerformerControls } from '../helpers/browser.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { makeVideo } from '../../server/seed/factories.js';
import { postForm } from '../helpers/uploads.js';

/**
 * Follows and the feed in chromium (docs/product.md, Follows and the feed): a guest's Follow button leads to the login
 * and back; a fan follows a performer on their page; the performer publishes a post and it appears on the fan's /home
 * without a reload; the next one arrives as a "1 new post" pill; locked items show the way to unlock them; on a phone
 * nothing scrolls sideways.
 */
describe.skipIf(!hasChromium)('follows and the feed in chromium', () => {
  let t: TestApp;
  let performer: TestUser;
  let fan: TestUser;
  const chromium = useBrowser(() => t.url);
  const noSideScroll = (p: Page) => p.evaluate((width) => document.documentElement.scrollWidth <= width, p.viewportSize()!.width);
  const publish = async (title: string, visibility = 'free') => {
    const res = await postForm(t, '/performer/assets/posts', { fields: { title, content: `${title}: the whole story.`, visibility } }, { headers: performer.headers });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body._id as string;
  };

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true, env: { JOBS_POLL_MS: '100' } });
    performer = await createUser(t.ctx.db, 'performer', { name: 'Luna Live' });
    fan = await createUser(t.ctx.db, 'user', { name: 'Feed Fan' });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('a guest is sent to log in and back to the performer', async () => {
    const page = await chromium.page({ as: null });
    await page.goto(`${t.url}/performers/${performer.username}`);
    expect(await page.getByTestId('follower-count').textContent()).toBe('0 followers');
    const href = await page.getByTestId('follow-login').getAttribute('href');
    expect(href).toBe(`/auth/login?next=${encodeURIComponent(`/performers/${performer.username}`)}`);
  });

  it('a fan follows a performer, and the performer\'s next posts reach the fan\'s /home live', async () => {
    const page = await chromium.page({ as: fan, viewport: { width: 1280, height: 900 } });
    await page.goto(`${t.url}/performers/${performer.username}`);
    await page.getByTestId('follow-button').scrollIntoViewIfNeeded();
    await waitForPerformerControls(page);
    await page.getByTestId('follow-button').click();
    await expect.poll(() => page.getByTestId('follow-button').textContent()).toBe('Following');
    expect(await page.getByTestId('follower-count').textContent()).toBe('1 follower');
    expect(await page.getByTestId('follow-button').getAttribute('aria-pressed')).toBe('true');

    await page.goto(`${t.url}/home`);
    await waitForFeed(page);
    await expect.poll(() => page.getByTestId('realtime-status').getAttribute('data-status'), { timeout: 15_000 }).toBe('connected');
    expect(await page.getByTestId('feed-empty').isVisible()).toBe(true);

    // The first post fills the empty feed at once, without a reload.
    const first = await publish('First light');
    await expect.poll(() => page.locator(`[data-testid="feed-item"][data-id="${first}"]`).count(), { timeout: 15_000 }).toBe(1);
    expect(await page.getByTestId('feed-empty').count()).toBe(0);
    // The next, for subscribers, waits behind a pill on top, then shows locked with the way to unlock it.
    const second = await publish('Second light', 'subscribers');
    await expect.poll(() => page.getByTestId('feed-new').textContent(), { timeout: 15_000 }).toBe('1 new post');
    await page.getByTestId('feed-new').click();
    const items = page.getByTestId('feed-item');
    await expect.poll(() => items.first().getAttribute('data-id')).toBe(second);
    expect(await items.first().getByTestId('feed-unlock').textContent()).toContain('Subscribe to unlock');
    expect(await items.first().getByTestId('feed-unlock').locator('a').getAttribute('href')).toBe(`/performers/${performer.username}`);
    expect(await items.nth(1).getByTestId('feed-unlock').count()).toBe(0);
    await saveScreen(page, 'feed-home', { fullPage: true });

    // The account lists whom the fan follows.
    await page.goto(`${t.url}/account/following`);
    expect(await page.getByTestId('following-item').getAttribute('data-performer-id')).toBe(performer.id);
  }, 90_000);

  it('pages the feed with Load more and fits a phone', async () => {
    for (let i = 0; i < 13; i++) await makeVideo(t.ctx, performer.id, { title: `Older clip ${i}`, access: i % 2 ? 'sale' : 'free', publishedAt: new Date(Date.now() - (i + 60) * 60_000).toISOString() });
    const page = await chromium.page({ as: fan, phone: true, viewport: { width: 390, height: 844 } });
    await page.goto(`${t.url}/home`);
    await waitForFeed(page);
    expect(await page.getByTestId('feed-item').count()).toBe(12);
    await page.getByTestId('feed-more').click();
    await expect.poll(() => page.getByTestId('feed-item').count()).toBe(15);
    expect(await page.getByTestId('feed-more').count()).toBe(0);
    expect(await noSideScroll(page)).toBe(true);
    await saveScreen(page, 'feed-home-phone', { fullPage: true });
  }, 60_000);
});
