import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { failedRequest, hasChromium, saveScreen, useBrowser } from '../helpers/browser.js';
import { newId, nowIso } from '../../server/db/ids.js';

/**
 * Admin console journey: maintenance on and off, menus and footer, a coupon a fan then applies; editing a banner,
 * a category and a package in place, and an order's delivery. The human units (percent, money, menus as a list,
 * names, the audit log in words, the site name, the maintenance banner) are walked through on a desktop and a
 * phone in tests/e2e/admin-human-units.test.ts.
 */
describe.skipIf(!hasChromium)('admin console journey in chromium', () => {
  let t: TestApp;
  const chromium = useBrowser(() => t.url);
  let adminCtx: BrowserContext;
  let guestCtx: BrowserContext;
  let fanCtx: BrowserContext;
  let page: Page;
  let admin: TestUser;
  let fan: TestUser;
  let performer: TestUser;

  const hydrated = (p: Page, testId: string) =>
    p.waitForFunction((id) => {
      const el = document.querySelector(`[data-testid="${id}"]`)?.closest('astro-island');
      return el !== null && el !== undefined && !el.hasAttribute('ssr');
    }, testId, { timeout: 15_000 });

  async function saveSettings(fill: () => Promise<void>) {
    await page.goto(`${t.url}/admin/settings`);
    await hydrated(page, 'settings-form');
    await fill();
    await Promise.all([page.waitForEvent('load'), page.getByTestId('settings-form-submit').click()]);
  }

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true });
    admin = await createUser(t.ctx.db, 'admin');
    fan = await createUser(t.ctx.db, 'user');
    performer = await createUser(t.ctx.db, 'performer');
    adminCtx = await chromium.context({ as: admin });
    guestCtx = await chromium.context();
    fanCtx = await chromium.context({ as: fan });
    page = await adminCtx.newPage();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('admin pages answer 403 to fans and performers and send guests to login', async () => {
    const pages = ['', '/settings', '/banners', '/categories', '/country-blocks', '/coupons', '/packages', '/users', '/performers', '/content', '/comments', '/payments', '/orders', '/earnings', '/audit'];
    for (const p of pages.map((x) => `/admin${x}`)) {
      for (const u of [fan, performer]) {
        const res = await fetch(`${t.url}${p}`, { headers: { cookie: `token=${u.token}` }, redirect: 'manual' });
        expect(res.status, `${u.role} ${p}`).toBe(403);
      }
      const guest = await fetch(`${t.url}${p}`, { redirect: 'manual' });
      expect(guest.status).toBe(302);
      expect(guest.headers.get('location')).toContain('/auth/login');
      const ok = await fetch(`${t.url}${p}`, { headers: { cookie: `token=${admin.token}` }, redirect: 'manual' });
      expect(ok.status, `admin ${p}`).toBe(200);
    }
  });

  it('the dashboard renders its charts as inline SVG', async () => {
    const res = await page.goto(`${t.url}/admin`);
    expect(res?.status()).toBe(200);
    expect(await page.locator('[data-testid="chart-signups"] svg path').count()).toBeGreaterThan(0);
    await saveScreen(page, 'admin-dashboard', { fullPage: true });
  });

  it('turns maintenance on: guests get the maintenance layout (503), the admin keeps working', async () => {
    chromium.expectErrors(failedRequest(503, '/'));
    await page.goto(`${t.url}/admin/settings`);
    await hydrated(page, 'maintenance-form');
    await page.getByLabel('Maintenance mode').check();
    await Promise.all([page.waitForEvent('load'), page.getByTestId('maintenance-form-submit').click()]);
    expect(await page.getByTestId('maintenance-banner').count()).toBe(1);
    const guest = await guestCtx.newPage();
    const res = await guest.goto(`${t.url}/`);
    expect(res?.status()).toBe(503);
    expect(await guest.locator('body.layout-maintenance').count()).toBe(1);
    await saveScreen(guest, 'admin-maintenance-guest');
    const adminHome = await page.goto(`${t.url}/admin/coupons`);
    expect(adminHome?.status()).toBe(200);
    const audit = await t.ctx.db.selectFrom('auditLog').selectAll().where('action', '=', 'settings.update').where('actorId', '=', admin.id).execute();
    expect(audit.length).toBeGreaterThan(0);
    await guest.close();
  });

  it('edits the menu and footer (and turns maintenance off): the public page shows them', async () => {
    await page.goto(`${t.url}/admin/settings`);
    await hydrated(page, 'maintenance-form');
    await page.getByLabel('Maintenance mode').uncheck();
    await Promise.all([page.waitForEvent('load'), page.getByTestId('maintenance-form-submit').click()]);
    // The menus are a list of rows (tests/e2e/admin-human-units.test.ts goes through the editor in depth).
    await hydrated(page, 'menu-editor');
    await page.getByTestId('menu-editor-add-header').click();
    const headerRow = page.getByTestId('menu-editor-header-row').last();
    await headerRow.getByLabel('Label').fill('Hot deals');
    await headerRow.getByLabel('Address (URL)').fill('/performers');
    await page.getByTestId('menu-editor-add-footer').click();
    const footerRow = page.getByTestId('menu-editor-footer-row').last();
    await footerRow.getByLabel('Label').fill('Imprint');
    await footerRow.getByLabel('Address (URL)').fill('/contact');
    await Promise.all([page.waitForEvent('load'), page.getByTestId('menu-editor-submit').click()]);
    await saveSettings(() => page.getByLabel('Footer content (HTML)').fill('<p>Run by the journey admin</p>'));
    const guest = await guestCtx.newPage();
    const res = await guest.goto(`${t.url}/`);
    expect(res?.status()).toBe(200);
    expect(await guest.locator('header a', { hasText: 'Hot deals' }).count()).toBeGreaterThan(0);
    expect(await guest.locator('footer a', { hasText: 'Imprint' }).count()).toBe(1);
    expect(await guest.locator('footer', { hasText: 'Run by the journey admin' }).count()).toBe(1);
    await saveScreen(guest, 'admin-menu-footer-guest');
    await guest.close();
  });

  it('creates a coupon that a fan then applies', async () => {
    await page.goto(`${t.url}/admin/coupons`);
    await hydrated(page, 'coupon-form');
    await page.getByLabel('Code').fill('journey20');
    await page.getByLabel('Name').fill('Journey 20 %');
    await page.getByLabel('Discount (%)').fill('20');
    await page.getByLabel('Number of uses').fill('10');
    await Promise.all([page.waitForEvent('load'), page.getByTestId('coupon-form-submit').click()]);
    expect(await page.getByTestId('coupons-table').getByText('JOURNEY20').count()).toBe(1);
    const row = await t.ctx.db.selectFrom('coupons').selectAll().where('code', '=', 'JOURNEY20').executeTakeFirstOrThrow();
    expect(row).toMatchObject({ valueBps: 2000, maxUses: 10, status: 'active' });

    const fanPage = await fanCtx.newPage();
    await fanPage.goto(`${t.url}/`);
    const applied = await fanPage.evaluate(async () => {
      const res = await fetch('/api/coupons/journey20/apply-coupon', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ amount: 1000 }) });
      return { status: res.status, body: await res.json() };
    });
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ coupon: { code: 'JOURNEY20' }, originalPrice: 1000, price: 800 });
    await page.goto(`${t.url}/admin/audit`);
    expect(await page.locator('[data-testid="audit-entry"][data-action="coupon.create"]', { hasText: 'JOURNEY20' }).count()).toBeGreaterThan(0);
    await fanPage.close();
  });

  it('edits a banner, a category and a package in place, and updates an order\'s delivery', async () => {
    const create = async (path: string, json: unknown) => (await t.api(path, { method: 'POST', headers: admin.headers, json })).body._id as string;
    const banner = await create('/admin/banners', { title: 'Spring sale', link: '/performers' });
    const category = await create('/admin/categories', { name: 'Yoga', group: 'video' });
    const pkg = await create('/admin/packages', { name: 'Monthly plus', type: 'monthly', price: 999, durationDays: 30 });
    const paymentId = newId();
    const orderId = newId();
    const now = nowIso();
    await t.ctx.db
      .insertInto('payments')
      .values({ id: paymentId, userId: fan.id, performerId: performer.id, type: 'products', status: 'success', gateway: 'sandbox', gatewayRef: null, targetId: null, originalPrice: 1500, amount: 1500, currency: 'USD', createdAt: now, updatedAt: now, paidAt: now })
      .execute();
    await t.ctx.db
      .insertInto('orders')
      .values({ id: orderId, orderNumber: 'ORD-JOURNEY', paymentId, buyerId: fan.id, performerId: performer.id, status: 'paid', deliveryStatus: 'created', shippingAddress: '1 Road', trackingCode: null, totalPrice: 1500, createdAt: now, updatedAt: now })
      .execute();

    async function editIn(path: string, details: string, formId: string, fill: (form: ReturnType<Page['getByTestId']>) => Promise<void>) {
      await page.goto(`${t.url}${path}`);
      await page.getByTestId(details).locator('summary').click();
      await hydrated(page, formId);
      // Several AdminForm islands on one page: their field ids stay unique (each island has its own useId prefix).
      const repeatedIds = await page.evaluate(() => {
        const ids = [...document.querySelectorAll('[id]')].map((e) => e.id);
        return ids.filter((id, i) => ids.indexOf(id) !== i);
      });
      expect(repeatedIds).toEqual([]);
      const form = page.getByTestId(formId);
      await fill(form);
      await Promise.all([page.waitForEvent('load'), form.getByTestId(`${formId}-submit`).click()]);
    }

    await editIn('/admin/banners', `banner-edit-${banner}`, `banner-edit-form-${banner}`, async (form) => {
      expect(await form.getByLabel('Title').inputValue()).toBe('Spring sale');
      await form.getByLabel('Title').fill('Summer sale');
      await form.getByLabel('Link (path or URL)').fill('');
    });
    expect(await t.ctx.db.selectFrom('banners').select(['title', 'link']).where('id', '=', banner).executeTakeFirstOrThrow()).toEqual({ title: 'Summer sale', link: null });

    await editIn('/admin/categories', `category-edit-${category}`, `category-edit-form-${category}`, async (form) => {
      await form.getByLabel('Name').fill('Yoga flows');
      await form.getByLabel('Ordering').fill('4');
    });
    expect(await t.ctx.db.selectFrom('categories').select(['name', 'ordering']).where('id', '=', category).executeTakeFirstOrThrow()).toEqual({ name: 'Yoga flows', ordering: 4 });

    await editIn('/admin/packages', `package-edit-${pkg}`, `package-edit-form-${pkg}`, async (form) => {
      expect(await form.getByLabel('Price ($)').inputValue()).toBe('9.99');
      await form.getByLabel('Price ($)').fill('12.99');
      await form.getByLabel('Status').selectOption('inactive');
    });
    expect(await t.ctx.db.selectFrom('subscriptionPackages').select(['price', 'status']).where('id', '=', pkg).executeTakeFirstOrThrow()).toEqual({ price: 1299, status: 'inactive' });

    await editIn('/admin/orders', `order-edit-${orderId}`, `order-delivery-form-${orderId}`, async (form) => {
      await form.getByLabel('Delivery').selectOption('shipping');
      await form.getByLabel('Tracking code').fill('ADMIN-TRACK-1');
    });
    expect(await page.getByTestId(`order-delivery-${orderId}`).textContent()).toContain('ADMIN-TRACK-1');
    expect(await t.ctx.db.selectFrom('orders').select(['deliveryStatus', 'trackingCode']).where('id', '=', orderId).executeTakeFirstOrThrow()).toEqual({ deliveryStatus: 'shipping', trackingCode: 'ADMIN-TRACK-1' });
    await saveScreen(page, 'admin-orders-delivery', { fullPage: true });
    const actions = (await t.ctx.db.selectFrom('auditLog').select('action').where('actorId', '=', admin.id).execute()).map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(['order.delivery']));
  });
});
