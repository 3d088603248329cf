import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { axeProblems, hasChromium, saveScreen, useBrowser, waitForIsland } from '../helpers/browser.js';
import { buildMoneyWorld, type MoneyWorld } from '../helpers/money-fixture.js';
import { renderArt } from '../../server/media/images.js';
import type { TestUser } from '../helpers/sessions.js';

/**
 * Posts like fans expect, in chromium on a desktop (1366x900) and a phone (390x844): a performer
 * writes posts with pictures in the studio (one for subscribers, one pay-per-view); a guest finds them locked on the
 * performer's Posts tab (teaser, blurred previews, the prices on the buttons); a fan buys one and subscribes for the
 * other through the sandbox payment page, and both open with their pictures.
 */
describe.skipIf(!hasChromium)('performer posts in chromium', () => {
  let t: TestApp;
  let w: MoneyWorld;
  const chromium = useBrowser(() => t.url);
  let dir: string;
  let pictures: string[];
  const desktop = { width: 1366, height: 900 };
  const phone = { width: 390, height: 844 };

  // bypassCSP: only so that axe-core may be injected (the site's CSP refuses inline scripts).
  const contextFor = (who: TestUser | null, viewport = desktop) => chromium.context({ as: who, viewport, bypassCSP: true, phone: viewport === phone });
  const postId = async (title: string) => (await t.ctx.db.selectFrom('posts').select('id').where('title', '=', title).executeTakeFirstOrThrow()).id;
  /** Nothing wider than the phone's screen (a mobile browser widens its layout viewport to fit, so innerWidth is no measure). */
  const noSideScroll = (p: Page) => p.evaluate((width) => document.documentElement.scrollWidth <= width, p.viewportSize()!.width);

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true, env: { JOBS_POLL_MS: '100' } });
    w = await buildMoneyWorld(t.ctx);
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'post-pictures-'));
    pictures = [];
    for (let i = 0; i < 3; i++) {
      const art = await renderArt({ width: 1200, height: 900, title: `Beach day ${i + 1}`, subtitle: 'Mona Money', seed: `post-e2e-${i}` }, 'jpeg', 85);
      const file = path.join(dir, `beach-${i + 1}.jpg`);
      await fsp.writeFile(file, art.buffer);
      pictures.push(file);
    }
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    if (dir) await fsp.rm(dir, { recursive: true, force: true });
  });

  it('a performer writes a post for subscribers and a pay-per-view post with pictures in the studio', async () => {
    const context = await contextFor(w.perf);
    const page = await context.newPage();
    await page.goto(`${t.url}/studio/posts`);
    await waitForIsland(page, 'StudioPosts');

    const write = async (o: { title: string; text: string; teaser: string; visibility: string; price?: string; files: string[] }) => {
      await page.getByLabel('Title', { exact: true }).fill(o.title);
      await page.getByLabel('Text', { exact: true }).fill(o.text);
      await page.getByLabel('Teaser').fill(o.teaser);
      await page.getByTestId('post-visibility').selectOption(o.visibility);
      if (o.price) await page.getByTestId('post-price').fill(o.price);
      await page.getByTestId('post-files').setInputFiles(o.files);
      await page.getByTestId('post-save').click();
      const row = page.locator('[data-testid="studio-post"]', { hasText: o.title });
      await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(1);
      // Processing in the background; the studio follows it until the previews are made.
      await expect.poll(() => row.getByTestId('studio-post-media').textContent(), { timeout: 30_000 }).toBe(`${o.files.length} photos`);
    };
    await write({ title: 'Beach day, behind the scenes', text: 'Everything from the shoot.\n\nThe wind won twice.', teaser: 'The outtakes from the beach shoot.', visibility: 'subscribers', files: pictures });
    await write({ title: 'Sunrise set, uncut', text: 'Every frame, in full.', teaser: 'The whole sunrise set.', visibility: 'sale', price: '4.99', files: pictures.slice(0, 2) });
    expect(await page.locator('[data-testid="studio-post"]', { hasText: 'Sunrise set, uncut' }).textContent()).toContain('Sale · $4.99');
    await saveScreen(page, 'posts-studio', { fullPage: true });
    expect(await axeProblems(page)).toEqual([]);

    const phonePage = await (await contextFor(w.perf, phone)).newPage();
    await phonePage.goto(`${t.url}/studio/posts`);
    await waitForIsland(phonePage, 'StudioPosts');
    await saveScreen(phonePage, 'posts-studio-phone', { fullPage: true });
    await context.close();
  }, 120_000);

  it("a guest finds them locked on the performer's Posts tab: teaser, blurred previews, prices on the buttons", async () => {
    const subsId = await postId('Beach day, behind the scenes');
    const saleId = await postId('Sunrise set, uncut');
    for (const [viewport, suffix] of [[desktop, ''], [phone, '-phone']] as const) {
      const context = await contextFor(null, viewport);
      const page = await context.newPage();
      await page.goto(`${t.url}/performers/${w.perf.username}?tab=posts`);
      await waitForIsland(page, 'LoadMoreList');
      const cards = page.getByTestId('post-card');
      expect(await cards.count()).toBe(2);
      expect(await cards.first().getAttribute('data-locked')).toBe('true');
      expect(await page.locator('[data-testid="post-card"]', { hasText: 'Sunrise set' }).textContent()).toContain('Buy $4.99');
      expect(await page.locator('[data-testid="post-card"]', { hasText: 'Beach day' }).textContent()).toContain('3 photos');
      await saveScreen(page, `posts-tab-guest${suffix}`, { fullPage: true });

      await page.locator('[data-testid="post-card"] a', { hasText: 'Beach day' }).click();
      await page.waitForURL(`**/posts/${subsId}`);
      await page.getByTestId('lock-box').scrollIntoViewIfNeeded();
      // A guest's plans are plain links to log in first and come back (no island: guest pages stay lean).
      expect(await page.locator('astro-island[component-url*="SubscribeButton"]').count()).toBe(0);
      expect(await page.getByTestId('subscribe-monthly').getAttribute('href')).toBe(`/auth/login?next=${encodeURIComponent(`/posts/${subsId}`)}`);
      expect(await page.getByTestId('post-page').getAttribute('data-locked')).toBe('true');
      expect(await page.getByTestId('post-teaser').textContent()).toBe('The outtakes from the beach shoot.');
      expect(await page.locator('[data-testid="post-previews"] img').count()).toBe(3);
      expect(await page.getByTestId('subscribe-monthly').textContent()).toBe('Subscribe · $10.00/month');
      expect(await page.getByTestId('post-content').count()).toBe(0);
      const html = await page.content();
      expect(html).not.toContain('/media/protected/');
      expect(html).not.toContain('The wind won twice');
      if (viewport === phone) expect(await noSideScroll(page)).toBe(true);
      await saveScreen(page, `post-locked-guest${suffix}`, { fullPage: true });
      if (viewport === desktop) expect(await axeProblems(page)).toEqual([]);

      await page.goto(`${t.url}/posts/${saleId}`);
      await page.getByTestId('lock-box').scrollIntoViewIfNeeded();
      await waitForIsland(page, 'BuyPostButton');
      expect(await page.getByTestId('buy-post-button').textContent()).toBe('Buy · $4.99');
      await saveScreen(page, `post-sale-guest${suffix}`, { fullPage: true });
      await context.close();
    }
    // The site's blog does not list them.
    const blog = await fetch(`${t.url}/posts`);
    expect(await blog.text()).not.toContain('Sunrise set, uncut');
  }, 120_000);

  it('a fan buys the pay-per-view post and subscribes for the other: both open with their pictures', async () => {
    const subsId = await postId('Beach day, behind the scenes');
    const saleId = await postId('Sunrise set, uncut');
    const context = await contextFor(w.fan);
    const page = await context.newPage();
    const pay = async () => {
      await page.waitForURL('**/payments/sandbox/**');
      await waitForIsland(page, 'SandboxPay');
      await page.getByTestId('sandbox-approve').click();
      await page.waitForURL('**/payments/result/**');
      await expect.poll(() => page.getByTestId('payment-result').getAttribute('data-status'), { timeout: 15_000 }).toBe('success');
    };
    const opened = async (count: number) => {
      expect(await page.getByTestId('post-page').getAttribute('data-locked')).toBe('false');
      expect(await page.getByTestId('lock-box').count()).toBe(0);
      await expect.poll(() => page.getByTestId('post-image').count()).toBe(count);
      // Each picture loads (signed for this fan) and is really a picture.
      await expect.poll(() => page.evaluate(() => [...document.querySelectorAll<HTMLImageElement>('[data-testid="post-image"]')].every((i) => i.complete && i.naturalWidth > 0))).toBe(true);
    };

    await page.goto(`${t.url}/posts/${saleId}`);
    await page.getByTestId('lock-box').scrollIntoViewIfNeeded();
    await waitForIsland(page, 'BuyPostButton');
    await page.getByTestId('buy-post-button').click();
    await pay();
    expect(await page.getByTestId('payment-next').textContent()).toBe('Open the post');
    await page.getByTestId('payment-next').click();
    await page.waitForURL(`**/posts/${saleId}`);
    await opened(2);
    expect(await page.getByTestId('post-content').textContent()).toContain('Every frame, in full.');
    await saveScreen(page, 'post-bought-fan', { fullPage: true });

    await page.goto(`${t.url}/posts/${subsId}`);
    await page.getByTestId('lock-box').scrollIntoViewIfNeeded();
    await waitForIsland(page, 'SubscribeButton');
    await page.getByTestId('subscribe-monthly').click();
    await pay();
    await page.goto(`${t.url}/posts/${subsId}`);
    await opened(3);
    expect(await page.getByTestId('post-content').textContent()).toContain('The wind won twice.');
    await saveScreen(page, 'post-subscribed-fan', { fullPage: true });
    expect(await axeProblems(page)).toEqual([]);

    // The fan's Posts tab shows both open, with sharp pictures (signed for the fan).
    await page.goto(`${t.url}/performers/${w.perf.username}?tab=posts`);
    await waitForIsland(page, 'LoadMoreList');
    // The page is the members' shared copy: the list asks again as the fan and opens what they hold.
    await expect.poll(() => page.locator('[data-testid="post-card"][data-locked="false"]').count(), { timeout: 15_000 }).toBe(2);
    await saveScreen(page, 'posts-tab-fan', { fullPage: true });

    const phonePage = await (await contextFor(w.fan, phone)).newPage();
    await phonePage.goto(`${t.url}/posts/${subsId}`);
    expect(await phonePage.getByTestId('post-page').getAttribute('data-locked')).toBe('false');
    await expect.poll(() => phonePage.getByTestId('post-image').count()).toBe(3);
    expect(await noSideScroll(phonePage)).toBe(true);
    await saveScreen(phonePage, 'post-subscribed-fan-phone', { fullPage: true });

    // The performer sees the sale in their earnings.
    const earnings = await t.api('/earning/performer/search?sourceType=post', { headers: w.perf.headers });
    expect(earnings.body.items).toMatchObject([{ sourceType: 'post', gross: 499 }]);
    await context.close();
  }, 120_000);
});
