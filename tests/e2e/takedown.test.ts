import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { failedRequest, hasChromium, useBrowser, waitForIsland } from '../helpers/browser.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { makeVideo } from '../../server/seed/factories.js';

/**
 * Takedown requests and the age gate in chromium (docs/product.md): a guest follows a video's "Request removal" link,
 * files the form, and the video is gone at once; an admin restores it from the console's queue and it is back. With
 * the age gate on, a guest meets the confirmation over the page and passes it with the plain form, back on the same
 * page; the cookie keeps it passed.
 */
describe.skipIf(!hasChromium)('takedowns and the age gate in chromium', () => {
  let t: TestApp;
  let admin: TestUser;
  let videoId: string;
  const chromium = useBrowser(() => t.url);

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true });
    const performer = await createUser(t.ctx.db, 'performer', { name: 'Filmed Star' });
    admin = await createUser(t.ctx.db, 'admin', { name: 'Deciding Admin' });
    videoId = (await makeVideo(t.ctx, performer.id, { title: 'A clip someone wants removed', access: 'free' })).id;
  }, 60_000);
  afterAll(async () => {
    await t?.ctx.settings.set('ageGateEnabled', false);
    await t?.close();
  });

  it('a guest files a takedown for a video and the video page is gone at once', async () => {
    const page = await chromium.page({ as: null });
    await page.goto(`${t.url}/videos/${videoId}`);
    await page.getByTestId('takedown-link').click();
    await page.waitForURL(/\/takedown\?url=/);
    await waitForIsland(page, 'TakedownForm');
    const form = page.getByTestId('takedown-form');
    expect(await form.getByLabel('Address of the content').inputValue()).toBe(`/videos/${videoId}`);
    await form.getByLabel('Your full name').fill('Dana Depicted');
    await form.getByLabel('Your email').fill('dana@example.org');
    await form.getByLabel('Your relationship to the content').selectOption('depicted');
    await form.getByLabel('Statement').fill('This is me, filmed without my consent; please take it down.');
    await form.getByTestId('takedown-declaration').check();
    await form.getByTestId('takedown-submit').click();
    await expect.poll(() => form.textContent(), { timeout: 10_000 }).toMatch(/Your request TD-[0-9A-F]{10} was received/);
    expect((await t.ctx.db.selectFrom('videos').select('status').where('id', '=', videoId).executeTakeFirstOrThrow()).status).toBe('hidden');
    // The page is gone: the 404 the browser logs is the point.
    chromium.expectErrors(failedRequest(404, `/videos/${videoId}`));
    const gone = await page.goto(`${t.url}/videos/${videoId}`);
    expect(gone!.status()).toBe(404);
  });

  it('an admin restores it from the queue and the video is back', async () => {
    const page = await chromium.page({ as: admin });
    await page.goto(`${t.url}/admin/takedowns`);
    const row = page.locator(`[data-testid="takedown-row"][data-target-id="${videoId}"]`);
    expect(await row.getByTestId('takedown-request').textContent()).toContain('dana@example.org');
    expect(await row.getByTestId('takedown-age').textContent()).toContain('less than an hour ago');
    await waitForIsland(page, 'AdminAction');
    page.once('dialog', (d) => void d.accept());
    const reloaded = page.waitForEvent('load', { timeout: 20_000 });
    await row.getByTestId('takedown-restore').click();
    await reloaded;
    expect(await page.getByTestId('takedowns-empty').isVisible()).toBe(true);
    const back = await page.goto(`${t.url}/videos/${videoId}`);
    expect(back!.status()).toBe(200);
    const audit = await t.ctx.db.selectFrom('auditLog').select(['action', 'actorId']).where('targetId', '=', videoId).where('action', '=', 'takedown.restore').execute();
    expect(audit).toEqual([{ action: 'takedown.restore', actorId: admin.id }]);
  });

  it('the age gate is shown to a guest and passed with its form, back on the same page', async () => {
    await t.ctx.settings.set('ageGateEnabled', true);
    await t.ctx.settings.set('ageGateCountries', []);
    const page = await chromium.page({ as: null });
    await page.goto(`${t.url}/videos?sort=newest`);
    const gate = page.getByTestId('age-gate');
    expect(await gate.isVisible()).toBe(true);
    expect(await page.getByRole('dialog', { name: 'This site is for adults' }).isVisible()).toBe(true);
    await page.getByTestId('age-gate-confirm').click();
    await page.waitForURL(`${t.url}/videos?sort=newest`);
    expect(await page.getByTestId('age-gate').count()).toBe(0);
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'age_ok')).toMatchObject({ value: '1', httpOnly: true });
    await page.goto(`${t.url}/performers`);
    expect(await page.getByTestId('age-gate').count()).toBe(0);
  });
});
