import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { buildCatalogue, type Catalogue } from '../helpers/catalogue-fixture.js';
import { axeProblems, hasChromium, launchBrowser } from '../helpers/browser.js';

/**
 * axe-core on the pages of the main journeys, as each kind of visitor sees them, in chromium after hydration: a
 * serious or critical violation (contrast, a control without a name, a missing label, a broken ARIA role, ...) fails
 * with the rule, its help and where it was found. Lighthouse (`npm run audit:pages`) scores three guest pages; this
 * covers every role's pages in CI.
 */
describe.skipIf(!hasChromium)('accessibility of the main pages (axe-core)', () => {
  let t: TestApp;
  let c: Catalogue;
  let browser: Browser;
  let closeBrowser: () => Promise<void>;

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true });
    c = await buildCatalogue(t.ctx);
    ({ browser, close: closeBrowser } = await launchBrowser());
  }, 60_000);
  afterAll(async () => {
    await closeBrowser?.();
    await t?.close();
  });

  async function contextFor(token: string | null): Promise<BrowserContext> {
    // The site's CSP refuses inline scripts, axe's included: only this test's browser bypasses it.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    if (token) await context.addCookies([{ name: 'token', value: token, url: t.url }]);
    return context;
  }

  async function check(token: string | null, paths: string[]): Promise<void> {
    const context = await contextFor(token);
    const page = await context.newPage();
    const found: string[] = [];
    try {
      for (const p of paths) {
        const res = await page.goto(t.url + p, { waitUntil: 'networkidle' });
        expect(res?.status(), p).toBe(200);
        for (const v of await axeProblems(page)) found.push(`${p}: [${v.impact}] ${v.rule}: ${v.help} at ${v.targets.join(' | ')}`);
      }
    } finally {
      await context.close();
    }
    expect(found).toEqual([]);
  }

  it('guest pages: home, lists, a performer, a video, a gallery, a product, search, sign-in and sign-up', async () => {
    await check(null, [
      '/', '/performers', '/performers/alice', '/videos', `/videos/${c.videos.free.id}`, `/videos/${c.videos.sale.id}`,
      `/galleries/${c.galleries.free.id}`, '/store', `/products/${c.products.digital.id}`, '/posts', '/search?q=yoga',
      '/performers/alice?tab=posts', `/posts/${c.posts.byAlice.id}`,
      '/auth/login', '/auth/register', '/auth/forgot-password', '/contact', '/cart',
    ]);
  });

  it("a fan's account pages", async () => {
    await check(c.buyer.token, ['/home', '/account/profile', '/account/password', '/account/subscriptions', '/account/orders', '/account/transactions', '/account/favourites', '/account/watch-later', `/videos/${c.videos.sale.id}`]);
  });

  it("a performer's studio", async () => {
    await check(c.alice.token, ['/studio', '/studio/profile', '/studio/videos', '/studio/galleries', '/studio/products', '/studio/posts', '/studio/earnings', '/studio/orders']);
  });

  it("the admin console", async () => {
    await check(c.admin.token, ['/admin', '/admin/settings', '/admin/users', '/admin/performers', '/admin/content', '/admin/payments', '/admin/coupons']);
  });
});
