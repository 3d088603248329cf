import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { hasChromium, saveScreen, useBrowser, type BrowserFixture } from '../helpers/browser.js';
import { buildEngagement, type Engagement } from '../helpers/engagement-fixture.js';
import { startInstance } from '../helpers/realtime-client.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { subscribe } from '../../server/seed/factories.js';
import { objectRoom } from '../../server/realtime/hub.js';

/**
 * Engagement journeys in chromium: two signed-in browsers on one video page; one comments and the other sees
 * it appear without reload, deletes are reflected on both, a script payload stays text, likes update live,
 * guests read and get a login prompt; the favourites and watch-later pages. With PostgreSQL and Redis, a
 * browser on instance B sees a comment posted from a browser on instance A.
 */

const SCRIPT_PAYLOAD = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> bold <b>move</b>';

interface Viewer {
  context: BrowserContext;
  page: Page;
}

/** A member's reaction buttons wait, disabled, for their state on the page; enabled, they show it. */
const reactionsReady = (page: Page) => expect.poll(() => page.getByTestId('reaction-like').isEnabled(), { timeout: 15_000 }).toBe(true);

function hydrated(page: Page, island: string) {
  return page.waitForFunction(
    (name) => [...document.querySelectorAll(`astro-island[component-url*="${name}"]`)].some((el) => !el.hasAttribute('ssr')),
    island,
    { timeout: 15_000 },
  );
}

async function openViewer(chromium: BrowserFixture, site: string, user?: TestUser): Promise<Viewer> {
  const page = await chromium.page({ as: user, site, viewport: { width: 1280, height: 900 } });
  return { context: page.context(), page };
}

/** Opens a video page and waits until comments are hydrated (and, for a user, the realtime connection is up). */
async function openVideo(v: Viewer, baseUrl: string, videoId: string, signedIn: boolean) {
  await v.page.goto(`${baseUrl}/videos/${videoId}`);
  await v.page.locator('[data-slot="comments"]').scrollIntoViewIfNeeded();
  await hydrated(v.page, 'Comments');
  // A member's comments wait for their state on the page (the member shell's one request).
  await v.page.locator('[data-testid="comments"]:not([data-pending])').waitFor();
  if (signedIn) await expect.poll(() => v.page.getByTestId('realtime-status').getAttribute('data-status'), { timeout: 15_000 }).toBe('connected');
}

const commentTexts = (page: Page) => page.getByTestId('comment-text').allTextContents();

