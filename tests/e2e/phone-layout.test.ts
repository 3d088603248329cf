import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { hasChromium, launchBrowser, saveScreen } from '../helpers/browser.js';
import { payWithSandbox } from '../helpers/money-fixture.js';
import { createSession, type TestUser } from '../helpers/sessions.js';
import { seedDemo } from '../../server/seed/seed.js';
import { decide, pageAccess } from '../../src/server/page-access.js';
import type { Role } from '../../common/api-types.js';

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
  let browser: Browser;
  let closeBrowser: () => Promise<void>;
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
      '/payments/result/[id]': `/payments/result/${ordered.paymentId}`,
      '/payments/sandbox/[id]': `/payments/sandbox/${open.redirectUrl.split('/').pop()}`,
      '/account/orders/[id]': `/account/orders/${ordered.orderIds![0]}`,
    });
    ({ browser, close: closeBrowser } = await launchBrowser());
  }, 240_000);
  afterAll(async () => {
    await closeBrowser?.();
    await t?.close();
  });

  async function contextFor(who: Who, opts: { viewport?: typeof PHONE; javaScriptEnabled?: boolean } = {}): Promise<BrowserContext> {
    const context = await browser.newContext({ viewport: opts.viewport ?? PHONE, javaScriptEnabled: opts.javaScriptEnabled ?? true });
    if (who !== 'guest') await context.addCookies([{ name: 'token', value: users[who].token, url: t.url, httpOnly: true, sameSite: 'Lax' }]);
    return context;
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
        if (!res || res.status() >= 500) wrong.push(`${p}: ${res?.status()}`);
        await settle(page);
        const m = await page.evaluate(measure);
        if (m.hiddenOn.length) wrong.push(`${p}: overflow-x hidden on ${m.hiddenOn.join(', ')} (hides a wide page instead of fitting it)`);
        if (m.scrollWidth > m.clientWidth) wrong.push(`${p}: ${m.scrollWidth} px wide at ${m.clientWidth}: ${m.culprits.join('; ') || 'no element found'}`);
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
});
