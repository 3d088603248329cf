import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { hasChromium, saveScreen, useBrowser } from '../helpers/browser.js';
import { seedDemo } from '../../server/seed/seed.js';

/**
 * Search finds what people type, in the browser, on a desktop and on a phone: a visitor types "yoga" in the header's
 * search and finds Mia Rivers (yoga in her bio, tags and category) and Elena Petrova (only her "Fitness & Yoga"
 * category), and on the Videos tab Mia's video with yoga in its title first; each tab's count is its list's total.
 */

const VIEWPORTS = [['desktop', { width: 1366, height: 900 }], ['phone', { width: 390, height: 844 }]] as const;
const TABS = [['performers', '/performers/search'], ['videos', '/user/assets/videos/search'], ['galleries', '/user/assets/galleries/search'], ['products', '/user/assets/products/search'], ['posts', '/posts/search']] as const;

describe.skipIf(!hasChromium)('search in chromium', () => {
  let t: TestApp;
  const chromium = useBrowser(() => t.url);

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true });
    await seedDemo({ db: t.ctx.db, config: t.config, logger: { info() {}, warn() {}, error: console.error }, scale: 0.3 });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  /** The page is no wider than the screen (nothing makes it scroll sideways). */
  async function fitsWidth(page: Page, width: number, where: string) {
    expect(await page.evaluate(() => document.documentElement.scrollWidth), where).toBeLessThanOrEqual(width);
  }

  it.each(VIEWPORTS)('typing "yoga" in the header search finds the performers and videos (%s)', async (name, viewport) => {
    const page = await chromium.page({ viewport });
    const context = page.context();
    try {
      await page.goto(`${t.url}/`);
      // On a phone the search folds behind the menu button.
      if (name === 'phone') await page.getByTestId('site-menu-button').click();
      const search = page.locator('header form[role="search"] input[name="q"]');
      await search.fill('yoga');
      await Promise.all([page.waitForURL(/\/search\?q=yoga$/), search.press('Enter')]);
      await expect.poll(() => page.locator('h1').textContent()).toContain('yoga');

      // Each tab's count is what its list holds (the API counts the same way).
      const totals = (await t.api('/search/total?q=yoga')).body;
      for (const [tab, path] of TABS) {
        const label = await page.getByTestId(`search-tab-${tab}`).textContent();
        expect(label, tab).toContain(`(${totals[tab]})`);
        expect((await t.api(`${path}?q=yoga&limit=1`)).body.total, tab).toBe(totals[tab]);
      }
      expect(totals.performers).toBeGreaterThanOrEqual(2);
      expect(totals.videos).toBeGreaterThanOrEqual(1);

      // Performers first: Mia, and Elena found by her category alone.
      const performers = page.getByTestId('search-results').getByTestId('performer-card');
      await expect.poll(() => performers.count()).toBe(Math.min(totals.performers, 12));
      const names = await performers.allTextContents();
      expect(names.some((n) => n.includes('Mia Rivers')), names.join(' | ')).toBe(true);
      expect(names.some((n) => n.includes('Elena Petrova')), names.join(' | ')).toBe(true);
      await fitsWidth(page, viewport.width, 'performers tab');
      await saveScreen(page, `search-yoga-performers-${name}`, { fullPage: true });

      // Videos: the title match comes first.
      await Promise.all([page.waitForURL(/type=videos/), page.getByTestId('search-tab-videos').click()]);
      const videos = page.getByTestId('search-results').getByTestId('video-card');
      await expect.poll(() => videos.count()).toBe(Math.min(totals.videos, 12));
      expect(await videos.first().textContent()).toContain('Morning yoga flow');
      await fitsWidth(page, viewport.width, 'videos tab');
      await saveScreen(page, `search-yoga-videos-${name}`, { fullPage: true });
    } finally {
      await context.close();
    }
  }, 60_000);

  it('the performer directory answers a search best match first, and keeps an order the visitor chose', async () => {
    const page = async (path: string) => (await fetch(`${t.url}${path}`)).text();
    const bestMatch = await page('/performers?q=yoga');
    expect(bestMatch).toMatch(/class="tabs__tab is-active"[^>]*>Best match</);
    const order = (html: string) => [...html.matchAll(/data-testid="performer-card"[\s\S]*?<h3[^>]*>([^<]+)</g)].map((m) => m[1]);
    const api = (await t.api('/performers/search?q=yoga&limit=24')).body.items.map((p: { name: string }) => p.name);
    expect(order(bestMatch)).toEqual(api);
    expect(api).toContain('Elena Petrova');
    const popular = await page('/performers?q=yoga&sort=popular');
    expect(popular).toMatch(/class="tabs__tab is-active"[^>]*>Popular</);
    expect(popular).toContain('name="sort" value="popular"');
    expect(bestMatch).not.toContain('name="sort"');
  });
});