describe.skipIf(!hasChromium)('engagement journey in chromium', () => {
  let t: TestApp;
  let e: Engagement;
  const chromium = useBrowser(() => t.url);
  let alice: Viewer;
  let bob: Viewer;

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true });
    e = await buildEngagement(t.ctx);
    alice = await openViewer(chromium, t.url, e.fan);
    bob = await openViewer(chromium, t.url, e.friend);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('two signed-in browsers on one video: a comment appears on the other without reload', async () => {
    await openVideo(alice, t.url, e.video.id, true);
    await openVideo(bob, t.url, e.video.id, true);
    expect(await alice.page.getByTestId('comments-total').textContent()).toBe('0');
    // Nothing in the page can read the session token.
    expect(await bob.page.evaluate(() => document.cookie)).not.toContain('token=');

    await bob.page.evaluate(() => ((window as unknown as { __marker: number }).__marker = 42));
    await alice.page.getByTestId('comment-input').fill('Hello from Alice');
    await alice.page.getByTestId('comment-submit').click();
    await expect.poll(() => alice.page.getByTestId('toast').last().textContent()).toContain('Commented successfully');
    await expect.poll(() => commentTexts(bob.page), { timeout: 10_000 }).toEqual(['Hello from Alice']);
    expect(await bob.page.getByTestId('comments-total').textContent()).toBe('1');
    expect(await alice.page.getByTestId('comments-total').textContent()).toBe('1');
    // Same document: no reload happened.
    expect(await bob.page.evaluate(() => (window as unknown as { __marker?: number }).__marker)).toBe(42);
    await saveScreen(bob.page, 'engagement-live-comment');
  }, 60_000);

  it('a script payload is shown as text and never runs, live, after reload and in the server-rendered page', async () => {
    await bob.page.getByTestId('comment-input').fill(SCRIPT_PAYLOAD);
    await bob.page.getByTestId('comment-submit').click();
    await expect.poll(() => commentTexts(alice.page), { timeout: 10_000 }).toEqual([SCRIPT_PAYLOAD, 'Hello from Alice']);
    await expect.poll(() => commentTexts(bob.page)).toEqual([SCRIPT_PAYLOAD, 'Hello from Alice']);
    for (const page of [alice.page, bob.page]) {
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.getByTestId('comments-list').locator('script').count()).toBe(0);
      expect(await page.getByTestId('comments-list').locator('b').count()).toBe(0);
    }
    await alice.page.reload();
    await alice.page.locator('[data-slot="comments"]').scrollIntoViewIfNeeded();
    await hydrated(alice.page, 'Comments');
    await alice.page.locator('[data-testid="comments"]:not([data-pending])').waitFor();
    await expect.poll(() => commentTexts(alice.page)).toEqual([SCRIPT_PAYLOAD, 'Hello from Alice']);
    expect(await alice.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

    // The discussion page renders the first comments on the server: escaped there too.
    const html = await (await fetch(`${t.url}/comments/video/${e.video.id}`)).text();
    expect(html).not.toContain('<script>window.__pwned');
    expect(html).toContain('&lt;script&gt;window.__pwned = 1&lt;/script&gt;');
    await alice.page.goto(`${t.url}/comments/video/${e.video.id}`);
    await hydrated(alice.page, 'Comments');
    await expect.poll(() => commentTexts(alice.page)).toEqual([SCRIPT_PAYLOAD, 'Hello from Alice']);
    expect(await alice.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  }, 60_000);

  it('deletes are reflected in the other browser', async () => {
    await openVideo(alice, t.url, e.video.id, true);
    const own = alice.page.getByTestId('comment').filter({ hasText: 'Hello from Alice' });
    // Alice may delete her comment, not Bob's.
    expect(await alice.page.getByTestId('comment').filter({ hasText: 'bold' }).getByTestId('comment-delete').count()).toBe(0);
    await own.getByTestId('comment-delete').click();
    await expect.poll(() => alice.page.getByTestId('toast').last().textContent()).toContain('Removed successfully!');
    await expect.poll(() => commentTexts(bob.page), { timeout: 10_000 }).toEqual([SCRIPT_PAYLOAD]);
    expect(await bob.page.getByTestId('comments-total').textContent()).toBe('1');
    expect(await alice.page.getByTestId('comments-total').textContent()).toBe('1');
    const row = await t.ctx.db.selectFrom('videos').select('commentCount').where('id', '=', e.video.id).executeTakeFirstOrThrow();
    expect(row.commentCount).toBe(1);
  }, 60_000);

  it('likes count up live in the other browser', async () => {
    await openVideo(alice, t.url, e.video.id, true);
    await reactionsReady(alice.page);
    await reactionsReady(bob.page);
    const before = Number(await bob.page.getByTestId('reaction-like-count').textContent());
    await alice.page.getByTestId('reaction-like').click();
    await expect.poll(() => alice.page.getByTestId('reaction-like').getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => bob.page.getByTestId('reaction-like-count').textContent(), { timeout: 10_000 }).toBe(String(before + 1));
    // Alice's state survives a reload (her state on the page, in the member header's answer).
    await alice.page.reload();
    await reactionsReady(alice.page);
    await expect.poll(() => alice.page.getByTestId('reaction-like').getAttribute('aria-pressed')).toBe('true');
  }, 60_000);

  it('guests read the comments, get a login prompt, and have no realtime connection', async () => {
    const guest = await openViewer(chromium, t.url);
    await openVideo(guest, t.url, e.video.id, false);
    await expect.poll(() => commentTexts(guest.page)).toEqual([SCRIPT_PAYLOAD]);
    expect(await guest.page.getByTestId('comment-login-prompt').textContent()).toContain('Log in');
    expect(await guest.page.getByTestId('comment-form').count()).toBe(0);
    expect(await guest.page.getByTestId('realtime-status').count()).toBe(0);
    await guest.context.close();
  }, 60_000);

  it('a subscribers-only video: guests and fans see the count and a subscribe message, never the comments; a subscriber reads them', async () => {
    const secret = 'Only subscribers may read this';
    expect((await t.api('/comments', { method: 'POST', headers: { authorization: `Bearer ${e.star.token}` }, json: { objectType: 'video', objectId: e.subsVideo.id, content: secret } })).status).toBe(201);
    const guest = await openViewer(chromium, t.url);
    for (const v of [guest, bob]) {
      await openVideo(v, t.url, e.subsVideo.id, v === bob);
      expect(await v.page.getByTestId('comments-locked').textContent()).toContain('Subscribe to read and join the conversation');
      expect(await v.page.getByTestId('comments-total').textContent()).toBe('1');
      expect(await v.page.getByTestId('comment-form').count()).toBe(0);
      expect(await v.page.content()).not.toContain(secret);
    }
    await saveScreen(guest.page, 'engagement-locked-comments');
    await guest.context.close();
    // The discussion page: the same for guests, server-rendered.
    const html = await (await fetch(`${t.url}/comments/video/${e.subsVideo.id}`)).text();
    expect(html).toContain('data-testid="comments-locked"');
    expect(html).not.toContain(secret);

    const member = await createUser(t.ctx.db, 'user', { name: 'Member' });
    await subscribe(t.ctx.db, member.id, e.star.id);
    const sub = await openViewer(chromium, t.url, member);
    await openVideo(sub, t.url, e.subsVideo.id, true);
    await expect.poll(() => commentTexts(sub.page)).toEqual([secret]);
    expect(await sub.page.getByTestId('comments-locked').count()).toBe(0);
    await sub.page.goto(`${t.url}/comments/video/${e.subsVideo.id}`);
    await hydrated(sub.page, 'Comments');
    await expect.poll(() => commentTexts(sub.page)).toEqual([secret]);
    await sub.context.close();
  }, 60_000);

  it('favourites and watch later: add on the video page, listed on the account pages, removed from there', async () => {
    await openVideo(bob, t.url, e.video.id, true);
    await reactionsReady(bob.page);
    await bob.page.getByTestId('reaction-favourite').click();
    await expect.poll(() => bob.page.getByTestId('reaction-favourite').getAttribute('aria-pressed')).toBe('true');
    await bob.page.getByTestId('reaction-watch_later').click();
    await expect.poll(() => bob.page.getByTestId('reaction-watch_later').getAttribute('aria-pressed')).toBe('true');

    await bob.page.goto(`${t.url}/account/favourites`);
    expect(await bob.page.getByTestId('reacted-item').count()).toBe(1);
    await saveScreen(bob.page, 'account-favourites', { fullPage: true });
    expect(await bob.page.getByTestId('reacted-item').first().textContent()).toContain('Public video');
    await bob.page.goto(`${t.url}/account/watch-later`);
    expect(await bob.page.getByTestId('reacted-item').count()).toBe(1);
    await hydrated(bob.page, 'ReactionButtons');
    await bob.page.getByTestId('reaction-watch_later').click();
    await expect.poll(() => bob.page.getByTestId('reaction-watch_later').getAttribute('aria-pressed')).toBe('false');
    await bob.page.reload();
    expect(await bob.page.getByTestId('reacted-empty').count()).toBe(1);
    await bob.page.goto(`${t.url}/account/favourites?tab=galleries`);
    expect(await bob.page.getByTestId('reacted-empty').count()).toBe(1);
    // Guests are sent to log in.
    const res = await fetch(`${t.url}/account/favourites`, { redirect: 'manual' });
    expect(res.status).toBe(302);
  }, 60_000);
});

