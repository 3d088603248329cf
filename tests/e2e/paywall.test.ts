import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { hasChromium, saveScreen, useBrowser, waitForIsland, waitForVideoControls } from '../helpers/browser.js';
import { buildMoneyWorld, type MoneyWorld } from '../helpers/money-fixture.js';
import { makeGallery } from '../../server/seed/factories.js';
import { MailCatcher } from '../helpers/mail-catcher.js';
import { hashPassword } from '../../server/auth/password.js';
import type { TestUser } from '../helpers/sessions.js';

/**
 * The paywall sells, on a desktop and a phone: a locked video or gallery shows the prices on its buttons; a guest's
 * buttons lead to log in or sign up (email verification included) and back to the same page, where the fan pays
 * through the sandbox.
 *
 * The site runs as with PUBLIC_URL unset (its address is the guess http://localhost:PORT) and the browser opens it at
 * 127.0.0.1: every page of the payment journey must stay on 127.0.0.1, where the fan's session cookie lives.
 */
const catcher = new MailCatcher();
const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const FAN_PASSWORD = 'fan-journey-1';

describe.skipIf(!hasChromium)('paywall journeys in chromium', () => {
  let t: TestApp;
  let w: MoneyWorld;
  let gallery: Awaited<ReturnType<typeof makeGallery>>;
  const chromium = useBrowser(() => t.url);

  /** A fresh browser (no cookies, or signed in `as`) at a size; records every top-level address it visits. */
  async function open(viewport: { width: number; height: number }, as?: TestUser): Promise<{ page: Page; visited: string[] }> {
    const page = await chromium.page({ as, phone: viewport === PHONE, viewport });
    const visited: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) visited.push(frame.url());
    });
    return { page, visited };
  }

  async function logIn(page: Page, email: string, password: string) {
    await waitForIsland(page, 'LoginForm');
    await page.getByLabel('Email or username').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByTestId('login-submit').click();
  }

  /** On the provider's page: the amount asked is the price the button showed; approve, and back on the result page. */
  async function payInSandbox(page: Page, amount: string) {
    await page.waitForURL('**/payments/sandbox/**');
    expect(await page.getByTestId('sandbox-amount').textContent()).toBe(amount);
    await waitForIsland(page, 'SandboxPay');
    await page.getByTestId('sandbox-approve').click();
    await page.waitForURL('**/payments/result/**');
    await expect.poll(() => page.getByTestId('payment-result').getAttribute('data-status'), { timeout: 15_000 }).toBe('success');
  }

  /** Whether the page is wider than the screen (something sticks out sideways). */
  const overflows = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);

  beforeAll(async () => {
    await catcher.start();
    t = await startTestApp('sqlite', { web: true, env: { SMTP_URL: catcher.smtpUrl } });
    // What an unset PUBLIC_URL gives: a guess naming another host than the one the browser uses below.
    expect(t.config.publicUrlConfigured).toBe(false);
    t.ctx.config.publicUrl = `http://localhost:${new URL(t.url).port}`;
    expect(new URL(t.url).hostname).toBe('127.0.0.1');
    w = await buildMoneyWorld(t.ctx);
    gallery = await makeGallery(t.ctx, w.perf.id, { title: 'Beach set', access: 'sale', price: 699, photos: 3 });
    await t.ctx.db.updateTable('users').set({ passwordHash: await hashPassword(FAN_PASSWORD) }).where('id', '=', w.fan.id).execute();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await catcher.stop();
  });

  it('a guest sees the prices, logs in from "Subscribe", comes back to the same video and pays without leaving 127.0.0.1 (desktop)', async () => {
    const { page, visited } = await open(DESKTOP);
    const videoPath = `/videos/${w.videos.subsVideo.id}`;
    await page.goto(`${t.url}${videoPath}`);
    expect(await page.getByTestId('subscribe-monthly').textContent()).toBe('Subscribe · $10.00/month');
    expect(await page.getByTestId('subscribe-yearly').textContent()).toBe('Subscribe · $90.00/year');
    // A guest's buttons are plain links to log in, carrying the way back.
    expect(await page.getByTestId('subscribe-monthly').getAttribute('href')).toBe(`/auth/login?next=${encodeURIComponent(videoPath)}`);
    expect(await page.getByTestId('paywall-register').getAttribute('href')).toBe(`/auth/register?next=${encodeURIComponent(videoPath)}`);
    await saveScreen(page, 'paywall-guest-video-desktop');

    await page.getByTestId('subscribe-monthly').click();
    await page.waitForURL('**/auth/login?next=**');
    expect(await page.getByTestId('auth-next-hint').count()).toBe(1);
    expect(await page.getByTestId('login-register').getAttribute('href')).toBe(`/auth/register?next=${encodeURIComponent(videoPath)}`);
    await logIn(page, w.fan.email, FAN_PASSWORD);
    await page.waitForURL(`${t.url}${videoPath}`);

    // Signed in, the same buttons start the checkout.
    await waitForVideoControls(page);
    expect(await page.getByTestId('subscribe-monthly').textContent()).toBe('Subscribe · $10.00/month');
    await saveScreen(page, 'paywall-fan-video-desktop');
    await page.getByTestId('subscribe-monthly').click();
    await payInSandbox(page, '$10.00');
    expect(new URL(page.url()).origin).toBe(t.url);

    await page.goto(`${t.url}${videoPath}`);
    // The page every member shares, then this fan's own state: the player, no paywall.
    await waitForVideoControls(page);
    expect(await page.getByTestId('lock-box').count()).toBe(0);
    expect(await page.getByTestId('video-player').count()).toBe(1);
    // Every page of the journey, the provider's page and the way back included, was on the address the fan opened.
    expect(visited.length).toBeGreaterThan(5);
    expect([...new Set(visited.map((u) => new URL(u).origin))]).toEqual([t.url]);
    expect(visited.some((u) => new URL(u).pathname.startsWith('/payments/sandbox/'))).toBe(true);
    expect(visited.some((u) => new URL(u).pathname.startsWith('/payments/result/'))).toBe(true);
  }, 90_000);

  it('a guest signs up from a gallery on a phone, verifies the email, and the link brings them back to buy it', async () => {
    const { page, visited } = await open(PHONE);
    const galleryPath = `/galleries/${gallery.id}`;
    await page.goto(`${t.url}${galleryPath}`);
    expect(await page.getByTestId('buy-button').textContent()).toBe('Buy · $6.99');
    expect(await overflows(page)).toBe(false);
    await page.getByTestId('lock-box').scrollIntoViewIfNeeded();
    await saveScreen(page, 'paywall-guest-gallery-phone');

    await page.getByTestId('paywall-register').click();
    await page.waitForURL('**/auth/register?next=**');
    await waitForIsland(page, 'RegisterForm');
    const email = 'new.buyer@example.com';
    await page.getByLabel('Name', { exact: true }).fill('New Buyer');
    await page.getByLabel('Username').fill('new_buyer');
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill('buyer-pass-1');
    await page.getByLabel('Confirm password').fill('buyer-pass-1');
    await page.getByLabel('I am 18 years old or older').check();
    await page.getByTestId('register-terms').check();
    const since = catcher.mark();
    await page.getByTestId('register-submit').click();
    await expect.poll(() => page.getByTestId('form-success').count()).toBe(1);
    expect(await page.getByTestId('register-login').getAttribute('href')).toBe(`/auth/login?next=${encodeURIComponent(galleryPath)}`);

    // The mailed link carries the way back (its origin is the configured address; the browser stays on 127.0.0.1).
    const mail = await catcher.waitFor(email, /verify your email/i, since, 10_000);
    const link = new URL(mail.text.match(/https?:\/\/\S+\/auth\/verify-email\?\S+/)![0]);
    expect(link.searchParams.get('next')).toBe(galleryPath);
    await page.goto(`${t.url}${link.pathname}${link.search}`);
    await expect.poll(() => page.getByTestId('verify-email-success').count()).toBe(1);
    await page.getByTestId('verify-email-continue').click();
    await page.waitForURL('**/auth/login?next=**');
    await logIn(page, email, 'buyer-pass-1');
    await page.waitForURL(`${t.url}${galleryPath}`);

    await waitForIsland(page, 'ItemPaywall');
    expect(await page.getByTestId('buy-button').textContent()).toBe('Buy · $6.99');
    await page.getByTestId('lock-box').scrollIntoViewIfNeeded();
    expect(await overflows(page)).toBe(false);
    await saveScreen(page, 'paywall-fan-gallery-phone');
    await page.getByTestId('buy-button').click();
    await payInSandbox(page, '$6.99');
    await page.goto(`${t.url}${galleryPath}`);
    expect(await page.getByTestId('lock-box').count()).toBe(0);
    expect([...new Set(visited.map((u) => new URL(u).origin))]).toEqual([t.url]);
  }, 90_000);

  it('a fan sees the buy price on a sale video and the subscription prices on a phone; a guest sees them on desktop', async () => {
    const fanPhone = await open(PHONE, w.fan2);
    await fanPhone.page.goto(`${t.url}/videos/${w.videos.saleVideo.id}`);
    await waitForVideoControls(fanPhone.page);
    expect(await fanPhone.page.getByTestId('buy-button').textContent()).toBe('Buy · $12.99');
    expect(await fanPhone.page.getByTestId('subscribe-monthly').count()).toBe(0);
    expect(await overflows(fanPhone.page)).toBe(false);
    await fanPhone.page.getByTestId('lock-box').scrollIntoViewIfNeeded();
    await saveScreen(fanPhone.page, 'paywall-fan-sale-video-phone');

    await fanPhone.page.goto(`${t.url}/videos/${w.videos.subsVideo.id}`);
    await waitForVideoControls(fanPhone.page);
    expect(await fanPhone.page.getByTestId('subscribe-yearly').textContent()).toBe('Subscribe · $90.00/year');
    expect(await overflows(fanPhone.page)).toBe(false);
    await fanPhone.page.getByTestId('lock-box').scrollIntoViewIfNeeded();
    await saveScreen(fanPhone.page, 'paywall-fan-video-phone');

    const guest = await open(DESKTOP);
    await guest.page.goto(`${t.url}/galleries/${gallery.id}`);
    expect(await guest.page.getByTestId('buy-button').textContent()).toBe('Buy · $6.99');
    await saveScreen(guest.page, 'paywall-guest-gallery-desktop');
  }, 60_000);
});
