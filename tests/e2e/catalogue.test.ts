import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { hasChromium, saveScreen, useBrowser, waitForIsland, waitForVideoControls } from '../helpers/browser.js';
import { makeTestMedia, type TestMedia } from '../helpers/uploads.js';
import { seedDemo, type DemoCredentials } from '../../server/seed/seed.js';
import { makePost, subscribe } from '../../server/seed/factories.js';
import { listPublicVideos } from '../../server/videos/videos.repository.js';
import { everyone } from '../../server/catalogue/catalogue.repository.js';
import { nowIso } from '../../server/db/ids.js';

/**
 * Catalogue journeys over the demo site: a visitor browses to a locked video, logs in as a
 * subscriber and plays it in full; a performer uploads a video in the studio, sees it become ready and edits its
 * title and price. Plus the
 * SEO contract of every public page (title, description, og:title, JSON-LD) and the sitemap.
 */

let t: TestApp;
let creds: DemoCredentials;
let performer: { id: string; username: string };
let lockedVideo: { id: string; title: string; access: string; price: number };
const pages: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApp('sqlite', { web: true, env: { COUNTRY_HEADER: 'X-Country' } });
  const seeded = await seedDemo({ db: t.ctx.db, config: t.config, logger: { info() {}, warn() {}, error: console.error }, scale: 0.3 });
  creds = seeded.credentials!;
  const row = await t.ctx.db.selectFrom('performers').select(['id', 'username']).where('username', '=', creds.performer.username).executeTakeFirstOrThrow();
  performer = row;
  const { rows } = await listPublicVideos(t.ctx.db, { performerId: performer.id, sort: 'newest', limit: 12, offset: 0 }, everyone());
  const locked = rows.find((r) => r.access === 'subscribers');
  if (!locked) throw new Error('the demo performer has no subscriber-only video');
  lockedVideo = { id: locked.id, title: locked.title, access: locked.access, price: locked.price };
  const db = t.ctx.db;
  const gallery = await db.selectFrom('galleries').select('id').where('performerId', '=', performer.id).where('status', '=', 'active').executeTakeFirst();
  const product = await db.selectFrom('products').select('id').where('status', '=', 'active').executeTakeFirst();
  const post = await db.selectFrom('posts').select('id').where('status', '=', 'published').where('type', '=', 'post').executeTakeFirst();
  Object.assign(pages, {
    home: '/',
    performers: '/performers',
    videos: '/videos',
    store: '/store',
    blog: '/posts',
    performer: `/performers/${performer.username}`,
    video: `/videos/${lockedVideo.id}`,
    ...(gallery ? { gallery: `/galleries/${gallery.id}` } : {}),
    ...(product ? { product: `/products/${product.id}` } : {}),
    ...(post ? { post: `/posts/${post.id}` } : {}),
  });
}, 180_000);
afterAll(async () => {
  await t?.close();
});

