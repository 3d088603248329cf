import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { buildCatalogue, type Catalogue } from '../helpers/catalogue-fixture.js';
import { axeProblems, hasChromium, useBrowser } from '../helpers/browser.js';
import { addNotification } from '../../server/notifications/notifications.service.js';
import { unsubscribeToken } from '../../server/notifications/unsubscribe.js';

/**
 * axe-core on the pages of the main journeys, as each kind of visitor sees them, in chromium after hydration: a
 * serious or critical violation (contrast, a control without a name, a missing label, a broken ARIA role, ...) fails
 * with the rule, its help and where it was found. Lighthouse (`npm run audit:pages`) scores three guest pages; this
 * covers every role's pages in CI.
 */
describe.skipIf(!hasChromium)('accessibility of the main pages (axe-core)', () => {
  let t: TestApp;
  let c: Catalogue;
  const chromium = useBrowser(() => t.url);

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true });
    c = await buildCatalogue(t.ctx);
    // The fan's notifications page lists one unread and one read.
    await addNotification(t.ctx.db, c.buyer.id, 'order', { orderId: 'o1', status: 'shipping', url: '/account/orders' }, { email: false });
    await t.ctx.db.updateTable('notifications').set({ readAt: new Date().toISOString() }).where('id', '=', await addNotification(t.ctx.db, c.buyer.id, 'comment', { title: 'Old one', actorName: 'Ann', url: '/videos' }, { email: false })).execute();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  /** One page per test, so a slow page cannot starve the others of their time and the failure names the page. */
  async function check(who: { token: string } | null, p: string): Promise<void> {
    // The site's CSP refuses inline scripts, axe's included: only this test's browser bypasses it.
    const page = await chromium.page({ as: who, viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const context = page.context();
    const found: string[] = [];
    try {
      const res = await page.goto(t.url + p, { waitUntil: 'networkidle' });
      expect(res?.status(), p).toBe(200);
      for (const v of await axeProblems(page)) found.push(`${p}: [${v.impact}] ${v.rule}: ${v.help} at ${v.targets.join(' | ')}`);
    } finally {
      await context.close();
    }
    expect(found).toEqual([]);
  }

  // Pages named here, their paths made once the catalogue exists (ids are known only then).
  const guestPages: Record<string, () => string> = {
    home: () => '/', performers: () => '/performers', performer: () => '/performers/alice', videos: () => '/videos',
    'free video': () => `/videos/${c.videos.free.id}`, 'video for sale': () => `/videos/${c.videos.sale.id}`,
    gallery: () => `/galleries/${c.galleries.free.id}`, store: () => '/store', product: () => `/products/${c.products.digital.id}`,
    blog: () => '/posts', search: () => '/search?q=yoga', "performer's posts": () => '/performers/alice?tab=posts',
    post: () => `/posts/${c.posts.byAlice.id}`, login: () => '/auth/login', 'sign-up': () => '/auth/register',
    'forgot password': () => '/auth/forgot-password', contact: () => '/contact', 'record-keeping': () => '/record-keeping', takedown: () => '/takedown', cart: () => '/cart',
    unsubscribe: () => `/notifications/unsubscribe?token=${unsubscribeToken(t.config.appSecret, c.buyer.id, 'comment')}`,
  };
  const fanPages: Record<string, () => string> = {
    home: () => '/home', profile: () => '/account/profile', password: () => '/account/password',
    subscriptions: () => '/account/subscriptions', orders: () => '/account/orders', transactions: () => '/account/transactions',
    favourites: () => '/account/favourites', 'watch later': () => '/account/watch-later', notifications: () => '/notifications',
    'notification settings': () => '/account/notifications', 'your data': () => '/account/data', 'video for sale': () => `/videos/${c.videos.sale.id}`,
    messages: () => '/messages',
    // With the Tip button (its dialog is audited open in tests/e2e/tips.test.ts).
    performer: () => '/performers/alice', post: () => `/posts/${c.posts.byAlice.id}`,
  };
  const studioPages = ['/studio', '/studio/profile', '/studio/videos', '/studio/galleries', '/studio/products', '/studio/posts', '/studio/earnings', '/studio/orders', '/studio/messages', '/studio/co-performers', '/studio/verification'];
  const adminPages = ['/admin', '/admin/settings', '/admin/users', '/admin/performers', '/admin/content', '/admin/payments', '/admin/payouts', '/admin/coupons', '/admin/orders', '/admin/audit', '/admin/reports', '/admin/consent', '/admin/verifications', '/admin/watermarks', '/admin/takedowns'];

  it.each(Object.entries(guestPages))('a guest: %s', (_name, path) => check(null, path()));
  it.each(Object.entries(fanPages))('a fan: %s', (_name, path) => check(c.buyer, path()));
  it.each(studioPages)("a performer's studio: %s", (p) => check(c.alice, p));
  it.each(adminPages)('the admin console: %s', (p) => check(c.admin, p));
});
