import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { failedRequest, hasChromium, saveScreen, useBrowser } from '../helpers/browser.js';
import { payWithSandbox } from '../helpers/money-fixture.js';
import { createSession, type TestUser } from '../helpers/sessions.js';
import { seedDemo } from '../../server/seed/seed.js';
import { decide, pageAccess } from '../../src/server/page-access.js';
import type { Role } from '../../common/enums.js';
import { unsubscribeToken } from '../../server/notifications/unsubscribe.js';

/**
 * Phone first: at 390×844 no page of the site scrolls sideways, for a guest, a fan, a performer and an admin. The
 * page list is the access table itself (src/server/page-access.ts), so a new page is measured as soon as it has a
 * rule; dynamic routes get real ids from the demo data, and the fan has bought, subscribed and left a payment open
 * first, so the money tables have rows. Tabs of a page (a performer's content, search result types) are followed
 * too. A page overflows when the document is wider than the viewport; the test names the elements that stick out.
 *
 * Also: the header folds into a menu button on a phone (search inside it), with JavaScript and without.
 */

type Who = 'guest' | 'fan' | 'performer' | 'admin';
const WHO: Who[] = ['guest', 'fan', 'performer', 'admin'];
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 900 };

/** Pages whose phone screenshot reviewers look at (tests/e2e/screens/phone-<who>-<path>.png). */
const SCREENS: Record<Who, string[]> = {
  guest: ['/cart'],
  fan: ['/account/orders', '/account/transactions', '/account/subscriptions'],
  performer: ['/studio/orders', '/studio/earnings', '/studio/videos'],
  admin: ['/admin/orders', '/admin/users'],
};

/** Routes that are not HTML pages: nothing to lay out. */
const NOT_PAGES = new Set(['/robots.txt', '/sitemap.xml']);

interface Overflow {
  scrollWidth: number;
  clientWidth: number;
  /** `overflow-x` on html or body that would hide a too-wide page instead of fixing it. */
  hiddenOn: string[];
  culprits: string[];
}

/** In the page: how much wider than the viewport the document is, and the outermost elements that stick out. */
function measure(): Overflow {
  const doc = document.documentElement;
  const width = doc.clientWidth;
  const hiddenOn = [doc, document.body].filter((e) => ['hidden', 'clip'].includes(getComputedStyle(e).overflowX)).map((e) => e.tagName.toLowerCase());
  const name = (el: Element) => {
    const id = el.id ? `#${el.id}` : '';
    const cls = typeof el.className === 'string' && el.className.trim() ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
    const testId = el.getAttribute('data-testid');
    return `${el.tagName.toLowerCase()}${id}${cls}${testId ? `[data-testid=${testId}]` : ''}`;
  };
  const sticksOut = (el: Element) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.right <= width + 0.5) return false;
    // Inside a box that scrolls or clips sideways, it does not widen the page.
    for (let a = el.parentElement; a && a !== document.body && a !== doc; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== 'visible') return false;
    }
    return true;
  };
  const culprits: string[] = [];
  if (doc.scrollWidth > width) {
    for (const el of document.body.querySelectorAll('*')) {
      if (!sticksOut(el) || (el.parentElement && el.parentElement !== document.body && sticksOut(el.parentElement))) continue;
      const path: string[] = [];
      for (let a: Element | null = el; a && a !== document.body && path.length < 4; a = a.parentElement) path.unshift(name(a));
      culprits.push(`${path.join(' > ')} (right edge at ${Math.round(el.getBoundingClientRect().right)} px)`);
      if (culprits.length >= 5) break;
    }
  }
  return { scrollWidth: doc.scrollWidth, clientWidth: width, hiddenOn, culprits };
}

/** Islands that hydrate on their own (load, idle) have done so: their markup is what a phone shows. */
async function settle(page: Page): Promise<void> {
  await page
    .waitForFunction(() => [...document.querySelectorAll('astro-island[ssr]')].every((el) => el.getAttribute('client') === 'visible'), undefined, { timeout: 5000 })
    .catch(() => undefined);
}