describe('locked comments in the server-rendered pages (no browser needed)', () => {
  let t: TestApp;
  let e: Engagement;

  beforeAll(async () => {
    // The micro-cache on, as in production: a guest's page may be shared, never a subscriber's.
    t = await startTestApp('sqlite', { web: true, env: { PAGE_CACHE_MS: '60000' } });
    e = await buildEngagement(t.ctx);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  const html = async (path: string, who?: TestUser) => {
    const res = await fetch(`${t.url}${path}`, { headers: who ? { cookie: `token=${who.token}` } : {} });
    expect(res.status, path).toBe(200);
    return res.text();
  };

  it('guests and fans get the count and a subscribe message; subscribers, the performer and admins the comments', async () => {
    const secret = 'Words for subscribers only';
    const made = await t.api('/comments', { method: 'POST', headers: { authorization: `Bearer ${e.star.token}` }, json: { objectType: 'video', objectId: e.subsVideo.id, content: secret } });
    expect(made.status).toBe(201);
    const member = await createUser(t.ctx.db, 'user');
    await subscribe(t.ctx.db, member.id, e.star.id);
    // The subscriber first: had their page been cached, the guests after them would get it.
    const forMember = await html(`/comments/video/${e.subsVideo.id}`, member);
    expect(forMember).toContain(secret);
    expect(forMember).not.toContain('data-testid="comments-locked"');
    const guestPaths = [`/comments/video/${e.subsVideo.id}`, `/videos/${e.subsVideo.id}`];
    for (const [who, paths] of [[undefined, guestPaths], [e.fan, guestPaths.slice(0, 1)]] as const) {
      for (const path of paths) {
        const page = await html(path, who);
        expect(page, path).not.toContain(secret);
        expect(page, path).toContain('data-testid="comments-locked"');
        expect(page, path).toContain('Subscribe');
        expect(page, path).toMatch(/data-testid="comments-total"[^>]*>1</);
      }
    }
    for (const who of [e.star, e.admin]) expect(await html(`/comments/video/${e.subsVideo.id}`, who)).toContain(secret);
    // A member's video page is the one every member shares: no comment in it, locked or not; its island asks for
    // the visitor's state (a subscriber's comments then load, the browser test above).
    for (const who of [e.fan, member]) {
      const page = await html(`/videos/${e.subsVideo.id}`, who);
      expect(page).not.toContain(secret);
      expect(page).not.toContain('data-testid="comments-locked"');
      expect(page).toContain(`data-member-video="${e.subsVideo.id}"`);
    }
    // Free items are unchanged.
    expect(await html(`/videos/${e.video.id}`)).not.toContain('data-testid="comments-locked"');
  }, 60_000);
});

describe.skipIf(!hasChromium || !process.env.DATABASE_URL || !process.env.REDIS_URL)('engagement across two instances in chromium (PostgreSQL + Redis)', () => {
  let a: TestApp;
  let b: Awaited<ReturnType<typeof startInstance>>;
  let e: Engagement;
  const chromium = useBrowser(() => a.url);

  beforeAll(async () => {
    a = await startTestApp('postgres', { web: true, env: { REDIS_URL: process.env.REDIS_URL! } });
    b = await startInstance(a, { web: true });
    e = await buildEngagement(a.ctx);
  }, 60_000);
  afterAll(async () => {
    await b?.built.close();
    await a?.close();
  });

  it('a comment posted from a browser on instance A appears in a browser on instance B', async () => {
    const onA = await openViewer(chromium, a.url, e.fan);
    const onB = await openViewer(chromium, b.url, e.friend);
    await openVideo(onA, a.url, e.video.id, true);
    await openVideo(onB, b.url, e.video.id, true);
    // Joining a room waits for the server's access check: post only once both browsers' sockets are in the room
    // (asked through the Redis adapter, so B's socket on the other instance counts), else B may miss the event.
    const inRoom = async () => (await a.built.realtime.io.in(objectRoom('video', e.video.id)).fetchSockets()).length;
    await expect.poll(inRoom, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    await onA.page.getByTestId('comment-input').fill('Across instances');
    await onA.page.getByTestId('comment-submit').click();
    await expect.poll(() => commentTexts(onB.page), { timeout: 10_000 }).toEqual(['Across instances']);
    await onA.page.getByTestId('comment').first().getByTestId('comment-delete').click();
    await expect.poll(() => commentTexts(onB.page), { timeout: 10_000 }).toEqual([]);
  }, 60_000);
});
