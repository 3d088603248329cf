import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { failedRequest, hasChromium, saveScreen, useBrowser, waitForIsland } from '../helpers/browser.js';
import { buildMoneyWorld, payWithSandbox, type MoneyWorld } from '../helpers/money-fixture.js';
import type { TestUser } from '../helpers/sessions.js';
import { pageAccess } from '../../src/server/page-access.js';

/**
 * Pages can be found, on a desktop and on a phone: the header's cart shows how many items the cart holds; the user
 * menu leads to each of the user's own pages and to the studio or the console; every account page has the one
 * account tab bar and every studio page the studio's (Earnings and Orders included), with the current tab marked;
 * an unknown address shows the site's designed 404 page.
 */

const VIEWPORTS = [['desktop', { width: 1366, height: 900 }], ['phone', { width: 390, height: 844 }]] as const;
type Viewport = (typeof VIEWPORTS)[number][1];

const OWN_PAGES = [
  ['Subscriptions', '/account/subscriptions'],
  ['Following', '/account/following'],
  ['Orders', '/account/orders'],
  ['Transactions', '/account/transactions'],
  ['Favourites', '/account/favourites'],
  ['Watch later', '/account/watch-later'],
  ['Notifications', '/account/notifications'],
  ['Profile', '/account/profile'],
];

