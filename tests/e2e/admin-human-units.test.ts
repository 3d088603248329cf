import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { makePackage, makeProduct, makeVideo } from '../../server/seed/factories.js';
import { failedRequest, hasChromium, saveScreen, useBrowser, type ContextOptions } from '../helpers/browser.js';
import { newId, nowIso } from '../../server/db/ids.js';
import { readableTime } from '../../src/lib/local-time.js';
import { LINK_MESSAGE } from '../../common/links.js';

/**
 * The console in human units, as an admin does it in the browser, on a desktop (1366×900) and on a phone (390×844):
 * a coupon typed as 15 % takes 15 % off a fan's checkout; a package priced 4.99 shows $4.99 on the paywall; the menus
 * edited as a list show in the header and footer (a bad address refused beside its row); orders name their buyer,
 * performer and products with links; the audit log says who changed what, in the admin's time zone, and fits the
 * screen; renaming the site renames the header; maintenance mode shows admins a banner on every page while guests get
 * the maintenance page. Screenshots: tests/e2e/screens/admin-units-<viewport>-*.png.
 */
const VIEWPORTS = [
  ['desktop', { width: 1366, height: 900 }],
  ['phone', { width: 390, height: 844 }],
] as const;
/** The admin's browser runs in another time zone than the server's UTC: the audit log must show the admin's. */
const ADMIN_TZ = 'America/New_York';

