import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { hasChromium, saveScreen, useBrowser, waitForIsland } from '../helpers/browser.js';
import { newId } from '../../server/db/ids.js';
import { ledger } from '../helpers/money-fixture.js';
import { MailCatcher } from '../helpers/mail-catcher.js';

/**
 * The payout journey in chromium: a performer with a sale past the hold saves bank details in the studio (a mistyped
 * IBAN first) and requests a payout; the admin finds it in the console's queue, looks at the full details and marks it
 * paid with the transfer's reference; the performer sees it paid. Each step's mail to the performer is read from a real
 * SMTP server and leads to the earnings page.
 */
describe.skipIf(!hasChromium)('payout journey in chromium', () => {
  let t: TestApp;
  const chromium = useBrowser(() => t.url);
  let performer: TestUser;
  let admin: TestUser;
  let studio: Page;
  const catcher = new MailCatcher();
  /** The subjects of the mails to the performer since `since`, once the mailer has flushed. */
  const performerMails = async (since: number) => {
    await t.ctx.mailer.flush();
    return catcher.find(performer.email, undefined, since);
  };

  /** Whether the island holding `testId` has hydrated. */
  const hydrated = (p: Page, testId: string) =>
    p.waitForFunction((id) => {
      const el = document.querySelector(`[data-testid="${id}"]`)?.closest('astro-island');
      return el !== null && el !== undefined && !el.hasAttribute('ssr');
    }, testId, { timeout: 15_000 });

  beforeAll(async () => {
    await catcher.start();
    t = await startTestApp('sqlite', { web: true, env: { SMTP_URL: catcher.smtpUrl } });
    performer = await createUser(t.ctx.db, 'performer', { name: 'Paula Payee' });
    admin = await createUser(t.ctx.db, 'admin');
    const fan = await createUser(t.ctx.db, 'user');
    // A real-money sale of 10 days ago: $80.00 to the performer after the site's $20.00.
    const sold = new Date(Date.now() - 10 * 86_400_000).toISOString();
    const paymentId = newId();
    await t.ctx.db
      .insertInto('payments')
      .values({ id: paymentId, userId: fan.id, performerId: performer.id, type: 'video', status: 'success', gateway: 'stripe', gatewayRef: `cs_${paymentId}`, targetId: null, originalPrice: 10_000, amount: 10_000, currency: 'USD', paidAt: sold, createdAt: sold, updatedAt: sold })
      .execute();
    await t.ctx.db
      .insertInto('earnings')
      .values({ id: newId(), paymentId, paymentItemId: newId(), performerId: performer.id, userId: fan.id, sourceType: 'video', gross: 10_000, commission: 2000, net: 8000, commissionBps: 2000, createdAt: sold })
      .execute();
    studio = await (await chromium.context({ as: performer })).newPage();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await catcher.stop();
  });

  it('the performer saves bank details and requests the available balance', async () => {
    await studio.goto(`${t.url}/studio/earnings`);
    await waitForIsland(studio, 'StudioPayouts');
    expect(await studio.getByTestId('payout-available').textContent()).toBe('$80.00');
    expect(await studio.getByTestId('payout-blocked').getAttribute('data-reason')).toBe('details');
    expect(await studio.getByTestId('payout-request').isDisabled()).toBe(true);

    await studio.getByTestId('payout-holder').fill('Paula Payee');
    await studio.getByTestId('payout-account-number').fill('GB82 WEST 1234 5698 7654 31');
    await studio.getByTestId('payout-bank-country').fill('GB');
    chromium.expectErrors(/status of 400/);
    await studio.getByTestId('payout-details-save').click();
    await expect.poll(() => studio.getByTestId('payout-details-form').getByRole('alert').textContent()).toBe('This IBAN is not valid: check it for a typo');

    await studio.getByTestId('payout-account-number').fill('GB82 WEST 1234 5698 7654 32');
    await studio.getByTestId('payout-details-save').click();
    await expect.poll(() => studio.getByTestId('payout-account').textContent()).toBe('•••• 5432');
    await expect.poll(() => studio.getByTestId('payout-request').isDisabled()).toBe(false);
    await saveScreen(studio, 'studio-payouts', { fullPage: true });

    const since = catcher.mark();
    await studio.getByTestId('payout-request').click();
    await expect.poll(() => studio.getByTestId('payout-row').getAttribute('data-status')).toBe('requested');
    const mails = await performerMails(since);
    expect(mails.map((m) => m.subject)).toEqual(['Payout of $80.00 requested']);
    expect(mails[0]!.text).toContain(`${t.url}/studio/earnings`);
    await expect.poll(() => studio.getByTestId('payout-requested').textContent()).toBe('$80.00');
    expect(await studio.getByTestId('payout-available').textContent()).toBe('$0.00');
    expect(await studio.getByTestId('payout-blocked').getAttribute('data-reason')).toBe('open');
  }, 60_000);

  it('the admin finds it in the queue, reads the full details and marks it paid with a reference', async () => {
    const page = await (await chromium.context({ as: admin })).newPage();
    await page.goto(`${t.url}/admin/payouts`);
    const row = page.getByTestId('payout-queue-row');
    expect(await row.count()).toBe(1);
    expect(await row.getByTestId('payout-performer').textContent()).toContain('Paula Payee');
    expect(await row.getByTestId('payout-masked').textContent()).toContain('•••• 5432');
    expect(await row.textContent()).not.toContain('GB82WEST12345698765432');

    await hydrated(page, 'payout-reveal');
    await row.getByTestId('payout-reveal').click();
    await expect.poll(() => row.getByTestId('payout-full').textContent()).toContain('GB82WEST12345698765432');

    await row.getByText('Mark paid', { exact: true }).click();
    await hydrated(page, 'payout-paid-form');
    await row.getByTestId('payout-paid-form').getByLabel("Transfer's reference").fill('FPS-2026-0007');
    await saveScreen(page, 'admin-payouts', { fullPage: true });
    const since = catcher.mark();
    await Promise.all([page.waitForEvent('load'), row.getByTestId('payout-paid-form-submit').click()]);
    const mails = await performerMails(since);
    expect(mails.map((m) => m.subject)).toEqual(['Payout of $80.00 paid']);
    expect(mails[0]!.text).toContain('Reference: FPS-2026-0007');
    expect(await page.getByTestId('payouts-empty').count()).toBe(1);

    await page.goto(`${t.url}/admin/payouts?status=paid`);
    expect(await page.getByTestId('payout-status').textContent()).toContain('Paid');
    expect(await page.getByTestId('payout-queue-row').textContent()).toContain('ref. FPS-2026-0007');
    await page.context().close();
  }, 60_000);

  it('the performer sees the payout paid, with its reference', async () => {
    await studio.reload();
    await waitForIsland(studio, 'StudioPayouts');
    expect(await studio.getByTestId('payout-row').getAttribute('data-status')).toBe('paid');
    expect(await studio.getByTestId('payout-row').textContent()).toContain('reference FPS-2026-0007');
    expect(await studio.getByTestId('payout-paid').textContent()).toBe('$80.00');
    expect(await studio.getByTestId('payout-requested').textContent()).toBe('$0.00');
    const l = await ledger(t.ctx.db);
    expect(l.paid).toBe(l.net + l.commission);
  }, 60_000);
});
