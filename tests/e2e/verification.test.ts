import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { hasChromium, saveScreen, useBrowser, waitForIsland } from '../helpers/browser.js';
import { createSession, createUser, type TestUser } from '../helpers/sessions.js';

/**
 * Identity verification in chromium (docs/product.md, Verification): a new performer signs up on a phone, is told by
 * the studio's banner to verify, sends the form with its three pictures; an admin, in a browser of their own, sees
 * the pictures in the console and rejects with a reason; the performer reads the reason and sends again; the admin
 * approves; the performer publishes a post.
 */
describe.skipIf(!hasChromium)('identity verification in chromium', () => {
  let t: TestApp;
  let admin: TestUser;
  let picture: Buffer;
  const chromium = useBrowser(() => t.url);
  const noSideScroll = (p: Page) => p.evaluate((width) => document.documentElement.scrollWidth <= width, p.viewportSize()!.width);

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true });
    admin = await createUser(t.ctx.db, 'admin', { name: 'Reviewing Admin' });
    picture = await sharp({ create: { width: 120, height: 80, channels: 3, background: { r: 40, g: 120, b: 200 } } }).jpeg().toBuffer();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  const fillForm = async (page: Page, o: { legalName: string; country: string }) => {
    await waitForIsland(page, 'VerificationForm');
    await page.getByLabel('Legal name (as on the document)').fill(o.legalName);
    await page.getByLabel('Date of birth').fill('1994-07-21');
    await page.getByLabel('Country that issued the document').selectOption(o.country);
    for (const field of ['documentFront', 'documentBack', 'selfie']) {
      await page.getByTestId(`verification-${field}`).setInputFiles({ name: `${field}.jpg`, mimeType: 'image/jpeg', buffer: picture });
    }
    await page.getByTestId('verification-submit').click();
    await expect.poll(() => page.getByTestId('verification').getAttribute('data-status'), { timeout: 15_000 }).toBe('pending');
  };

  /** The admin's console, in a browser context of its own, opening the performer's pending verification. */
  const review = async (username: string) => {
    const page = await chromium.page({ as: admin });
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${t.url}/admin/verifications`);
    const row = page.locator(`[data-testid="verification-row"][data-performer="${username}"][data-status="pending"]`);
    expect(await row.count()).toBe(1);
    await row.getByTestId('verification-open').click();
    await page.waitForURL('**/admin/verifications?id=*');
    // The pictures load (signed for this admin), and the facts are there.
    for (const kind of ['documentFront', 'documentBack', 'selfie']) {
      const img = page.getByTestId(`verification-image-${kind}`);
      await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth), { timeout: 10_000 }).toBe(120);
    }
    return page;
  };

  it('signs up, verifies, is rejected with a reason, sends again, is approved and publishes', async () => {
    // Sign up as a performer on a phone.
    const page = await chromium.page({ as: null, phone: true });
    await page.goto(`${t.url}/auth/register`);
    await waitForIsland(page, 'RegisterForm');
    await page.getByLabel('Name', { exact: true }).fill('Vera Verified');
    await page.getByLabel('Username').fill('veraverified');
    await page.getByLabel('Email', { exact: true }).fill('vera@example.test');
    await page.getByLabel('Password', { exact: true }).fill('vera-pass-123');
    await page.getByLabel('Confirm password').fill('vera-pass-123');
    await page.getByLabel('a performer').check();
    await page.getByLabel('I am 18 years old or older').check();
    await page.getByTestId('register-terms').check();
    await page.getByTestId('register-submit').click();
    await expect.poll(() => page.getByTestId('form-success').count()).toBe(1);
    const user = await t.ctx.db.selectFrom('users').select(['id', 'role']).where('email', '=', 'vera@example.test').executeTakeFirstOrThrow();
    expect(user.role).toBe('performer');
    // The email link is the accounts suite's journey; here the address counts as confirmed and the session is given.
    await t.ctx.db.updateTable('users').set({ emailVerified: 1 }).where('id', '=', user.id).execute();
    await page.context().addCookies([{ name: 'token', value: await createSession(t.ctx.db, user.id), url: t.url }]);

    // The studio's banner sends the new performer to verify.
    await page.goto(`${t.url}/studio`);
    expect(await page.getByTestId('studio-pending-approval').textContent()).toContain('Verify your identity');
    await page.getByTestId('studio-verification-link').click();
    await page.waitForURL('**/studio/verification');
    expect(await page.getByTestId('verification').getAttribute('data-status')).toBe('none');
    expect(await noSideScroll(page)).toBe(true);
    await saveScreen(page, 'verification-form-phone', { fullPage: true });
    await fillForm(page, { legalName: 'Vera Quinn Verified', country: 'IE' });
    expect(await page.getByTestId('verification-state').textContent()).toContain('waiting for an admin');
    await expect.poll(() => page.getByTestId('upload-progress').count()).toBe(0);

    // The admin rejects, with a reason.
    const console1 = await review('veraverified');
    expect(await console1.getByTestId('verification-legal-name').textContent()).toBe('Vera Quinn Verified');
    expect(await console1.getByTestId('verification-dob').textContent()).toBe('1994-07-21');
    await saveScreen(console1, 'verification-review');
    await console1.getByTestId('verification-reject').getByLabel('Reason (the performer reads it)').fill('The selfie does not show the document');
    await console1.getByTestId('verification-reject-submit').click();
    await expect.poll(() => console1.getByTestId('verification-detail').getAttribute('data-status'), { timeout: 10_000 }).toBe('rejected');
    await console1.context().close();

    // The performer reads why and sends again.
    await page.reload();
    expect(await page.getByTestId('verification').getAttribute('data-status')).toBe('rejected');
    expect(await page.getByTestId('verification-reason').textContent()).toBe('The selfie does not show the document');
    await fillForm(page, { legalName: 'Vera Quinn Verified', country: 'IE' });

    // The admin approves.
    const console2 = await review('veraverified');
    await waitForIsland(console2, 'AdminAction');
    await console2.getByTestId('verification-approve').click();
    await expect.poll(() => console2.getByTestId('verification-detail').getAttribute('data-status'), { timeout: 10_000 }).toBe('approved');
    // The performers list says so.
    await console2.goto(`${t.url}/admin/performers?q=veraverified`);
    expect(await console2.getByTestId('verification-veraverified').textContent()).toContain('verified');
    await console2.context().close();
    expect((await t.ctx.db.selectFrom('performers').select('approved').where('id', '=', user.id).executeTakeFirstOrThrow()).approved).toBe(1);

    // Approved: no banner, and a post is published at once.
    await page.goto(`${t.url}/studio/posts`);
    expect(await page.getByTestId('studio-pending-approval').count()).toBe(0);
    await waitForIsland(page, 'StudioPosts');
    await page.getByLabel('Title', { exact: true }).fill('Hello, verified world');
    await page.getByLabel('Text', { exact: true }).fill('My first post as a verified performer.');
    await page.getByTestId('post-save').click();
    await expect.poll(() => page.getByTestId('studio-post').count(), { timeout: 10_000 }).toBe(1);
    const post = await t.ctx.db.selectFrom('posts').select(['id', 'status']).where('performerId', '=', user.id).executeTakeFirstOrThrow();
    expect(post.status).toBe('published');
    expect((await t.api(`/posts/${post.id}`)).status).toBe(200);
  }, 120_000);
});