describe.skipIf(!hasChromium)('admin console in human units, in chromium', () => {
  let t: TestApp;
  const chromium = useBrowser(() => t.url);
  let admin: TestUser;
  let fan: TestUser;
  let performer: TestUser;
  /** A performer without prices of their own: their paywall shows the site's monthly package price. */
  let plain: TestUser;
  let lockedVideoId: string;
  let monthlyPackageId: string;
  let product: { id: string; name: string; price: number };

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true });
    const db = t.ctx.db;
    admin = await createUser(db, 'admin', { name: 'Ada Admin' });
    fan = await createUser(db, 'user', { name: 'Fiona Fan' });
    performer = await createUser(db, 'performer', { name: 'Pia Performer' });
    plain = await createUser(db, 'performer', { name: 'Paul Plain' });
    lockedVideoId = (await makeVideo(t.ctx, plain.id, { title: 'Members only clip', access: 'subscribers' })).id;
    const mug = await makeProduct(t.ctx, performer.id, { name: 'Stage mug', type: 'physical', price: 2000, stock: 50 });
    product = { id: mug.id, name: mug.name, price: 2000 };
    monthlyPackageId = (await makePackage(db, { name: 'Monthly', type: 'monthly', price: 999, durationDays: 30 })).id;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  describe.each(VIEWPORTS)('on a %s', (vp, viewport) => {
    const tag = vp === 'desktop' ? 'D' : 'P';
    const shot = (p: Page, name: string) => saveScreen(p, `admin-units-${vp}-${name}`, { fullPage: true });
    let adminCtx: BrowserContext;
    let page: Page;

    const contextFor = (user: TestUser | undefined, extra: ContextOptions = {}) => chromium.context({ as: user, viewport, locale: 'en-US', ...extra });
    const hydrated = (p: Page, testId: string) =>
      p.waitForFunction((id) => {
        const el = document.querySelector(`[data-testid="${id}"]`)?.closest('astro-island');
        return el !== null && el !== undefined && !el.hasAttribute('ssr');
      }, testId, { timeout: 15_000 });
    /** Submits a console form; the page reloads when the change is saved. */
    const submit = (p: Page, testId: string) => Promise.all([p.waitForEvent('load'), p.getByTestId(`${testId}-submit`).click()]);
    /** The document is no wider than the screen: nothing scrolls sideways. */
    const fits = (p: Page) => p.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth }));

    beforeAll(async () => {
      adminCtx = await contextFor(admin, { timezoneId: ADMIN_TZ });
      page = await adminCtx.newPage();
      // Each viewport starts from the same package price, so its own journey is what changes it.
      await t.ctx.db.updateTable('subscriptionPackages').set({ price: 999 }).where('id', '=', monthlyPackageId).execute();
    });
    afterAll(async () => {
      await adminCtx?.close();
    });

    it('creates a coupon typed as 15 %, and a fan\'s checkout total drops by 15 %', async () => {
      const code = `SAVE15${tag}`;
      await page.goto(`${t.url}/admin/coupons`);
      await hydrated(page, 'coupon-form');
      const form = page.getByTestId('coupon-form');
      await form.getByLabel('Code').fill(code);
      await form.getByLabel('Name').fill(`Fifteen off ${vp}`);
      // More precision than a basis point is refused in words, before anything is sent.
      await form.getByLabel('Discount (%)').fill('15.555');
      await form.getByTestId('coupon-form-submit').click();
      await expect.poll(() => form.getByRole('alert').first().textContent()).toBe('Use at most two decimals, like 12.5');
      expect(await t.ctx.db.selectFrom('coupons').select('id').where('code', '=', code).executeTakeFirst()).toBeUndefined();
      await form.getByLabel('Discount (%)').fill('15');
      await form.getByLabel('Number of uses').fill('10');
      await submit(page, 'coupon-form');
      const row = await t.ctx.db.selectFrom('coupons').selectAll().where('code', '=', code).executeTakeFirstOrThrow();
      expect(row.valueBps).toBe(1500);
      const tableRow = page.getByTestId('coupons-table').locator('tr', { hasText: code });
      expect(await tableRow.textContent()).toContain('15 %');
      await shot(page, 'coupons');

      const cart = { total: 1, items: [{ _id: product.id, quantity: 1, name: product.name, price: product.price, type: 'physical' }] };
      const fanCtx = await contextFor(fan, { localStorage: { cart: JSON.stringify(cart) } });
      const fanPage = await fanCtx.newPage();
      await fanPage.goto(`${t.url}/checkout`);
      await hydrated(fanPage, 'checkout-form');
      await expect.poll(() => fanPage.getByTestId('checkout-total').textContent()).toBe('$20.00');
      await fanPage.getByTestId('coupon-code').fill(code.toLowerCase());
      await fanPage.getByTestId('coupon-apply').click();
      // 15 % of $20.00 is $3.00.
      await expect.poll(() => fanPage.getByTestId('checkout-total').textContent()).toBe('$17.00');
      expect(await fanPage.getByTestId('coupon-applied').textContent()).toContain('15 % off');
      await shot(fanPage, 'coupon-checkout');
      await fanCtx.close();
    }, 60_000);

    it('prices the monthly package at 4.99 and the paywall says $4.99', async () => {
      await page.goto(`${t.url}/admin/packages`);
      await page.getByTestId(`package-edit-${monthlyPackageId}`).locator('summary').click();
      const formId = `package-edit-form-${monthlyPackageId}`;
      await hydrated(page, formId);
      const form = page.getByTestId(formId);
      const price = form.getByLabel('Price ($)');
      // The form starts with money, not cents.
      expect(await price.inputValue()).toBe('9.99');
      await price.fill('4,99');
      await form.getByTestId(`${formId}-submit`).click();
      await expect.poll(() => form.getByRole('alert').first().textContent()).toBe('Use a dot for decimals, like 4.99');
      await price.fill('');
      await form.getByTestId(`${formId}-submit`).click();
      await expect.poll(() => form.getByRole('alert').first().textContent()).toBe('Enter an amount like 4.99');
      expect((await t.ctx.db.selectFrom('subscriptionPackages').select('price').where('id', '=', monthlyPackageId).executeTakeFirstOrThrow()).price).toBe(999);
      await price.fill('4.99');
      await Promise.all([page.waitForEvent('load'), form.getByTestId(`${formId}-submit`).click()]);
      expect((await t.ctx.db.selectFrom('subscriptionPackages').select('price').where('id', '=', monthlyPackageId).executeTakeFirstOrThrow()).price).toBe(499);
      expect(await page.locator('tr', { hasText: 'Monthly' }).first().textContent()).toContain('$4.99');
      await shot(page, 'packages');

      const guestCtx = await contextFor(undefined);
      const guest = await guestCtx.newPage();
      await guest.goto(`${t.url}/videos/${lockedVideoId}`);
      expect(await guest.getByTestId('subscribe-monthly').textContent()).toBe('Subscribe · $4.99/month');
      await shot(guest, 'paywall');
      await guestCtx.close();
    }, 60_000);

    it('edits the menus as a list: a bad address is refused beside its row; the header and footer show the links', async () => {
      const label = `Deals ${tag}`;
      const footerLabel = `Imprint ${tag}`;
      await page.goto(`${t.url}/admin/settings#menus`);
      await hydrated(page, 'menu-editor');
      const header = page.getByTestId('menu-editor-header');
      const rowsBefore = await header.getByTestId('menu-editor-header-row').count();
      await page.getByTestId('menu-editor-add-header').click();
      const added = header.getByTestId('menu-editor-header-row').last();
      await added.getByLabel('Label').fill(label);
      await added.getByLabel('Address (URL)').fill('javascript:alert(1)');
      await page.getByTestId('menu-editor-submit').click();
      await expect.poll(() => added.getByRole('alert').textContent()).toBe(LINK_MESSAGE);
      await shot(page, 'menu-refused');
      await added.getByLabel('Address (URL)').fill('/performers');
      // Moved up one place: it goes before the last link that was there.
      await added.getByRole('button', { name: `Move header link ${rowsBefore + 1} up` }).click();
      // The Store link goes.
      const store = header.getByTestId('menu-editor-header-row').filter({ has: page.locator('input[name="title"][value="Store"]') });
      if (await store.count()) await store.getByRole('button', { name: /^Remove/ }).click();
      await page.getByTestId('menu-editor-add-footer').click();
      const footerRow = page.getByTestId('menu-editor-footer-row').last();
      await footerRow.getByLabel('Label').fill(footerLabel);
      await footerRow.getByLabel('Address (URL)').fill('/contact');
      await footerRow.getByLabel('Opens in a new tab').check();
      await submit(page, 'menu-editor');
      const menus = (await t.api('/settings/public')).body.menus as Array<{ title: string; path: string; section: string; ordering: number; isNewTab?: boolean }>;
      const headerTitles = menus.filter((m) => m.section === 'header').sort((a, b) => a.ordering - b.ordering).map((m) => m.title);
      expect(headerTitles.at(-2)).toBe(label);
      expect(headerTitles).not.toContain('Store');
      expect(menus).toContainEqual(expect.objectContaining({ title: footerLabel, path: '/contact', section: 'footer', isNewTab: true }));
      await shot(page, 'menu-editor');

      const guestCtx = await contextFor(undefined);
      const guest = await guestCtx.newPage();
      await guest.goto(`${t.url}/`);
      if (vp === 'phone') await guest.getByTestId('site-menu-button').click();
      const link = guest.locator('header nav a', { hasText: label });
      expect(await link.isVisible()).toBe(true);
      expect(await link.getAttribute('href')).toBe('/performers');
      expect(await guest.locator('header nav a', { hasText: 'Store' }).count()).toBe(0);
      const footerLink = guest.locator('footer a', { hasText: footerLabel });
      expect(await footerLink.getAttribute('href')).toBe('/contact');
      expect(await footerLink.getAttribute('target')).toBe('_blank');
      await shot(guest, 'menu-guest');
      await guestCtx.close();
    }, 60_000);

    it('shows orders and payments with the buyer, performer and item by name, linked', async () => {
      const db = t.ctx.db;
      const paymentId = newId();
      const orderId = newId();
      const orderNumber = `ORD-NAMES-${tag}`;
      const now = nowIso();
      await db
        .insertInto('payments')
        .values({ id: paymentId, userId: fan.id, performerId: performer.id, type: 'products', status: 'success', gateway: 'sandbox', gatewayRef: null, targetId: null, originalPrice: 4000, amount: 4000, currency: 'USD', createdAt: now, updatedAt: now, paidAt: now })
        .execute();
      await db.insertInto('paymentItems').values({ id: newId(), paymentId, objectType: 'product', objectId: product.id, performerId: performer.id, quantity: 2, unitPrice: 2000 }).execute();
      await db
        .insertInto('orders')
        .values({ id: orderId, orderNumber, paymentId, buyerId: fan.id, performerId: performer.id, status: 'paid', deliveryStatus: 'created', shippingAddress: '1 Road', trackingCode: null, totalPrice: 4000, createdAt: now, updatedAt: now })
        .execute();
      await db.insertInto('orderItems').values({ id: newId(), orderId, productId: product.id, name: product.name, productType: 'physical', quantity: 2, unitPrice: 2000, totalPrice: 4000 }).execute();

      await page.goto(`${t.url}/admin/orders?q=${orderNumber}`);
      const row = page.getByTestId(`order-row-${orderId}`);
      const buyer = row.getByTestId('order-buyer').getByRole('link', { name: 'Fiona Fan' });
      expect(await buyer.getAttribute('href')).toBe(`/admin/users?q=${fan.username}`);
      expect(await row.getByTestId('order-performer').getByRole('link', { name: 'Pia Performer' }).getAttribute('href')).toBe(`/performers/${performer.username}`);
      expect(await row.getByTestId('order-item').getByRole('link', { name: product.name }).getAttribute('href')).toBe(`/products/${product.id}`);
      // No bare ids where a name belongs.
      expect(await row.textContent()).not.toContain(fan.id);
      expect(await row.textContent()).not.toContain(performer.id);
      await shot(page, 'orders');
      await Promise.all([page.waitForURL(`**/admin/users?q=${fan.username}`), buyer.click()]);
      expect(await page.getByTestId('users-table').getByText(fan.email).count()).toBe(1);

      await page.goto(`${t.url}/admin/payments?q=${paymentId}`);
      const pay = page.getByTestId(`payment-row-${paymentId}`);
      expect(await pay.getByTestId('payment-user').getByRole('link', { name: 'Fiona Fan' }).getAttribute('href')).toBe(`/admin/users?q=${fan.username}`);
      expect(await pay.getByTestId('payment-performer').getByRole('link', { name: 'Pia Performer' }).count()).toBe(1);
      expect(await pay.getByTestId('payment-item').getByRole('link', { name: product.name }).getAttribute('href')).toBe(`/products/${product.id}`);
      // "only theirs" narrows the list to the buyer.
      await Promise.all([page.waitForEvent('load'), pay.getByTestId('payment-user').getByRole('link', { name: 'only theirs' }).click()]);
      expect(new URL(page.url()).searchParams.get('userId')).toBe(fan.id);
      await shot(page, 'payments');

      await page.goto(`${t.url}/admin/content?type=product&q=${encodeURIComponent(product.name)}`);
      expect(await page.getByTestId('content-table').getByTestId('content-performer').first().getByRole('link', { name: 'Pia Performer' }).count()).toBe(1);
      expect(await page.getByTestId('content-table').getByTestId('content-item').first().getByRole('link').getAttribute('href')).toBe(`/products/${product.id}`);
      await page.goto(`${t.url}/admin/earnings`);
      await shot(page, 'earnings');
    }, 60_000);

    it('reads the audit log: who, what in words, on what (linked), when in the admin\'s time zone, details expandable; it fits the screen', async () => {
      // A long value without spaces must wrap, not widen the page.
      const longName = `Long${'x'.repeat(96)}`;
      const res = await t.api('/admin/coupons', { method: 'POST', headers: admin.headers, json: { code: `LONG${tag}`, name: longName, valueBps: 500, maxUses: 1 } });
      expect(res.status).toBe(201);

      await page.goto(`${t.url}/admin/audit`);
      const entry = page.locator('[data-testid="audit-entry"][data-action="package.update"]').first();
      expect(await entry.getByTestId('audit-actor').textContent()).toBe('Ada Admin');
      expect(await entry.getByTestId('audit-actor').getByRole('link').getAttribute('href')).toBe(`/admin/users?q=${admin.username}`);
      expect(await entry.getByTestId('audit-verb').textContent()).toBe('changed the package');
      expect(await entry.getByTestId('audit-target').textContent()).toBe('Monthly');
      expect(await entry.getByTestId('audit-target').getAttribute('href')).toBe('/admin/packages');
      // When: in the admin's zone (New York), not the server's UTC.
      const time = entry.locator('time');
      await expect.poll(() => time.getAttribute('data-local-time')).toBe('local');
      const iso = (await time.getAttribute('datetime'))!;
      expect(await time.textContent()).toBe(readableTime(iso, { locale: 'en-US', timeZone: ADMIN_TZ }));
      // Details: closed at first, then labelled values in site units.
      const details = entry.getByTestId('audit-details');
      expect(await details.locator('dd').first().isVisible()).toBe(false);
      await details.locator('summary').click();
      expect(await details.locator('dt', { hasText: 'Price' }).count()).toBe(1);
      expect(await details.locator('dd', { hasText: '$4.99' }).isVisible()).toBe(true);

      const coupon = page.locator('[data-testid="audit-entry"][data-action="coupon.create"]', { hasText: `SAVE15${tag}` }).first();
      expect(await coupon.getByTestId('audit-verb').textContent()).toBe('created the coupon');
      expect(await coupon.getByTestId('audit-target').getAttribute('href')).toBe(`/admin/coupons?q=SAVE15${tag}`);
      await coupon.getByTestId('audit-details').locator('summary').click();
      expect(await coupon.getByTestId('audit-details').locator('dd', { hasText: '15 %' }).count()).toBe(1);

      const menus = page.locator('[data-testid="audit-entry"][data-action="settings.update"]').first();
      expect((await menus.locator('.audit-entry__what').textContent())?.replace(/\s+/g, ' ').trim()).toBe('Ada Admin changed the site settings');
      await menus.getByTestId('audit-details').locator('summary').click();
      expect(await menus.getByTestId('audit-details').textContent()).toContain(`Deals ${tag} → /performers (header)`);

      // Open every entry's details, the long one included: the page still fits, and so does every entry.
      await page.locator('[data-testid="audit-details"]').evaluateAll((els) => els.forEach((d) => ((d as HTMLDetailsElement).open = true)));
      const size = await fits(page);
      expect(size.scroll, `audit log ${size.scroll} px wide at ${size.width}`).toBeLessThanOrEqual(size.width);
      const wide = await page.locator('[data-testid="audit-entry"]').evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth + 1).length);
      expect(wide).toBe(0);
      expect(await page.locator('[data-testid="audit-entry"]', { hasText: longName }).count()).toBeGreaterThan(0);
      await shot(page, 'audit');
    }, 60_000);

    it('renames the site: the header of every page says the new name as text', async () => {
      const name = `Stage ${vp}`;
      await page.goto(`${t.url}/admin/settings`);
      await hydrated(page, 'settings-form');
      await page.getByTestId('settings-form').getByLabel('Site name').fill(name);
      await submit(page, 'settings-form');
      const guestCtx = await contextFor(undefined);
      const guest = await guestCtx.newPage();
      for (const path of ['/', '/videos', '/auth/login']) {
        await guest.goto(`${t.url}${path}`);
        expect(await guest.getByTestId('site-name').textContent(), path).toBe(name);
        expect(await guest.getByTestId('site-name').isVisible(), path).toBe(true);
        // The logo beside it is decorative: the name is the text, never only a picture.
        expect(await guest.getByTestId('site-logo').getAttribute('alt')).toBe('');
        expect(await guest.getByTestId('site-brand').getAttribute('href')).toBe('/');
      }
      expect(await guest.title()).toContain(name);
      await guest.goto(`${t.url}/`);
      if (vp === 'phone') {
        // The name shares the row with the menu button: a longer name is cut, it does not push the buttons down.
        const brand = (await guest.getByTestId('site-name').boundingBox())!;
        const button = (await guest.getByTestId('site-menu-button').boundingBox())!;
        expect(Math.abs(brand.y + brand.height / 2 - (button.y + button.height / 2))).toBeLessThan(8);
      }
      await shot(guest, 'site-name');
      // The default logo is the mark alone: no site name drawn into the picture.
      const logo = await (await fetch(`${t.url}/logo.svg`)).text();
      expect(logo).not.toMatch(/<text/);
      await guestCtx.close();
    }, 60_000);

    it('maintenance on: the admin sees a banner on every page with a link to the setting, guests the maintenance page', async () => {
      // The maintenance page answers 503 to the guest and the fan.
      chromium.expectErrors(failedRequest(503, '/'));
      await page.goto(`${t.url}/admin/settings`);
      await hydrated(page, 'maintenance-form');
      expect(await page.getByTestId('maintenance-banner').count()).toBe(0);
      await page.getByTestId('maintenance-form').getByLabel('Maintenance mode').check();
      await submit(page, 'maintenance-form');
      for (const path of ['/admin/settings', '/', `/videos/${lockedVideoId}`, '/account/profile']) {
        await page.goto(`${t.url}${path}`);
        const banner = page.getByTestId('maintenance-banner');
        expect(await banner.isVisible(), path).toBe(true);
        expect(await banner.textContent(), path).toContain('Maintenance mode is on');
        const size = await fits(page);
        expect(size.scroll, path).toBeLessThanOrEqual(size.width);
      }
      await page.goto(`${t.url}/`);
      await shot(page, 'maintenance-admin');

      const guestCtx = await contextFor(undefined);
      const guest = await guestCtx.newPage();
      const res = await guest.goto(`${t.url}/`);
      expect(res?.status()).toBe(503);
      expect(await guest.locator('body.layout-maintenance').count()).toBe(1);
      expect(await guest.getByTestId('maintenance-banner').count()).toBe(0);
      await shot(guest, 'maintenance-guest');
      // A fan is a visitor too: no banner, the maintenance page.
      const fanCtx = await contextFor(fan);
      const fanPage = await fanCtx.newPage();
      expect((await fanPage.goto(`${t.url}/`))?.status()).toBe(503);
      expect(await fanPage.getByTestId('maintenance-banner').count()).toBe(0);
      await fanCtx.close();

      // The banner's link leads to the setting; switching it off removes the banner and reopens the site.
      await Promise.all([page.waitForURL('**/admin/settings#maintenance'), page.getByTestId('maintenance-banner-link').click()]);
      await hydrated(page, 'maintenance-form');
      await page.getByTestId('maintenance-form').getByLabel('Maintenance mode').uncheck();
      await submit(page, 'maintenance-form');
      expect(await page.getByTestId('maintenance-banner').count()).toBe(0);
      expect((await guest.goto(`${t.url}/`))?.status()).toBe(200);
      await guestCtx.close();
    }, 60_000);
  });
});
