import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { hasChromium, saveScreen, useBrowser, waitForFeed, waitForPerformerControls } from '../helpers/browser.js';
import { buildCatalogue, type Catalogue } from '../helpers/catalogue-fixture.js';

/**
 * The member shell in a browser, the micro-cache on as deployed: the home page is one copy for every signed-in
 * visitor (tests/e2e/micro-cache.test.ts proves it holds nobody's data), and each visitor still sees their own
 * header (name, unread messages) and which of the newest videos are open to them; so are the home feed, a
 * performer's page and a video's page, with each visitor's own state there.
 */
describe.skipIf(!hasChromium)('the member shell in chromium', () => {
  let t: TestApp;
  let c: Catalogue;
  // A session that no longer opens anything is told so by the header's request: the browser logs the 401.
  const chromium = useBrowser(() => t.url, { allow: [/status of 401/] });

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true, env: { PAGE_CACHE_MS: '60000' } });
    c = await buildCatalogue(t.ctx);
    // One unread message for the subscriber: they write to alice, she answers.
    const started = await t.api('/messages/conversations', { method: 'POST', headers: c.subscriber.headers, json: { userId: 'alice' } });
    expect(started.status).toBe(200);
    const answered = await t.api(`/messages/conversations/${started.body._id}/messages`, { method: 'POST', headers: c.alice.headers, json: { text: 'Thanks for subscribing!' } });
    expect(answered.status).toBeLessThan(300);
  }, 60_000);
  afterAll(() => t?.close());

  const card = (title: string) => `[data-testid="newest-videos"] [data-testid="video-card"]:has(h3:text-is("${title}"))`;

  it("fills each visitor's own header and opens the subscriber's videos on the shared page", async () => {
    const page = await chromium.page({ as: c.subscriber });
    const res = await page.goto(`${t.url}/`);
    expect(res?.status()).toBe(200);
    await expect.poll(() => page.getByTestId('user-name').textContent(), { timeout: 15_000 }).toBeTruthy();
    const name = await t.ctx.db.selectFrom('users').select('name').where('id', '=', c.subscriber.id).executeTakeFirstOrThrow();
    expect(await page.getByTestId('user-name').textContent()).toBe(name.name);
    await expect.poll(() => page.getByTestId('messages-badge').textContent(), { timeout: 15_000 }).toBe('1');
    expect(await page.getByTestId('login-link').count()).toBe(0);
    // The shell shows "Core strength" locked, as to a guest; the list asks again as the subscriber and opens it.
    await page.locator(card('Core strength')).scrollIntoViewIfNeeded();
    await expect.poll(() => page.locator(`${card('Core strength')} .media-card__badge--lock`).count(), { timeout: 15_000 }).toBe(0);
    expect(await page.locator(`${card('Full masterclass')} .media-card__badge--lock`).count()).toBe(1);
    await saveScreen(page, 'member-shell-subscriber');

    // Another member gets the same copy from memory, with their own header and their own locks.
    const other = await chromium.page({ as: c.fan });
    const again = await other.goto(`${t.url}/`);
    expect(again?.headers()['x-cache']).toBe('HIT');
    await expect.poll(() => other.getByTestId('user-name').textContent(), { timeout: 15_000 }).not.toBe(name.name);
    expect(await other.getByTestId('user-name').textContent()).toBeTruthy();
    await other.locator(card('Core strength')).scrollIntoViewIfNeeded();
    await other.waitForLoadState('networkidle');
    expect(await other.locator(`${card('Core strength')} .media-card__badge--lock`).count()).toBe(1);
    expect(await other.getByTestId('messages-badge').count()).toBe(0);
  }, 60_000);

  it('greets each visitor by name on the shared home feed and shows them their own feed', async () => {
    const subscriber = await chromium.page({ as: c.subscriber });
    await subscriber.goto(`${t.url}/home`);
    await waitForFeed(subscriber);
    const name = await t.ctx.db.selectFrom('users').select('name').where('id', '=', c.subscriber.id).executeTakeFirstOrThrow();
    await expect.poll(() => subscriber.getByTestId('home-greeting').textContent()).toBe(`Hello, ${name.name}`);
    // Alice's subscribers' video is in the subscriber's feed, open to them: no way to unlock it.
    const core = subscriber.locator('[data-testid="feed-item"]:has(h3:text-is("Core strength"))');
    expect(await core.count()).toBe(1);
    expect(await core.getByTestId('feed-unlock').count()).toBe(0);
    await saveScreen(subscriber, 'member-shell-home-feed', { fullPage: true });

    // A fan who follows nobody gets the same copy from memory, their own name and their own (empty) feed.
    const fan = await chromium.page({ as: c.fan });
    const again = await fan.goto(`${t.url}/home`);
    expect(again?.headers()['x-cache']).toBe('HIT');
    await waitForFeed(fan);
    expect(await fan.getByTestId('feed-empty').count()).toBe(1);
    await expect.poll(() => fan.getByTestId('home-greeting').textContent()).not.toContain(name.name);
    expect(await fan.getByText('Core strength').count()).toBe(0);

    // A session that has ended gets the copy too, which holds nothing, and is told to log in to see a feed.
    const ended = await chromium.page({ as: { token: 'no-longer-a-session' } });
    await ended.goto(`${t.url}/home`);
    await waitForFeed(ended);
    expect(await ended.getByTestId('feed-guest').getByRole('link', { name: 'Log in' }).getAttribute('href')).toBe('/auth/login?next=%2Fhome');
    expect(await ended.getByTestId('home-greeting').textContent()).toBe('Hello');
  }, 60_000);

  it("gives each visitor their own controls on a performer's shared page: the subscriber's, a fan's, alice's own", async () => {
    const subscriber = await chromium.page({ as: c.subscriber });
    await subscriber.goto(`${t.url}/performers/alice`);
    await waitForPerformerControls(subscriber);
    expect(await subscriber.getByTestId('subscribe-active').count()).toBe(1);
    // Subscribed, the conversation with alice is there to open; the videos list opens what the subscription opens.
    expect(await subscriber.getByTestId('message-button').getAttribute('href')).toMatch(/^\/messages\//);
    await subscriber.locator('[data-testid="performer-videos"] [data-testid="video-card"]:has(h3:text-is("Core strength"))').scrollIntoViewIfNeeded();
    await expect.poll(() => subscriber.locator('[data-testid="performer-videos"] [data-testid="video-card"]:has(h3:text-is("Core strength")) .media-card__badge--lock').count(), { timeout: 15_000 }).toBe(0);
    await saveScreen(subscriber, 'member-shell-performer-subscriber');

    // The fan gets the same copy from memory: Follow works for them, and they are offered the plans.
    const fan = await chromium.page({ as: c.fan });
    const res = await fan.goto(`${t.url}/performers/alice`);
    expect(res?.headers()['x-cache']).toBe('HIT');
    await waitForPerformerControls(fan);
    await saveScreen(fan, 'member-shell-performer-fan');
    expect(await fan.getByTestId('subscribe-active').count()).toBe(0);
    expect(await fan.getByTestId('subscribe-monthly').textContent()).toContain('9.99');
    await fan.getByTestId('follow-button').click();
    await expect.poll(() => fan.getByTestId('follow-button').textContent(), { timeout: 15_000 }).toBe('Following');
    expect(await fan.getByTestId('follower-count').textContent()).toBe('1 follower');

    // Alice on her own page: her follower count, no button to follow, subscribe to, tip or report herself.
    const alice = await chromium.page({ as: c.alice });
    await alice.goto(`${t.url}/performers/alice`);
    await waitForPerformerControls(alice);
    expect(await alice.getByTestId('follower-count').textContent()).toBe('1 follower');
    for (const id of ['follow-button', 'follow-login', 'subscribe-monthly', 'tip-button', 'tip-login', 'report-button', 'report-login']) expect(await alice.getByTestId(id).count(), id).toBe(0);
  }, 60_000);

  it('leaves a visitor whose session ended a guest on the page, without sending them to log in', async () => {
    const page = await chromium.page({ as: { token: 'no-longer-a-session' } });
    await page.goto(`${t.url}/performers`);
    await expect.poll(() => page.getByTestId('login-link').count(), { timeout: 15_000 }).toBe(1);
    expect(new URL(page.url()).pathname).toBe('/performers');
    expect(await page.getByTestId('user-menu-pending').count()).toBe(0);
  }, 30_000);
});
