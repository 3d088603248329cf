import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { failedRequest, hasChromium, saveScreen, useBrowser, waitForIsland } from '../helpers/browser.js';
import { linkToken, MailCatcher } from '../helpers/mail-catcher.js';

/** A real SMTP server receives the site's mail; the journey follows the link of the mail a step sent. */
const catcher = new MailCatcher();

/** The link to `pathname` in the first mail to `to` whose subject matches, received after `since`. */
async function mailedLink(t: TestApp, to: string, subject: RegExp, pathname: string, since: number): Promise<string> {
  const mail = await catcher.waitFor(to, subject, since, 10_000);
  const token = linkToken(mail.text, t.url, pathname);
  return `${t.url}${pathname}?token=${encodeURIComponent(token)}`;
}

describe.skipIf(!hasChromium)('accounts journey in chromium', () => {
  let t: TestApp;
  const chromium = useBrowser(() => t.url);
  let context: BrowserContext;
  let page: Page;
  const email = 'journey.fan@example.com';

  const hydrated = (island: string) => waitForIsland(page, island);

  beforeAll(async () => {
    await catcher.start();
    t = await startTestApp('sqlite', { web: true, env: { SMTP_URL: catcher.smtpUrl } });
    context = await chromium.context();
    page = await context.newPage();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await catcher.stop();
  });

  it('registers, verifies the email from the mailed link and logs in without remember-me', async () => {
    // Refused on purpose: a password against the policy, then a wrong password.
    chromium.expectErrors(failedRequest(400, '/api/auth/users/register'), failedRequest(400, '/api/auth/login'));
    await page.goto(`${t.url}/auth/register`);
    await hydrated('RegisterForm');
    await page.getByLabel('Name', { exact: true }).fill('Journey Fan');
    await page.getByLabel('Username').fill('journeyfan');
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill('onlyletters');
    await page.getByLabel('Confirm password').fill('onlyletters');
    await page.getByLabel('I am 18 years old or older').check();
    await page.getByTestId('register-terms').check();
    await page.getByTestId('register-submit').click();
    // The password policy is explained, and nothing is created.
    await expect.poll(() => page.getByRole('alert').count()).toBeGreaterThan(0);
    expect(await t.ctx.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst()).toBeUndefined();

    await page.getByLabel('Password', { exact: true }).fill('journey-pass-1');
    await page.getByLabel('Confirm password').fill('journey-pass-1');
    const sinceRegister = catcher.mark();
    await page.getByTestId('register-submit').click();
    await expect.poll(() => page.getByTestId('form-success').count()).toBe(1);

    const verify = await mailedLink(t, email, /verify your email/i, '/auth/verify-email', sinceRegister);
    await page.goto(verify);
    await expect.poll(() => page.getByTestId('verify-email-success').count()).toBe(1);
    const row = await t.ctx.db.selectFrom('users').select('emailVerified').where('email', '=', email).executeTakeFirstOrThrow();
    expect(row.emailVerified).toBe(1);

    await page.goto(`${t.url}/auth/login`);
    await hydrated('LoginForm');
    await page.getByLabel('Email or username').fill(email);
    await page.getByLabel('Password').fill('wrong-password-9');
    await page.getByTestId('login-submit').click();
    await expect.poll(() => page.getByTestId('toast').first().textContent()).toContain('Incorrect credentials!');

    await page.getByLabel('Password').fill('journey-pass-1');
    await page.getByLabel('Keep me logged in').uncheck();
    await page.getByTestId('login-submit').click();
    await page.waitForURL('**/home');
    const cookie = (await context.cookies()).find((c) => c.name === 'token');
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe('Lax');
    // Remember-me off: the cookie lives one day.
    const days = (cookie!.expires * 1000 - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(0.9);
    expect(days).toBeLessThan(1.1);
    // Page scripts never see the token.
    expect(await page.evaluate(() => document.cookie)).not.toContain('token=');
    // The home feed is the member shell: the menu names the user once the header's request has answered.
    await hydrated('UserMenu');
    await expect.poll(() => page.getByTestId('user-menu').textContent()).toContain('Journey Fan');
  }, 60_000);

  it('updates the profile and the avatar, and changes the password', async () => {
    // Refused on purpose: a file that is not an image, then a wrong current password.
    chromium.expectErrors(failedRequest(400, '/api/users/avatar/upload'), failedRequest(400, '/api/auth/users/me/password'));
    await page.goto(`${t.url}/account/profile`);
    await hydrated('ProfileForm');
    await saveScreen(page, 'account-profile', { fullPage: true });
    await page.getByLabel('Bio').fill('Here for the journey');
    await page.getByTestId('profile-submit').click();
    await expect.poll(() => page.getByTestId('toast').last().textContent()).toContain('updated');
    const saved = await t.ctx.db.selectFrom('users').select('bio').where('email', '=', email).executeTakeFirstOrThrow();
    expect(saved.bio).toBe('Here for the journey');

    await hydrated('AvatarUpload');
    const png = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#7b5cff' } }).png().toBuffer();
    await page.getByTestId('avatar-input').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: png });
    await page.getByTestId('avatar-submit').click();
    await expect.poll(() => page.getByTestId('avatar-preview').getAttribute('src')).toContain('/media/public/');
    const avatarUrl = (await page.getByTestId('avatar-preview').getAttribute('src'))!;
    const avatar = await page.request.get(new URL(avatarUrl, t.url).href);
    expect(avatar.status()).toBe(200);
    expect(await sharp(await avatar.body()).metadata()).toMatchObject({ width: 256, height: 256, format: 'webp' });
    // Content is sniffed: a text file named .png is refused with a message.
    await page.getByTestId('avatar-input').setInputFiles({ name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('not an image') });
    await page.getByTestId('avatar-submit').click();
    await expect.poll(() => page.locator('[data-testid="avatar-upload"] [role="alert"]').count()).toBe(1);

    await page.goto(`${t.url}/account/password`);
    await hydrated('PasswordForm');
    await page.getByLabel('Current password').fill('not-my-password-1');
    await page.getByLabel('New password', { exact: true }).fill('journey-pass-2');
    await page.getByLabel('Confirm new password').fill('journey-pass-2');
    await page.getByTestId('password-submit').click();
    await expect.poll(() => page.getByTestId('form-error').count()).toBe(1);
    await page.getByLabel('Current password').fill('journey-pass-1');
    await page.getByTestId('password-submit').click();
    await expect.poll(() => page.getByTestId('form-success').count()).toBe(1);
    await saveScreen(page, 'accounts-password');
  }, 60_000);

  it('logs out: the session ends on the server and protected pages send the visitor to login', async () => {
    const token = (await context.cookies()).find((c) => c.name === 'token')!.value;
    await page.goto(`${t.url}/home`);
    await hydrated('UserMenu');
    await page.getByTestId('user-menu-toggle').click();
    await page.getByTestId('logout').click();
    await page.waitForURL('**/auth/login');
    await expect.poll(() => page.getByTestId('toast').first().textContent()).toContain('Log out!');
    expect((await context.cookies()).find((c) => c.name === 'token')).toBeUndefined();
    // The old token is dead server-side, not just forgotten by the browser.
    expect((await t.api('/users/me', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);

    // A stale cookie on a protected page is cleared and the visitor sent to /auth/login?next=.
    await context.addCookies([{ name: 'token', value: token, url: t.url }]);
    await page.goto(`${t.url}/account/profile`);
    expect(new URL(page.url()).pathname).toBe('/auth/login');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/account/profile');
    expect((await context.cookies()).find((c) => c.name === 'token')).toBeUndefined();
  }, 60_000);

  it('resets a forgotten password from the mailed link, once', async () => {
    // Refused on purpose: the link used a second time.
    chromium.expectErrors(failedRequest(400, '/api/auth/users/reset-password'));
    await page.goto(`${t.url}/auth/forgot-password`);
    await hydrated('ForgotPasswordForm');
    await page.getByLabel('Email').fill(email);
    const sinceForgot = catcher.mark();
    await page.getByTestId('forgot-submit').click();
    await expect.poll(() => page.getByTestId('form-success').count()).toBe(1);

    const reset = await mailedLink(t, email, /reset your/i, '/auth/reset-password', sinceForgot);
    await page.goto(reset);
    await hydrated('ResetPasswordForm');
    await page.getByLabel('New password', { exact: true }).fill('journey-pass-3');
    await page.getByLabel('Confirm new password').fill('journey-pass-3');
    await page.getByTestId('reset-password-submit').click();
    await expect.poll(() => page.getByTestId('form-success').count()).toBe(1);

    // The link is single use.
    await page.goto(reset);
    await hydrated('ResetPasswordForm');
    await page.getByLabel('New password', { exact: true }).fill('journey-pass-4');
    await page.getByLabel('Confirm new password').fill('journey-pass-4');
    await page.getByTestId('reset-password-submit').click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/already been used/);

    await page.goto(`${t.url}/auth/login?next=/account/profile`);
    await hydrated('LoginForm');
    await page.getByLabel('Email or username').fill('journeyfan');
    await page.getByLabel('Password').fill('journey-pass-3');
    await page.getByTestId('login-submit').click();
    await page.waitForURL('**/account/profile');
  }, 60_000);
});