describe.skipIf(!hasChromium)('finding pages in chromium', () => {
  let t: TestApp;
  let w: MoneyWorld;
  const chromium = useBrowser(() => t.url);
  let orderId: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true });
    w = await buildMoneyWorld(t.ctx);
    // The fan has an order, so /account/orders/[id] has a real id.
    const bought = await t.api('/payment/purchase-products', { method: 'POST', headers: w.fan.headers, json: { items: [{ _id: w.products.mug.id, quantity: 1 }], shippingAddress: '1 Tab Road' } });
    expect(bought.status).toBe(201);
    expect((await payWithSandbox(t, w.fan, bought.body.redirectUrl)).status).toBe(200);
    orderId = bought.body.orderIds[0];
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  async function open(who: TestUser | null, viewport: Viewport, localStorage?: Record<string, string>): Promise<{ context: BrowserContext; page: Page }> {
    const page = await chromium.page({ as: who, viewport, localStorage });
    return { context: page.context(), page };
  }

  /** The element is shown and lies inside the viewport. */
  async function onScreen(page: Page, testId: string, viewport: Viewport) {
    const b = await page.getByTestId(testId).boundingBox();
    expect(b, testId).not.toBeNull();
    expect(b!.x, testId).toBeGreaterThanOrEqual(0);
    expect(b!.x + b!.width, testId).toBeLessThanOrEqual(viewport.width);
    expect(b!.y, testId).toBeGreaterThanOrEqual(0);
  }

  it.each(VIEWPORTS)('shows the number of items in the cart in the header (%s)', async (name, viewport) => {
    // Two lines, three items: the count is the quantities' sum, as on the cart page.
    const cart = { total: 3, items: [{ _id: w.products.mug.id, quantity: 2 }, { _id: w.products.ebook.id }] };
    const { context, page } = await open(null, viewport, { cart: JSON.stringify(cart) });
    try {
      await page.goto(`${t.url}/store`);
      await waitForIsland(page, 'UserMenu');
      expect(await page.getByTestId('header-cart-count').textContent()).toBe('3');
      expect(await page.getByTestId('cart-link').getAttribute('aria-label')).toBe('Cart, 3 items');
      expect(await page.getByTestId('cart-link').getAttribute('href')).toBe('/cart');
      await onScreen(page, 'cart-link', viewport);
      await onScreen(page, 'header-cart-count', viewport);
      await saveScreen(page, `${name}-header-cart-count`);

      // Adding a product on its page counts at once, without a reload.
      await page.goto(`${t.url}/products/${w.products.tee.id}`);
      await waitForIsland(page, 'UserMenu');
      expect(await page.getByTestId('header-cart-count').textContent()).toBe('3');
      await waitForIsland(page, 'AddToCartButton');
      await page.getByTestId('add-to-cart').click();
      await expect.poll(() => page.getByTestId('header-cart-count').textContent()).toBe('4');

      // An empty cart shows the icon without a number.
      await page.evaluate(() => localStorage.setItem('cart', JSON.stringify({ total: 0, items: [] })));
      await page.reload();
      await waitForIsland(page, 'UserMenu');
      expect(await page.getByTestId('header-cart-count').count()).toBe(0);
      expect(await page.getByTestId('cart-link').getAttribute('aria-label')).toBe('Cart');
    } finally {
      await context.close();
    }
  }, 60_000);

  it.each(VIEWPORTS)('leads from the user menu to every own page, and to the studio or the console (%s)', async (name, viewport) => {
    for (const [who, extra] of [[w.fan, null], [w.perf, ['Studio', '/studio']], [w.admin, ['Admin', '/admin']]] as const) {
      const { context, page } = await open(who, viewport);
      try {
        await page.goto(`${t.url}/home`);
        await waitForIsland(page, 'UserMenu');
        await page.getByTestId('user-menu-toggle').click();
        const panel = page.locator('#user-menu-panel');
        const links = await panel.getByRole('link').evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
        expect(links).toEqual([['Home', '/home'], ...OWN_PAGES, ...(extra ? [extra] : [])]);
        for (const [label] of links) {
          const b = (await panel.getByRole('link', { name: label!, exact: true }).boundingBox())!;
          expect(b.x + b.width, `${label} on a ${name}`).toBeLessThanOrEqual(viewport.width);
        }
        if (who === w.perf) await saveScreen(page, `${name}-user-menu-performer`);
        // The links work: one of the own pages, and the role's own place.
        await panel.getByRole('link', { name: 'Transactions' }).click();
        await page.waitForURL('**/account/transactions');
        if (extra) {
          await waitForIsland(page, 'UserMenu');
          await page.getByTestId('user-menu-toggle').click();
          await page.locator('#user-menu-panel').getByRole('link', { name: extra[0] }).click();
          await page.waitForURL(`**${extra[1]}`);
          expect(await page.locator('h1').first().textContent()).toBeTruthy();
        }
      } finally {
        await context.close();
      }
    }
  }, 90_000);

  /** The links of a tab bar, and which one is marked as the current page. */
  async function tabs(page: Page, testId: string) {
    expect(await page.getByTestId(testId).count(), `one ${testId}`).toBe(1);
    return page.getByTestId(testId).locator('a').evaluateAll((as) => ({
      hrefs: as.map((a) => a.getAttribute('href')),
      current: as.filter((a) => a.getAttribute('aria-current') === 'page').map((a) => a.getAttribute('href')),
    }));
  }

  it.each(VIEWPORTS)('gives every account page the one account tab bar, current tab marked (%s)', async (name, viewport) => {
    // Every account page there is, from the access table: a new one without the bar fails here.
    const routes = Object.keys(pageAccess).filter((r) => r.startsWith('/account/'));
    expect(routes.length).toBeGreaterThanOrEqual(8);
    const { context, page } = await open(w.fan, viewport);
    try {
      for (const route of routes) {
        const res = await page.goto(t.url + route.replace('[id]', orderId));
        expect(res?.status(), route).toBe(200);
        const { hrefs, current } = await tabs(page, 'account-nav');
        // The menu's pages, then the ones only the tab bar lists.
        expect(hrefs, route).toEqual([...OWN_PAGES.map(([, href]) => href), '/account/password', '/account/data']);
        // An order's page belongs to Orders.
        expect(current, route).toEqual([route === '/account/orders/[id]' ? '/account/orders' : route]);
        const bar = (await page.getByTestId('account-nav').boundingBox())!;
        expect(bar.x + bar.width, `${route} on a ${name}`).toBeLessThanOrEqual(viewport.width);
      }
      await page.goto(`${t.url}/account/transactions`);
      await saveScreen(page, `${name}-account-tabs`);
    } finally {
      await context.close();
    }
  }, 90_000);

  it.each(VIEWPORTS)('gives every studio page the studio tabs, Earnings and Orders included, current tab marked (%s)', async (name, viewport) => {
    const routes = Object.keys(pageAccess).filter((r) => r === '/studio' || r.startsWith('/studio/'));
    expect(routes).toEqual(expect.arrayContaining(['/studio/earnings', '/studio/orders']));
    const { context, page } = await open(w.perf, viewport);
    try {
      for (const route of routes) {
        expect((await page.goto(t.url + route))?.status(), route).toBe(200);
        const { hrefs, current } = await tabs(page, 'studio-nav');
        expect(hrefs, route).toEqual(routes);
        expect(current, route).toEqual([route]);
        const bar = (await page.getByTestId('studio-nav').boundingBox())!;
        expect(bar.x + bar.width, `${route} on a ${name}`).toBeLessThanOrEqual(viewport.width);
      }
      await page.goto(`${t.url}/studio/earnings`);
      await page.getByTestId('studio-nav').getByRole('link', { name: 'Orders' }).click();
      await page.waitForURL('**/studio/orders');
      expect(await page.getByTestId('studio-orders').count()).toBe(1);
      await saveScreen(page, `${name}-studio-tabs`);
    } finally {
      await context.close();
    }
  }, 90_000);

  it.each(VIEWPORTS)('shows the designed 404 page for an unknown address, with the site around it (%s)', async (name, viewport) => {
    const missing = ['/no-such-page', '/account/no-such-tab', '/studio/nothing/here'];
    chromium.expectErrors(...missing.map((path) => failedRequest(404, path)));
    for (const who of [null, w.fan]) {
      const { context, page } = await open(who, viewport);
      try {
        for (const path of missing) {
          const res = await page.goto(t.url + path);
          expect(res?.status(), path).toBe(404);
          expect(await page.title(), path).toBe('Page not found | Fanstage');
          expect(await page.locator('h1').textContent(), path).toBe('Page not found');
          // The site's own layout: the header (with its menu button on a phone), the way home and the footer.
          expect(await page.locator('header.site-header').isVisible(), path).toBe(true);
          expect(await page.getByTestId('site-menu-button').isVisible(), path).toBe(name === 'phone');
          expect(await page.getByRole('link', { name: 'Back to home' }).isVisible(), path).toBe(true);
          expect(await page.locator('footer.site-footer').count(), path).toBe(1);
        }
        await waitForIsland(page, 'UserMenu');
        if (!who) await saveScreen(page, `${name}-not-found`);
        await page.getByRole('link', { name: 'Back to home' }).click();
        await page.waitForURL(`${t.url}/`);
      } finally {
        await context.close();
      }
    }
  }, 60_000);
});
