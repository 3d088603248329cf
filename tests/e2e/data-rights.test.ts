import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { hasChromium, useBrowser, waitForIsland } from '../helpers/browser.js';
import { createUser } from '../helpers/sessions.js';
import { hashPassword } from '../../server/auth/password.js';

/**
 * Your data in chromium (docs/product.md, Your data): a fan asks for their data on /account/data, the page follows the
 * job until the file is ready, the fan downloads it (their own JSON), then deletes the account with their password and
 * DELETE, lands on the home page signed out, and the account's pages send them to the login.
 */
describe.skipIf(!hasChromium)('your data in chromium', () => {
  let t: TestApp;
  const chromium = useBrowser(() => t.url);
  const PASSWORD = 'Browser-secret-77';

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true, env: { JOBS_POLL_MS: '100' } });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('a fan downloads their export, then deletes their account', async () => {
    const fan = await createUser(t.ctx.db, 'user', { name: 'Dana Datafan' });
    await t.ctx.db.updateTable('users').set({ passwordHash: await hashPassword(PASSWORD) }).where('id', '=', fan.id).execute();
    const page = await chromium.page({ as: fan, phone: true });
    await page.goto(`${t.url}/account/data`);
    await waitForIsland(page, 'DataExports');
    await waitForIsland(page, 'DeleteAccountForm');
    // The tab is in the account's bar, and current.
    expect(await page.locator('a[aria-current="page"]', { hasText: 'Your data' }).count()).toBeGreaterThan(0);
    expect(await page.getByTestId('delete-consequences').textContent()).toContain('cannot be undone');

    await page.getByTestId('data-export-request').click();
    const link = page.getByTestId('data-export-download');
    await link.waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('data-export').first().getAttribute('data-status')).toBe('ready');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toMatch(/^data-export-\d{4}-\d{2}-\d{2}\.json$/);
    const data = JSON.parse(await readFile((await download.path())!, 'utf8'));
    expect(data.account).toMatchObject({ id: fan.id, email: fan.email, name: 'Dana Datafan' });

    // A typo in the confirmation is caught before anything is sent; a wrong password by the server.
    await page.getByTestId('delete-password').fill(PASSWORD);
    await page.getByTestId('delete-confirm').fill('delete');
    await page.getByTestId('delete-submit').click();
    expect(await page.getByRole('alert').first().textContent()).toContain('Type DELETE to confirm');
    chromium.expectErrors(/status of 400/);
    await page.getByTestId('delete-password').fill('not my password');
    await page.getByTestId('delete-confirm').fill('DELETE');
    await page.getByTestId('delete-submit').click();
    await expect.poll(() => page.getByTestId('form-error').textContent()).toContain('That is not your password');

    await page.getByTestId('delete-password').fill(PASSWORD);
    await page.getByTestId('delete-submit').click();
    await page.waitForURL(`${t.url}/`, { timeout: 15_000 });
    const row = await t.ctx.db.selectFrom('users').select(['status', 'email']).where('id', '=', fan.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('deleted');
    expect(row.email).not.toBe(fan.email);
    // Signed out: the account's pages ask for a login.
    await page.goto(`${t.url}/account/data`);
    expect(new URL(page.url()).pathname).toBe('/auth/login');
    await page.context().close();
  });
});