async function html(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.url}${path}`, { headers });
  return { status: res.status, body: await res.text(), headers: res.headers };
}

describe('public pages are indexable', () => {
  it('every public page has a title, a meta description, og:title and JSON-LD, and answers without JavaScript', async () => {
    expect(Object.keys(pages)).toEqual(expect.arrayContaining(['home', 'performers', 'videos', 'store', 'blog', 'performer', 'video', 'gallery', 'product', 'post']));
    for (const [name, path] of Object.entries(pages)) {
      const { status, body } = await html(path);
      expect(status, `${name} ${path}`).toBe(200);
      expect(body, name).toMatch(/<title>[^<]+<\/title>/);
      expect(body, name).toMatch(/<meta name="description" content="[^"]+"/);
      expect(body, name).toMatch(/<meta property="og:title" content="[^"]+"/);
      const ld = body.match(/<script type="application\/ld\+json">([^<]+)<\/script>/);
      expect(ld, `${name} JSON-LD`).not.toBeNull();
      expect(() => JSON.parse(ld![1]!)).not.toThrow();
    }
    // A guest never gets a locked item's full file named (free items may carry guest-signed URLs).
    expect((await html(pages.video!)).body).not.toContain('/media/protected/');
    const search = await html('/search?q=a');
    expect(search.status).toBe(200);
    expect(search.body).toContain('noindex');
  });

  it('sitemap.xml lists the public pages and robots.txt points to it', async () => {
    const { status, body, headers } = await html('/sitemap.xml');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toContain('xml');
    for (const [name, path] of Object.entries(pages)) {
      if (name === 'home') continue;
      expect(body, name).toContain(`<loc>${t.url}${path}</loc>`);
    }
    // Drafts are not listed.
    const draft = await t.ctx.db.selectFrom('videos').select('id').where('status', '!=', 'active').executeTakeFirst();
    if (draft) expect(body).not.toContain(draft.id);
    const robots = await html('/robots.txt');
    expect(robots.body).toContain(`Sitemap: ${t.url}/sitemap.xml`);
    expect(robots.body).toContain('Disallow: /studio/');
  });

  it('post content is sanitised', async () => {
    const { id } = await makePost(t.ctx, {
      title: 'Sanitised post', excerpt: null, imageFileId: null, publishedAt: nowIso(),
      content: '<p onclick="evil()">Hello <b>there</b></p><script>alert(1)</script><img src="x" onerror="evil()"><a href="javascript:evil()">link</a>',
    });
    const { status, body } = await html(`/posts/${id}`);
    expect(status).toBe(200);
    expect(body).toContain('Hello <b>there</b>');
    expect(body).not.toContain('alert(1)');
    expect(body).not.toContain('onerror');
    expect(body).not.toContain('onclick');
    expect(body).not.toContain('javascript:evil');
  });

  it('hides a performer from visitors of a country they block (pages) and unknown pages are 404', async () => {
    await t.ctx.db.insertInto('performerBlockedCountries').values({ performerId: performer.id, countryCode: 'FR' }).execute();
    try {
      expect((await html(pages.performer!, { 'x-country': 'FR' })).status).toBe(404);
      expect((await html(pages.video!, { 'x-country': 'FR' })).status).toBe(404);
      expect((await html('/performers', { 'x-country': 'FR' })).body).not.toContain(`href="/performers/${performer.username}"`);
      expect((await html(pages.performer!, { 'x-country': 'IT' })).status).toBe(200);
    } finally {
      await t.ctx.db.deleteFrom('performerBlockedCountries').where('performerId', '=', performer.id).execute();
    }
    expect((await html('/videos/does-not-exist')).status).toBe(404);
    expect((await html('/performers/nobody-here')).status).toBe(404);
  });
});

describe.skipIf(!hasChromium)('catalogue journeys in chromium', () => {
  const chromium = useBrowser(() => t.url);
  let media: TestMedia;

  beforeAll(async () => {
    media = await makeTestMedia();
  }, 60_000);
  afterAll(async () => {
    await media?.cleanup();
  });

  const hydrated = waitForIsland;

  async function newPage() {
    const page = await chromium.page();
    return { context: page.context(), page };
  }

  async function login(page: Page, email: string) {
    await page.goto(`${t.url}/auth/login`);
    await hydrated(page, 'LoginForm');
    await page.getByLabel('Email or username').fill(email);
    await page.getByLabel('Password').fill(creds.password);
    await page.getByTestId('login-submit').click();
    await page.waitForURL('**/home');
  }

  it('a visitor browses home → performer → locked video, then logs in as a subscriber and plays it in full', async () => {
    const { context, page } = await newPage();
    await page.goto(`${t.url}/`);
    expect(await page.getByTestId('newest-videos').getByTestId('video-card').count()).toBeGreaterThan(0);
    await page.locator(`a[href="/performers/${performer.username}"]`).first().click();
    await page.waitForURL(`**/performers/${performer.username}`);
    expect(await page.getByTestId('performer-name').textContent()).toBeTruthy();
    expect(await page.getByTestId('performer-prices').textContent()).toContain('Monthly');

    // Lazy images get their src 200 ms after they scroll into view (timing in tests/unit/lazy-image.test.tsx).
    await hydrated(page, 'LoadMoreList');
    await expect.poll(() => page.locator('[data-testid="performer-videos"] img[data-lazy="loaded"]').count(), { timeout: 5_000 }).toBeGreaterThan(0);
    await saveScreen(page, 'performer-profile-guest', { fullPage: true });

    await page.locator(`a[href="/videos/${lockedVideo.id}"]`).first().click();
    await page.waitForURL(`**/videos/${lockedVideo.id}`);
    expect(await page.getByTestId('locked-video').count()).toBe(1);
    const teaser = await page.getByTestId('teaser').getAttribute('src');
    expect(teaser).toContain('/media/public/');
    expect(await page.getByTestId('lock-box').textContent()).toMatch(/Subscribe to/);
    expect(await page.content()).not.toContain('/media/protected/');
    const raw = await html(`/videos/${lockedVideo.id}`);
    expect(raw.body).not.toContain('/media/protected/');
    await saveScreen(page, 'catalogue-locked-video');

    // The demo fan subscribes (the row the paywall reads), then logs in.
    const fan = await t.ctx.db.selectFrom('users').select('id').where('email', '=', creds.fan.email).executeTakeFirstOrThrow();
    await subscribe(t.ctx.db, fan.id, performer.id, { startedAt: nowIso() });
    await login(page, creds.fan.email);
    await page.goto(`${t.url}/videos/${lockedVideo.id}`);
    // The page every member shares, then the subscriber's own state: the player, with the file signed for them.
    await waitForVideoControls(page);
    expect(await page.getByTestId('locked-video').count()).toBe(0);
    const player = page.getByTestId('video-player');
    await player.evaluate((v: HTMLVideoElement) => {
      v.muted = true;
      return v.play().catch(() => undefined);
    });
    await expect
      .poll(() => player.evaluate((v: HTMLVideoElement) => ({ src: v.currentSrc, ready: v.readyState, time: v.currentTime, error: v.error?.code ?? null })), { timeout: 15_000 })
      .toMatchObject({ src: expect.stringContaining('/media/protected/video/'), ready: expect.any(Number) });
    await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.readyState >= 2 || v.currentTime > 0), { timeout: 15_000 }).toBe(true);
    await saveScreen(page, 'catalogue-playing-video');
    // Screenshots of the other main pages for reviewers (tests/e2e/screens/, not committed).
    const gallery = await t.ctx.db.selectFrom('galleries').select('id').where('status', '=', 'active').executeTakeFirst();
    if (gallery) await page.goto(`${t.url}/galleries/${gallery.id}`).then(() => saveScreen(page, 'gallery', { fullPage: true }));
    const post = await t.ctx.db.selectFrom('posts').select('id').where('status', '=', 'published').where('type', '=', 'post').executeTakeFirst();
    if (post) await page.goto(`${t.url}/posts/${post.id}`).then(() => saveScreen(page, 'post', { fullPage: true }));
    await page.goto(`${t.url}/search?q=video`).then(() => saveScreen(page, 'search', { fullPage: true }));
    await context.close();
  }, 90_000);

  it("the demo performer's Posts tab holds a free post, one for subscribers and a pay-per-view one, with pictures", async () => {
    const { context, page } = await newPage();
    await page.goto(`${t.url}/performers/${performer.username}?tab=posts`);
    await hydrated(page, 'LoadMoreList');
    const cards = page.getByTestId('post-card');
    expect(await cards.count()).toBe(3);
    expect(await page.locator('[data-testid="post-card"][data-locked="true"]').count()).toBe(2);
    const text = await page.getByTestId('performer-posts').textContent();
    expect(text).toContain('Buy $4.99');
    expect(text).toContain('Subscribers');
    await saveScreen(page, 'demo-posts-tab', { fullPage: true });
    await page.locator('[data-testid="post-card"][data-locked="false"] a').first().click();
    await page.waitForURL('**/posts/**');
    expect(await page.getByTestId('post-image').count()).toBe(2);
    expect(await page.getByTestId('post-image').first().getAttribute('src')).toMatch(/^\/media\/public\/posts\/displays\//);
    await context.close();
  }, 60_000);

  it('a performer uploads a video in the studio with a progress bar and sees it become ready', async () => {
    const { context, page } = await newPage();
    await login(page, creds.performer.email);
    await page.goto(`${t.url}/studio/videos`);
    await hydrated(page, 'StudioVideos');
    await saveScreen(page, 'studio-videos', { fullPage: true });
    await page.getByTestId('video-file').setInputFiles(media.video);
    await page.getByTestId('video-title-input').fill('Studio journey clip');
    await page.getByLabel('Tags').fill('journey, e2e');
    await page.getByTestId('video-upload-submit').click();
    await expect.poll(() => page.getByTestId('upload-progress').count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => page.getByTestId('upload-percent').textContent(), { timeout: 30_000 }).toBe('Uploaded');
    expect(await page.getByTestId('upload-progress').getAttribute('value')).toBe('100');
    const row = page.locator('[data-testid="studio-video"]', { hasText: 'Studio journey clip' });
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => row.getByTestId('processing-status').textContent(), { timeout: 60_000 }).toBe('ready');
    await saveScreen(page, 'catalogue-studio-upload');
    const saved = await t.ctx.db.selectFrom('videos').select(['processingStatus', 'tags']).where('title', '=', 'Studio journey clip').executeTakeFirstOrThrow();
    expect(saved.processingStatus).toBe('ready');
    expect(saved.tags).toContain('journey');

    // Edit it in place: a new title, for sale at 4.99; the public video page shows both.
    await row.getByTestId('video-edit').click();
    const editor = page.getByTestId('item-editor');
    await expect.poll(() => editor.count()).toBe(1);
    expect(await editor.getByTestId('edit-title').inputValue()).toBe('Studio journey clip');
    await editor.getByTestId('edit-title').fill('Studio journey clip, edited');
    await editor.getByTestId('edit-visibility').selectOption('sale');
    await editor.getByTestId('edit-price').fill('4.99');
    await saveScreen(page, 'studio-video-edit', { fullPage: true });
    await editor.getByTestId('edit-save').click();
    await expect.poll(() => editor.count()).toBe(0);
    const edited = page.locator('[data-testid="studio-video"]', { hasText: 'Studio journey clip, edited' });
    await expect.poll(() => edited.count()).toBe(1);
    const id = await edited.getAttribute('data-id');
    const stored = await t.ctx.db.selectFrom('videos').select(['title', 'access', 'price']).where('id', '=', id!).executeTakeFirstOrThrow();
    expect(stored).toEqual({ title: 'Studio journey clip, edited', access: 'sale', price: 499 });
    await context.close();

    const guest = await newPage();
    await guest.page.goto(`${t.url}/videos/${id}`);
    expect(await guest.page.getByTestId('video-title').textContent()).toBe('Studio journey clip, edited');
    expect(await guest.page.getByTestId('video-price').textContent()).toContain('4.99');
    await guest.context.close();
  }, 120_000);
});