describe.skipIf(!hasChromium)('phone layout (390 px): no page scrolls sideways', () => {
  let t: TestApp;
  const chromium = useBrowser(() => t.url);
  const users = {} as Record<Exclude<Who, 'guest'>, TestUser>;
  /** Concrete paths for the dynamic routes (and query strings some pages need). */
  const paths: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true });
    const seeded = await seedDemo({ db: t.ctx.db, config: t.config, logger: { info() {}, warn() {}, error: console.error }, scale: 0.1 });
    const creds = seeded.credentials!;
    const db = t.ctx.db;
    for (const who of ['fan', 'performer', 'admin'] as const) {
      const row = await db.selectFrom('users').select(['id', 'username', 'email', 'role']).where('email', '=', creds[who].email).executeTakeFirstOrThrow();
      const token = await createSession(db, row.id);
      users[who] = { ...row, role: row.role as Role, token, headers: { authorization: `Bearer ${token}` } };
    }
    const perf = users.performer;
    const video = await db.selectFrom('videos').select('id').where('performerId', '=', perf.id).where('status', '=', 'active').executeTakeFirstOrThrow();
    const forSale = await db.selectFrom('videos').select('id').where('status', '=', 'active').where('access', '=', 'sale').executeTakeFirst();
    const gallery = await db.selectFrom('galleries').select('id').where('performerId', '=', perf.id).where('status', '=', 'active').executeTakeFirstOrThrow();
    const product = await db.selectFrom('products').select('id').where('performerId', '=', perf.id).where('status', '=', 'active').where('type', '=', 'physical').executeTakeFirstOrThrow();
    const post = await db.selectFrom('posts').select('id').where('status', '=', 'published').executeTakeFirstOrThrow();

    // The fan's money: a subscription, a bought video and a product order (paid), and a payment left open.
    const fan = users.fan;
    const pay = async (url: string, json: unknown) => {
      const res = await t.api(url, { method: 'POST', headers: fan.headers, json });
      expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(201);
      return res.body as { redirectUrl: string; paymentId: string; orderIds?: string[] };
    };
    const subscribed = await pay('/payment/subscribe', { performerId: perf.id, type: 'monthly' });
    expect((await payWithSandbox(t, fan, subscribed.redirectUrl)).status).toBe(200);
    if (forSale) {
      const bought = await pay(`/payment/purchase-video/${forSale.id}`, {});
      expect((await payWithSandbox(t, fan, bought.redirectUrl)).status).toBe(200);
    }
    const ordered = await pay('/payment/purchase-products', { items: [{ _id: product.id, quantity: 2 }], shippingAddress: '1 Long Street Name That Goes On, Flat 12, Springfield' });
    expect((await payWithSandbox(t, fan, ordered.redirectUrl)).status).toBe(200);
    const open = await pay('/payment/purchase-products', { items: [{ _id: product.id, quantity: 1 }], shippingAddress: '1 Long Street' });
    // A conversation with a message in it, open to the fan, the performer and the admin.
    const conversation = await t.api('/messages/conversations', { method: 'POST', headers: fan.headers, json: { userId: perf.id } });
    expect(conversation.status, JSON.stringify(conversation.body)).toBe(200);
    const sent = await t.api(`/messages/conversations/${conversation.body._id}/messages`, { method: 'POST', headers: fan.headers, json: { text: 'Hello from a phone, with a rather long first line that has to wrap somewhere sensible' } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);

    Object.assign(paths, {
      '/performers/[username]': `/performers/${perf.username}`,
      '/videos/[id]': `/videos/${video.id}`,
      '/galleries/[id]': `/galleries/${gallery.id}`,
      '/products/[id]': `/products/${product.id}`,
      '/posts/[id]': `/posts/${post.id}`,
      '/comments/[type]/[id]': `/comments/video/${video.id}`,
      '/search': '/search?q=a',
      '/auth/reset-password': '/auth/reset-password?token=nope',
      '/auth/verify-email': '/auth/verify-email?token=nope',
      '/notifications/unsubscribe': `/notifications/unsubscribe?token=${unsubscribeToken(t.config.appSecret, fan.id, 'comment')}`,
      '/payments/result/[id]': `/payments/result/${ordered.paymentId}`,
      '/payments/sandbox/[id]': `/payments/sandbox/${open.redirectUrl.split('/').pop()}`,
      '/account/orders/[id]': `/account/orders/${ordered.orderIds![0]}`,
      '/messages/[id]': `/messages/${conversation.body._id}`,
      cartProduct: product.id,
    });
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  async function contextFor(who: Who, opts: { viewport?: typeof PHONE; javaScriptEnabled?: boolean } = {}): Promise<BrowserContext> {
    // Something in the cart, so the cart page has lines and the header shows a count.
    const cart = { total: 2, items: [{ _id: paths.cartProduct, quantity: 2, name: 'A product with a rather long name for a phone', price: 1999, type: 'physical' }] };
    return chromium.context({
      as: who === 'guest' ? null : users[who], viewport: opts.viewport ?? PHONE, javaScriptEnabled: opts.javaScriptEnabled ?? true, localStorage: { cart: JSON.stringify(cart) },
    });
  }

  /** The concrete path of every route with a rule, or a reason it is not measured. */
  function pathOf(route: string): string {
    if (paths[route]) return paths[route]!;
    if (route.includes('[')) throw new Error(`no real id for ${route}: add one to the paths of tests/e2e/phone-layout.test.ts`);
    return route;
  }

  it('has a path for every page route of the access table', () => {
    const routes = Object.keys(pageAccess);
    expect(routes.length).toBeGreaterThan(40);
    for (const route of routes) if (!NOT_PAGES.has(route)) expect(() => pathOf(route), route).not.toThrow();
  });

  it.each(WHO)('every page a %s may open fits 390 px', async (who) => {
    const role = who === 'guest' ? null : { role: users[who].role };
    const todo = Object.entries(pageAccess)
      .filter(([route, access]) => !NOT_PAGES.has(route) && decide(access, role) === 'render')
      .map(([route]) => pathOf(route));
    expect(todo.length).toBeGreaterThan(20);
    // Pages that answer an error status by design (the browser logs each), a link with a token that is no good, and
    // the fan's own payment and order pages, which are not found for anyone else.
    chromium.expectErrors(
      failedRequest(403, '/403'), failedRequest(404, '/404'), failedRequest(451, '/blocked'), failedRequest(503, '/maintenance'),
      failedRequest(400, '/api/auth/email-verification'),
      ...(who === 'fan' ? [] : ['/payments/result/[id]', '/payments/sandbox/[id]', '/account/orders/[id]'].map((route) => failedRequest(404, pathOf(route)))),
    );
    const context = await contextFor(who);
    const page = await context.newPage();
    const wrong: string[] = [];
    const seen = new Set<string>();
    try {
      while (todo.length) {
        const p = todo.shift()!;
        if (seen.has(p)) continue;
        seen.add(p);
        const res = await page.goto(t.url + p, { waitUntil: 'load' });
        // The maintenance page answers 503 on purpose; any other 5xx is a broken page.
        if (!res || (res.status() >= 500 && p !== '/maintenance')) wrong.push(`${p}: ${res?.status()}`);
        await settle(page);
        const m = await page.evaluate(measure);
        if (m.hiddenOn.length) wrong.push(`${p}: overflow-x hidden on ${m.hiddenOn.join(', ')} (hides a wide page instead of fitting it)`);
        if (m.scrollWidth > m.clientWidth) wrong.push(`${p}: ${m.scrollWidth} px wide at ${m.clientWidth}: ${m.culprits.join('; ') || 'no element found'}`);
        if (SCREENS[who].includes(p)) await saveScreen(page, `phone-${who}${p.replaceAll('/', '-')}`, { fullPage: true });
        // A page's own tabs (a performer's content, search result types) are pages too.
        const tabs = await page.locator('nav.tabs a[href]').evaluateAll((as) => as.map((a) => new URL((a as HTMLAnchorElement).href).pathname + new URL((a as HTMLAnchorElement).href).search));
        for (const tab of tabs) if (/^\/(performers\/[^/]+|search)\?/.test(tab) && !seen.has(tab)) todo.push(tab);
      }
    } finally {
      await context.close();
    }
    expect(seen.size).toBeGreaterThan(20);
    expect(wrong).toEqual([]);
  }, 300_000);
  /** The element's box, or null when it is not shown. */
  const box = (page: Page, testId: string) => page.getByTestId(testId).first().boundingBox();

  it.each([true, false])('folds the header into a menu button on a phone, the search inside it (JavaScript %s)', async (js) => {
    const context = await contextFor('guest', { javaScriptEnabled: js });
    const page = await context.newPage();
    try {
      await page.goto(`${t.url}/`);
      if (js) await settle(page);
      const button = page.getByTestId('site-menu-button');
      // Located by markup, not by role: a hidden element has no role, and "not visible" must not mean "not there".
      const search = page.locator('.site-header input[type="search"]');
      const nav = page.locator('.site-header nav[aria-label="Main"]');
      expect(await search.count()).toBe(1);
      expect(await nav.count()).toBe(1);
      expect(await button.isVisible()).toBe(true);
      expect(await search.isVisible()).toBe(false);
      expect(await nav.isVisible()).toBe(false);
      // One row: the brand, the cart, Sign up and the menu button, all inside the screen.
      for (const id of ['cart-link', 'signup-link', 'site-menu-button']) {
        const b = await box(page, id);
        expect(b, id).not.toBeNull();
        expect(b!.x + b!.width, id).toBeLessThanOrEqual(PHONE.width);
        expect(b!.y + b!.height, id).toBeLessThanOrEqual(64);
      }
      if (js) await saveScreen(page, 'phone-header-guest-closed');
      await button.click();
      expect(await search.isVisible()).toBe(true);
      expect(await nav.getByRole('link', { name: 'Log in' }).isVisible()).toBe(true);
      expect(await nav.getByRole('link').count()).toBeGreaterThan(2);
      const open = await page.evaluate(measure);
      expect(open.scrollWidth, open.culprits.join('; ')).toBeLessThanOrEqual(open.clientWidth);
      if (js) await saveScreen(page, 'phone-header-guest-open');
      await search.fill('yoga');
      await search.press('Enter');
      await page.waitForURL('**/search?q=yoga');
      expect(await page.getByTestId('search-page').count()).toBe(1);
      // Closed again on the next page.
      expect(await search.count()).toBe(1);
      expect(await search.isVisible()).toBe(false);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('keeps the header in one row on a desktop: links and search shown, no menu button', async () => {
    const context = await contextFor('guest', { viewport: DESKTOP });
    const page = await context.newPage();
    try {
      await page.goto(`${t.url}/`);
      await settle(page);
      expect(await page.getByTestId('site-menu-button').count()).toBe(1);
      expect(await page.getByTestId('site-menu-button').isVisible()).toBe(false);
      expect(await page.locator('.site-header input[type="search"]').isVisible()).toBe(true);
      expect(await page.locator('.site-header nav[aria-label="Main"]').isVisible()).toBe(true);
      // "Log in" once: the row's button, not the phone menu's link.
      expect(await page.getByRole('link', { name: 'Log in' }).and(page.locator(':visible')).count()).toBe(1);
      expect(await page.getByTestId('login-link').isVisible()).toBe(true);
      await saveScreen(page, 'desktop-header-guest');
    } finally {
      await context.close();
    }
  }, 60_000);

  it.each([['phone', PHONE], ['desktop', DESKTOP]] as const)('shows a signed-in fan the avatar menu and the cart count on a %s', async (name, viewport) => {
    const context = await contextFor('fan', { viewport });
    const page = await context.newPage();
    try {
      await page.goto(`${t.url}/account/orders`);
      await settle(page);
      expect(await page.getByTestId('header-cart-count').textContent()).toBe('2');
      const cart = await box(page, 'cart-link');
      expect(cart!.x + cart!.width).toBeLessThanOrEqual(viewport.width);
      await page.getByTestId('user-menu-toggle').click();
      const panel = page.locator('#user-menu-panel');
      expect(await panel.isVisible()).toBe(true);
      const b = (await panel.boundingBox())!;
      expect(b.x).toBeGreaterThanOrEqual(0);
      expect(b.x + b.width).toBeLessThanOrEqual(viewport.width);
      expect(await panel.getByRole('link', { name: 'Orders' }).isVisible()).toBe(true);
      await saveScreen(page, `${name}-header-fan-menu-open`);
      // A money table is a stack of cards on the phone, a table on the desktop.
      const row = page.getByTestId('order-row').first();
      expect(await row.evaluate((tr) => getComputedStyle(tr).display)).toBe(name === 'phone' ? 'block' : 'table-row');
      const label = await row.locator('td[data-label="Total"]').evaluate((td) => getComputedStyle(td, '::before').content);
      expect(label).toBe(name === 'phone' ? '"Total"' : 'none');
      if (name === 'desktop') await saveScreen(page, 'desktop-fan-account-orders', { fullPage: true });
    } finally {
      await context.close();
    }
  }, 60_000);

  it('shows the wide tables of the studio and the console on a desktop as tables', async () => {
    for (const [who, p] of [['performer', '/studio/orders'], ['admin', '/admin/payments']] as const) {
      const context = await contextFor(who, { viewport: DESKTOP });
      const page = await context.newPage();
      try {
        await page.goto(t.url + p);
        await settle(page);
        expect(await page.locator('table').first().evaluate((el) => getComputedStyle(el).display)).toBe('table');
        await saveScreen(page, `desktop-${who}${p.replaceAll('/', '-')}`, { fullPage: true });
      } finally {
        await context.close();
      }
    }
  }, 60_000);
});
