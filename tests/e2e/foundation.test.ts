import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { failedRequest, hasChromium, saveScreen, useBrowser } from '../helpers/browser.js';
import { seedDemo } from '../../server/seed/seed.js';

describe.skipIf(!hasChromium)('foundation journey in chromium', () => {
  let t: TestApp;
  const chromium = useBrowser(() => t.url);
  let page: Page;

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true, env: { COUNTRY_HEADER: 'x-visitor-country' } });
    await seedDemo({ db: t.ctx.db, config: t.config, logger: t.ctx.logger, scale: 0.5 });
    page = await chromium.page();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('home page shows banners and performers, with islands loading under the CSP', async () => {
    const res = await page.goto(t.url + '/');
    expect(res?.status()).toBe(200);
    await expect.poll(() => page.locator('[data-testid="banner"]').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-testid="featured-performers"] .performer-card').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-testid="new-performers"] .performer-card').count()).toBeGreaterThan(0);
    expect(await page.title()).toContain('Fanstage');
    // Every banner image is a real file.
    // Every banner image is a real file (lazy ones off-screen are not loaded yet, so fetch them).
    const sources = await page.locator('[data-testid="banner"] img').evaluateAll((els) => els.map((e) => (e as HTMLImageElement).currentSrc || (e as HTMLImageElement).src));
    expect(sources.length).toBeGreaterThan(0);
    for (const src of sources) {
      const img = await page.request.get(src);
      expect(img.status(), src).toBe(200);
      expect(img.headers()['content-type']).toMatch(/^image\//);
    }
    // Back-to-top island hydrates and appears after 400 px of scroll.
    await page.evaluate(() => document.body.style.setProperty('min-height', '3000px'));
    await page.waitForFunction(() => document.querySelector('astro-island[component-url*="BackToTop"]')?.hasAttribute('ssr') === false, null, { timeout: 10_000 });
    await page.mouse.wheel(0, 800);
    await expect.poll(() => page.locator('.back-to-top').count()).toBe(1);
    await saveScreen(page, 'home', { fullPage: false });
  });

  it('maintenance mode switched on in the database shows the maintenance layout', async () => {
    chromium.expectErrors(failedRequest(503, '/performers'));
    await t.ctx.db
      .insertInto('settings')
      .values({ key: 'maintenanceMode', value: 'true', group: 'general', public: 1, updatedAt: new Date().toISOString() })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: 'true' }))
      .execute();
    const res = await page.goto(t.url + '/performers');
    expect(res?.status()).toBe(503);
    await expect.poll(() => page.locator('body.layout-maintenance img[alt="Under construction"]').count()).toBe(1);
    await saveScreen(page, 'maintenance');
    await t.ctx.db.updateTable('settings').set({ value: 'false' }).where('key', '=', 'maintenanceMode').execute();
    const back = await page.goto(t.url + '/performers');
    expect(back?.status()).toBe(200);
    await saveScreen(page, 'performers', { fullPage: true });
  });

  it('a visitor from a blocked country sees the geo-block layout', async () => {
    chromium.expectErrors(failedRequest(451, '/performers'));
    await t.ctx.geo.block('FR');
    const context = await chromium.context({ extraHTTPHeaders: { 'x-visitor-country': 'FR' } });
    const french = await context.newPage();
    const res = await french.goto(t.url + '/performers');
    expect(res?.status()).toBe(451);
    expect(await french.locator('h1').textContent()).toBe("We've sorry.");
    expect(await french.locator('main p').textContent()).toBe('Website content is not available on your country');
    await saveScreen(french, 'geo-block');
    // Visitors from elsewhere are not affected.
    const res2 = await page.goto(t.url + '/performers');
    expect(res2?.status()).toBe(200);
    await context.close();
    await t.ctx.geo.unblock('FR');
  });
});
