import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { failedRequest, hasChromium, saveScreen, useBrowser, waitForIsland } from '../helpers/browser.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { hashPassword } from '../../server/auth/password.js';

/**
 * Messages in their place, on a desktop and a phone: a toast belongs to the page that raised it (the next page does
 * not show it again; only a message handed over on purpose, 'Log out!', shows once on the login page); toasts never
 * cover the header's buttons; the login page greets a first visit normally and says the session has ended only when
 * one did; sign-up asks for 18+ and the terms.
 */
const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const PASSWORD = 'messages-pass-1';

describe.skipIf(!hasChromium)('messages in their place, in chromium', () => {
  let t: TestApp;
  const chromium = useBrowser(() => t.url);
  let fan: TestUser;

  const open = (viewport: { width: number; height: number }, user?: TestUser): Promise<Page> => chromium.page({ as: user, phone: viewport === PHONE, viewport });

  /** Saves the profile's bio: the page raises a "profile updated" toast. */
  async function raiseToast(page: Page, bio: string) {
    await page.goto(`${t.url}/account/profile`);
    await waitForIsland(page, 'ProfileForm');
    await waitForIsland(page, 'Toaster');
    await page.getByLabel('Bio').fill(bio);
    await page.getByTestId('profile-submit').click();
    await expect.poll(() => page.getByTestId('toast').count()).toBe(1);
  }

  /** The header's links, buttons and fields a toast overlaps (empty when none). */
  const coveredHeaderControls = (page: Page) =>
    page.evaluate(() => {
      const overlap = (a: DOMRect, b: DOMRect) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      const toastRects = [...document.querySelectorAll('[data-testid="toast"]')].map((el) => el.getBoundingClientRect());
      const header = document.querySelector('.site-header');
      if (!header || toastRects.length === 0) return ['no header or no toast'];
      return [...header.querySelectorAll('a, button, input, select, [role="button"]')]
        .filter((el) => (el as HTMLElement).offsetParent !== null)
        .filter((el) => toastRects.some((r) => overlap(r, el.getBoundingClientRect())))
        .map((el) => el.outerHTML.slice(0, 80));
    });

  /** Whether the toasts start below the header's bottom edge. */
  const toastsBelowHeader = (page: Page) =>
    page.evaluate(() => {
      const header = document.querySelector('.site-header')!.getBoundingClientRect();
      return [...document.querySelectorAll('[data-testid="toast"]')].every((el) => el.getBoundingClientRect().top >= header.bottom);
    });

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true });
    fan = await createUser(t.ctx.db, 'user', { name: 'Toast Fan' });
    await t.ctx.db.updateTable('users').set({ passwordHash: await hashPassword(PASSWORD) }).where('id', '=', fan.id).execute();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('a toast stays on the page that raised it, below the header and clear of its buttons (desktop)', async () => {
    const page = await open(DESKTOP, fan);
    await raiseToast(page, 'Toast on desktop');
    expect(await page.getByTestId('toast').textContent()).toContain('Your profile has been updated.');
    expect(await coveredHeaderControls(page)).toEqual([]);
    expect(await toastsBelowHeader(page)).toBe(true);
    // Scrolled, the sticky header stays on top and the toast stays below it.
    await page.mouse.wheel(0, 600);
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
    expect(await coveredHeaderControls(page)).toEqual([]);
    await page.evaluate(() => window.scrollTo(0, 0));
    await saveScreen(page, 'toast-desktop');

    // The user moves on while the toast is still showing: the next page does not show it again.
    expect(await page.getByTestId('toast').count()).toBe(1);
    await page.goto(`${t.url}/account/password`);
    await waitForIsland(page, 'Toaster');
    await waitForIsland(page, 'PasswordForm');
    expect(await page.getByTestId('toast').count()).toBe(0);
    expect(await page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.startsWith('toasts')))).toEqual([]);
  }, 60_000);

  it('on a phone toasts sit at the bottom, clear of the header, and do not follow to the next page', async () => {
    const page = await open(PHONE, fan);
    await raiseToast(page, 'Toast on a phone');
    expect(await coveredHeaderControls(page)).toEqual([]);
    const box = (await page.getByTestId('toast').boundingBox())!;
    expect(box.y + box.height).toBeGreaterThan(PHONE.height / 2);
    // Within the layout viewport (a page that is itself too wide at 390 px widens it: that is the phone-layout work).
    const viewportWidth = await page.evaluate(() => window.innerWidth);
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(viewportWidth);
    await saveScreen(page, 'toast-phone');
    await page.goto(`${t.url}/`);
    await waitForIsland(page, 'Toaster');
    expect(await page.getByTestId('toast').count()).toBe(0);
  }, 60_000);

  it("logging out hands 'Log out!' to the login page, which shows it once", async () => {
    const user = await createUser(t.ctx.db, 'user', { name: 'Leaving Fan' });
    const page = await open(DESKTOP, user);
    await page.goto(`${t.url}/home`);
    await waitForIsland(page, 'UserMenu');
    await page.getByTestId('user-menu-toggle').click();
    await page.getByTestId('logout').click();
    await page.waitForURL('**/auth/login');
    await expect.poll(() => page.getByTestId('toast').allTextContents()).toEqual(['Log out!×']);
    await page.reload();
    await waitForIsland(page, 'Toaster');
    await waitForIsland(page, 'LoginForm');
    expect(await page.getByTestId('toast').count()).toBe(0);
  }, 60_000);

  it('the login page greets a first visit normally; only an ended session or a 401 says the session has ended', async () => {
    // The API refuses the ended session on purpose.
    chromium.expectErrors(failedRequest(401, '/api/users'));
    for (const viewport of [DESKTOP, PHONE]) {
      const page = await open(viewport);
      await page.goto(`${t.url}/login`);
      expect(await page.locator('h1').textContent()).toBe('Welcome back');
      expect(await page.getByTestId('session-ended').count()).toBe(0);
      expect(await page.getByText(/session has ended/i).count()).toBe(0);
      await saveScreen(page, viewport === PHONE ? 'login-first-visit-phone' : 'login-first-visit-desktop');
    }

    // A cookie whose session is gone (expired or revoked): the page says so, and clears it.
    const page = await open(DESKTOP);
    await page.context().addCookies([{ name: 'token', value: 'x'.repeat(43), url: t.url, httpOnly: true, sameSite: 'Lax' }]);
    await page.goto(`${t.url}/login`);
    expect(await page.getByTestId('session-ended').count()).toBe(1);
    expect((await page.context().cookies()).find((c) => c.name === 'token')).toBeUndefined();

    // A real 401: the session is revoked while the fan is on a page; their next action sends them to log in again,
    // told why, and back to that page after.
    const user = await createUser(t.ctx.db, 'user', { name: 'Revoked Fan' });
    await t.ctx.db.updateTable('users').set({ passwordHash: await hashPassword(PASSWORD) }).where('id', '=', user.id).execute();
    const signedIn = await open(DESKTOP, user);
    await signedIn.goto(`${t.url}/account/profile`);
    await waitForIsland(signedIn, 'ProfileForm');
    await t.ctx.db.updateTable('sessions').set({ revokedAt: new Date().toISOString() }).where('userId', '=', user.id).execute();
    await signedIn.getByLabel('Bio').fill('After the session ended');
    await signedIn.getByTestId('profile-submit').click();
    await signedIn.waitForURL('**/login?reason=session**');
    expect(new URL(signedIn.url()).searchParams.get('next')).toBe('/account/profile');
    expect(await signedIn.getByTestId('session-ended').textContent()).toContain('Your session has ended');
    await saveScreen(signedIn, 'login-session-ended');
    await waitForIsland(signedIn, 'LoginForm');
    await signedIn.getByLabel('Email or username').fill(user.email);
    await signedIn.getByLabel('Password').fill(PASSWORD);
    await signedIn.getByTestId('login-submit').click();
    await signedIn.waitForURL(`${t.url}/account/profile`);
  }, 90_000);

  it('sign-up asks for 18+ and the terms: without them nothing is created; with them the account records both', async () => {
    for (const [viewport, n] of [[DESKTOP, 1], [PHONE, 2]] as const) {
      const page = await open(viewport);
      await page.goto(`${t.url}/auth/register`);
      await waitForIsland(page, 'RegisterForm');
      const email = `consent${n}@example.com`;
      await page.getByLabel('Name', { exact: true }).fill(`Consent ${n}`);
      await page.getByLabel('Username').fill(`consent_${n}`);
      await page.getByLabel('Email', { exact: true }).fill(email);
      await page.getByLabel('Password', { exact: true }).fill('consent-pass-1');
      await page.getByLabel('Confirm password').fill('consent-pass-1');
      expect(await page.getByRole('link', { name: 'terms of service' }).getAttribute('href')).toBe('/posts/terms');
      await page.getByTestId('register-submit').click();
      await expect.poll(() => page.getByRole('alert').allTextContents()).toEqual(['Please confirm that you are 18 or older', 'Please accept the terms to create an account']);
      expect(await page.getByTestId('register-adult').getAttribute('aria-invalid')).toBe('true');
      await saveScreen(page, viewport === PHONE ? 'register-consent-phone' : 'register-consent-desktop', { fullPage: true });
      expect(await t.ctx.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst()).toBeUndefined();

      await page.getByTestId('register-adult').check();
      await page.getByTestId('register-submit').click();
      await expect.poll(() => page.getByRole('alert').allTextContents()).toEqual(['Please accept the terms to create an account']);
      await page.getByTestId('register-terms').check();
      await page.getByTestId('register-submit').click();
      await expect.poll(() => page.getByTestId('form-success').count()).toBe(1);
      const row = await t.ctx.db.selectFrom('users').select(['termsAcceptedAt', 'adultConfirmedAt']).where('email', '=', email).executeTakeFirstOrThrow();
      expect(row.termsAcceptedAt).toEqual(expect.any(String));
      expect(row.adultConfirmedAt).toEqual(expect.any(String));
    }
  }, 90_000);
});
