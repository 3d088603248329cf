import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { axeProblems, hasChromium, saveScreen, useBrowser, waitForIsland } from '../helpers/browser.js';
import { postForm, waitFor } from '../helpers/uploads.js';
import { createSession } from '../helpers/sessions.js';
import { seedDemo, type DemoCredentials } from '../../server/seed/seed.js';
import { subscribe } from '../../server/seed/factories.js';
import { renderArt } from '../../server/media/images.js';
import { nowIso } from '../../server/db/ids.js';

/**
 * Issue #17, points 1 and 10, in chromium over the demo site (desktop 1366x900, phone 390x844):
 * - paid photos: a guest sees a locked gallery blurred and the viewer offers the paywall; a subscriber sees the
 *   same photos sharp (signed URLs a guest cannot open) and pages through them in the viewer with the keyboard,
 *   the buttons and, on a phone, a swipe;
 * - images: the home banner's caption is text and it rotates with its controls; lazy images load as they scroll
 *   into view, in hydrated and in HTML-only lists; the home, performer and video pages do not shift as they load.
 */

const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const PHOTOS = 7;

let t: TestApp;
let creds: DemoCredentials;
let performer: { id: string; username: string };
let gallery: { id: string; photoIds: string[] };
let fanToken: string;
let videoId: string;

beforeAll(async () => {
  t = await startTestApp('sqlite', { web: true, env: { JOBS_POLL_MS: '100' } });
  const seeded = await seedDemo({ db: t.ctx.db, config: t.config, logger: { info() {}, warn() {}, error: console.error }, scale: 0.3 });
  creds = seeded.credentials!;
  const db = t.ctx.db;
  performer = await db.selectFrom('performers').select(['id', 'username']).where('username', '=', creds.performer.username).executeTakeFirstOrThrow();

  // A subscribers-only gallery made the way a performer makes one: studio API, uploads, the real photo pipeline
  // (blurred public thumbnails, sharp private ones).
  const headers = { authorization: `Bearer ${await createSession(db, performer.id)}` };
  const created = await t.api('/performer/assets/galleries', { method: 'POST', json: { title: 'Golden hour', description: 'Subscribers only.', visibility: 'subscribers' }, headers });
  expect(created.status).toBe(201);
  const files = [];
  for (let k = 0; k < PHOTOS; k++) {
    const [width, height] = k % 3 === 2 ? [900, 1200] : [1200, 900];
    const art = await renderArt({ width, height, title: `Golden hour ${k + 1}`, seed: `golden-${k}` }, 'jpeg', 85);
    files.push({ name: 'file', filename: `golden-${k + 1}.jpg`, data: art.buffer, type: 'image/jpeg' });
  }
  const uploaded = await postForm(t, '/performer/assets/photos/upload', { fields: { galleryId: created.body._id, title: 'Golden hour' }, files }, { headers });
  expect(uploaded.status).toBe(201);
  const photoIds = uploaded.body.items.map((p: { _id: string }) => p._id) as string[];
  await waitFor(async () => {
    const rows = await db.selectFrom('photos').select('processingStatus').where('id', 'in', photoIds).execute();
    return rows.every((r) => r.processingStatus === 'ready');
  }, 'the photos to be processed', 60_000);
  gallery = { id: created.body._id, photoIds };

  // The demo fan subscribes to the performer (the row the paywall reads).
  const fan = await db.selectFrom('users').select('id').where('email', '=', creds.fan.email).executeTakeFirstOrThrow();
  await subscribe(db, fan.id, performer.id, { startedAt: nowIso() });
  fanToken = await createSession(db, fan.id);
  const video = await db.selectFrom('videos').select('id').where('performerId', '=', performer.id).where('status', '=', 'active').orderBy('publishedAt', 'desc').executeTakeFirstOrThrow();
  videoId = video.id;
}, 240_000);
afterAll(async () => {
  await t?.close();
});

describe.skipIf(!hasChromium)('paid photos and images in chromium', () => {
  const chromium = useBrowser(() => t.url);

  async function open(opts: { as?: 'guest' | 'fan'; viewport?: { width: number; height: number }; touch?: boolean; reducedMotion?: 'reduce' | 'no-preference'; axe?: boolean } = {}) {
    const page = await chromium.page({
      as: opts.as === 'fan' ? { token: fanToken, username: 'fan' } : null,
      // The site's CSP refuses inline scripts, axe's included: only the contexts that run axe bypass it.
      bypassCSP: opts.axe ?? false,
      viewport: opts.viewport ?? DESKTOP,
      hasTouch: opts.touch ?? false,
      isMobile: opts.touch ?? false,
      reducedMotion: opts.reducedMotion ?? 'no-preference',
    });
    return { context: page.context(), page };
  }

  /** The card thumbnails of the gallery page, in order, once each has loaded. */
  async function thumbnails(page: Page) {
    const cards = page.getByTestId('photo-card');
    await expect.poll(() => cards.count()).toBe(PHOTOS);
    for (let i = 0; i < PHOTOS; i++) {
      const img = cards.nth(i).locator('img:not(noscript img)');
      await img.scrollIntoViewIfNeeded();
      await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0), { timeout: 10_000 }).toBe(true);
    }
    return cards.locator('img:not(noscript img)').evaluateAll((imgs: HTMLImageElement[]) => imgs.map((i) => i.currentSrc));
  }

  /** Mean colour difference between neighbouring pixels of a loaded picture: high when sharp, near zero when blurred. */
  const detail = (page: Page, src: string) =>
    page.evaluate(async (url) => {
      const img = new Image();
      img.src = url;
      await img.decode();
      const canvas = document.createElement('canvas');
      const w = (canvas.width = 240);
      const h = (canvas.height = Math.round((w * img.naturalHeight) / img.naturalWidth));
      const g = canvas.getContext('2d')!;
      g.drawImage(img, 0, 0, w, h);
      const d = g.getImageData(0, 0, w, h).data;
      let sum = 0;
      for (let y = 0; y < h; y++) for (let x = 0; x < w - 1; x++) for (let c = 0; c < 3; c++) sum += Math.abs(d[(y * w + x) * 4 + c]! - d[(y * w + x + 1) * 4 + c]!);
      return sum / (h * (w - 1) * 3);
    }, src);

  const counter = (page: Page) => page.getByTestId('photo-viewer-counter').textContent().then((s) => s?.replace(/^Photo\s*/, '').trim());
  const focusInViewer = (page: Page) => page.evaluate(() => !!document.activeElement?.closest('[role="dialog"]'));

  let guestThumbs: string[] = [];

  it('a guest sees the locked gallery blurred, and the viewer shows the preview with the paywall, never a file', async () => {
    const { context, page } = await open();
    await page.goto(`${t.url}/galleries/${gallery.id}`);
    await waitForIsland(page, 'LoadMoreList');
    guestThumbs = await thumbnails(page);
    // All public previews; nothing signed is named anywhere in the page.
    for (const src of guestThumbs) expect(src).toContain('/media/public/photos/thumbs/');
    expect(await page.content()).not.toContain('/media/protected/');
    expect(await page.getByTestId('photo-card').first().getByText('Subscribers').count()).toBe(1);
    await saveScreen(page, 'photos-gallery-guest', { fullPage: true });

    await page.getByTestId('photo-card').nth(2).locator('[data-photo-open]').click();
    const viewer = page.getByRole('dialog', { name: 'Photo viewer' });
    await expect.poll(() => viewer.count()).toBe(1);
    expect(await viewer.getAttribute('aria-modal')).toBe('true');
    expect(await counter(page)).toBe(`3 / ${PHOTOS}`);
    expect(await page.getByTestId('photo-viewer-image').count()).toBe(0);
    expect(await page.getByTestId('photo-viewer-preview').getAttribute('src')).toBe(new URL(guestThumbs[2]!).pathname);
    expect(await page.getByTestId('photo-viewer-paywall').textContent()).toContain('Subscribe to see this photo in full.');
    await page.keyboard.press('ArrowRight');
    expect(await counter(page)).toBe(`4 / ${PHOTOS}`);
    await saveScreen(page, 'photos-viewer-guest-paywall');
    // The prompt leads to the page's unlock box, focus and all.
    await page.getByTestId('photo-viewer-unlock').click();
    await expect.poll(() => viewer.count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('unlock');
    await context.close();
  }, 90_000);

  it('a subscriber sees the same photos sharp and pages through them in the viewer with keys and buttons', async () => {
    const { context, page } = await open({ as: 'fan' });
    await page.goto(`${t.url}/galleries/${gallery.id}`);
    expect(await page.getByTestId('lock-box').count()).toBe(0);
    await waitForIsland(page, 'LoadMoreList');
    const thumbs = await thumbnails(page);
    // The cover is the public face of the gallery (sharp for everyone); every other photo comes signed, sharp.
    expect(thumbs[0]).toBe(guestThumbs[0]);
    for (const src of thumbs.slice(1)) expect(src).toMatch(/\/media\/protected\/photo\/[^/]+\/[^/?]+\?u=/);
    for (let i = 1; i < PHOTOS; i++) {
      const [sharp, blurred] = [await detail(page, thumbs[i]!), await detail(page, guestThumbs[i]!)];
      expect(sharp, `photo ${i + 1}: ${sharp} vs blurred ${blurred}`).toBeGreaterThan(blurred * 3);
    }
    await saveScreen(page, 'photos-gallery-subscriber', { fullPage: true });

    // A signed thumbnail is the subscriber's alone: the same URL without their session is refused.
    const guest = await chromium.context();
    const refused = await guest.request.get(thumbs[1]!);
    expect(refused.status()).toBe(403);
    expect((await refused.json()).code).toBe('MEDIA_URL_OTHER_USER');
    await guest.close();

    const cards = page.getByTestId('photo-card');
    await cards.nth(0).locator('[data-photo-open]').click();
    const viewer = page.getByRole('dialog', { name: 'Photo viewer' });
    await expect.poll(() => viewer.count()).toBe(1);
    expect(await counter(page)).toBe(`1 / ${PHOTOS}`);
    expect(await page.getByTestId('photo-viewer-paywall').count()).toBe(0);
    const image = page.getByTestId('photo-viewer-image');
    await expect.poll(() => image.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBeGreaterThanOrEqual(900);
    expect(await image.getAttribute('src')).toMatch(/^\/media\/protected\/photo\//);
    expect(await image.getAttribute('alt')).toBe('Golden hour 1');
    expect(await page.getByTestId('photo-viewer-prev').isDisabled()).toBe(true);
    expect(await focusInViewer(page)).toBe(true);
    await saveScreen(page, 'photos-viewer-subscriber');
    // A click on the photo itself leaves the keys working.
    await image.click();
    await page.keyboard.press('ArrowRight');
    expect(await counter(page)).toBe(`2 / ${PHOTOS}`);
    await page.keyboard.press('ArrowLeft');
    expect(await counter(page)).toBe(`1 / ${PHOTOS}`);

    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    expect(await counter(page)).toBe(`3 / ${PHOTOS}`);
    expect(await image.getAttribute('alt')).toBe('Golden hour 3');
    await page.keyboard.press('ArrowLeft');
    expect(await counter(page)).toBe(`2 / ${PHOTOS}`);
    await page.getByTestId('photo-viewer-next').click();
    expect(await counter(page)).toBe(`3 / ${PHOTOS}`);
    // Tab goes round the dialog's controls and never reaches the page behind.
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      expect(await focusInViewer(page)).toBe(true);
    }
    await page.keyboard.press('Shift+Tab');
    expect(await focusInViewer(page)).toBe(true);
    for (let i = 3; i < PHOTOS; i++) await page.keyboard.press('ArrowRight');
    expect(await counter(page)).toBe(`${PHOTOS} / ${PHOTOS}`);
    expect(await page.getByTestId('photo-viewer-next').isDisabled()).toBe(true);
    await page.keyboard.press('ArrowLeft');
    // Escape closes; focus goes back to the card of the photo last shown.
    await page.keyboard.press('Escape');
    await expect.poll(() => viewer.count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.closest('[data-testid="photo-card"]')?.querySelector('img')?.getAttribute('alt'))).toBe(`Golden hour ${PHOTOS - 1}`);
    expect(await page.evaluate(() => document.documentElement.classList.contains('has-modal'))).toBe(false);
    await context.close();
  }, 90_000);

  it('on a phone the viewer fits the screen and a swipe moves between photos', async () => {
    const { context, page } = await open({ as: 'fan', viewport: PHONE, touch: true });
    await page.goto(`${t.url}/galleries/${gallery.id}`);
    await waitForIsland(page, 'LoadMoreList');
    await page.getByTestId('photo-card').nth(1).locator('[data-photo-open]').tap();
    const viewer = page.getByRole('dialog', { name: 'Photo viewer' });
    await expect.poll(() => viewer.count()).toBe(1);
    expect(await counter(page)).toBe(`2 / ${PHOTOS}`);
    const image = page.getByTestId('photo-viewer-image');
    await expect.poll(() => image.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0)).toBe(true);
    // Nothing wider than the screen; the controls are inside it.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    for (const id of ['photo-viewer-prev', 'photo-viewer-next', 'photo-viewer-close']) {
      const box = (await page.getByTestId(id).boundingBox())!;
      expect(box.x >= 0 && box.x + box.width <= PHONE.width && box.y + box.height <= PHONE.height, id).toBe(true);
    }
    await saveScreen(page, 'photos-viewer-phone');

    // Real touch input (the DevTools protocol), finger moving right to left: the next photo; then back.
    const cdp = await context.newCDPSession(page);
    const swipe = async (fromX: number, toX: number) => {
      const y = 400;
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: fromX, y }] });
      for (let k = 1; k <= 5; k++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: fromX + ((toX - fromX) * k) / 5, y }] });
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    };
    await swipe(320, 60);
    await expect.poll(() => counter(page)).toBe(`3 / ${PHOTOS}`);
    await swipe(320, 60);
    await expect.poll(() => counter(page)).toBe(`4 / ${PHOTOS}`);
    await swipe(60, 320);
    await expect.poll(() => counter(page)).toBe(`3 / ${PHOTOS}`);
    // A swipe to the right is the viewer's, not the browser's "back".
    expect(page.url()).toBe(`${t.url}/galleries/${gallery.id}`);
    // A short or mostly vertical move is not a swipe.
    await swipe(200, 190);
    expect(await counter(page)).toBe(`3 / ${PHOTOS}`);
    await page.getByTestId('photo-viewer-close').tap();
    await expect.poll(() => viewer.count()).toBe(0);
    await context.close();
  }, 90_000);

  it('the open viewer and the banner carousel pass axe (no serious or critical problem)', async () => {
    const found: string[] = [];
    for (const as of ['guest', 'fan'] as const) {
      const { context, page } = await open({ as, axe: true });
      await page.goto(`${t.url}/galleries/${gallery.id}`, { waitUntil: 'networkidle' });
      await waitForIsland(page, 'LoadMoreList');
      await page.getByTestId('photo-card').nth(1).locator('[data-photo-open]').click();
      await expect.poll(() => page.getByRole('dialog', { name: 'Photo viewer' }).count()).toBe(1);
      for (const v of await axeProblems(page)) found.push(`viewer (${as}): [${v.impact}] ${v.rule}: ${v.help} at ${v.targets.join(' | ')}`);
      await page.goto(`${t.url}/`, { waitUntil: 'networkidle' });
      await waitForIsland(page, 'BannerCarousel');
      for (const v of await axeProblems(page)) found.push(`home (${as}): [${v.impact}] ${v.rule}: ${v.help} at ${v.targets.join(' | ')}`);
      await context.close();
    }
    expect(found).toEqual([]);
  }, 90_000);

  // ---------------------------------------------------------------------------------------------------------------
  // Images behave (point 10).

  const current = (page: Page) => page.getByTestId('banners').getAttribute('data-current');
  const rotating = (page: Page) => page.getByTestId('banners').getAttribute('data-rotating');
  /** Takes the pointer and keyboard focus off the banners (either one holds the rotation). */
  const leaveBanners = async (page: Page) => {
    await page.mouse.move(5, DESKTOP.height - 5);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  };

  it('the home banner shows its caption as text and rotates, with previous/next, dots and pause', async () => {
    const banners = await t.ctx.db.selectFrom('banners').select(['title', 'description']).where('status', '=', 'active').where('position', '=', 'top').orderBy('ordering').execute();
    expect(banners.length).toBeGreaterThan(1);
    const { context, page } = await open();
    await page.goto(`${t.url}/`);
    await waitForIsland(page, 'BannerCarousel');
    // The caption is the banner row's own text, not pixels of the picture.
    expect(await page.getByTestId('banner-title').allTextContents()).toEqual(banners.map((b) => b.title));
    for (const b of banners) if (b.description) expect(await page.getByTestId('banners').getByText(b.description).count()).toBe(1);
    // The controls come with the render after hydration (the island's `ready` effect), not with hydration itself.
    await page.getByTestId('banner-controls').waitFor();
    const dots = page.getByTestId('banner-dot');
    expect(await dots.count()).toBe(banners.length);
    expect(await dots.first().getAttribute('aria-current')).toBe('true');
    expect(await page.getByTestId('banners').getAttribute('aria-roledescription')).toBe('carousel');
    await saveScreen(page, 'banner-home-desktop');

    const shown = async () =>
      page.getByTestId('banners').evaluate((el) => {
        const frame = el.querySelector('.banners__track')!.getBoundingClientRect();
        return [...el.querySelectorAll('[data-testid="banner"]')].findIndex((s) => Math.abs(s.getBoundingClientRect().left - frame.left) < 2);
      });
    await page.getByRole('button', { name: 'Next banner' }).click();
    await expect.poll(() => current(page)).toBe('1');
    await expect.poll(shown).toBe(1);
    expect(await dots.nth(1).getAttribute('aria-current')).toBe('true');
    expect(await dots.first().getAttribute('aria-current')).toBeNull();
    // The pointer and focus are on the controls: no rotation under the visitor's hand.
    expect(await rotating(page)).toBe('false');
    await page.getByRole('button', { name: 'Previous banner' }).click();
    await expect.poll(() => current(page)).toBe('0');
    await page.getByRole('button', { name: 'Previous banner' }).click();
    await expect.poll(() => current(page)).toBe(String(banners.length - 1));
    await expect.poll(shown).toBe(banners.length - 1);
    await page.getByRole('button', { name: `Show banner 1 of ${banners.length}: ${banners[0]!.title}` }).click();
    await expect.poll(() => current(page)).toBe('0');

    // Left alone, it moves on by itself.
    await leaveBanners(page);
    await expect.poll(() => rotating(page)).toBe('true');
    await expect.poll(() => current(page), { timeout: 15_000 }).toBe('1');
    await expect.poll(shown).toBe(1);

    // Paused, it stays (longer than a rotation takes); played again, it moves on.
    await page.getByRole('button', { name: 'Pause the banners' }).click();
    await leaveBanners(page);
    expect(await rotating(page)).toBe('false');
    const paused = await current(page);
    await page.waitForTimeout(7_000);
    expect(await current(page)).toBe(paused);
    await page.getByRole('button', { name: 'Play the banners' }).click();
    await leaveBanners(page);
    await expect.poll(() => current(page), { timeout: 15_000 }).not.toBe(paused);
    await context.close();

    // On a phone: the caption fits, the controls are inside the screen.
    const phone = await open({ viewport: PHONE, touch: true });
    await phone.page.goto(`${t.url}/`);
    await waitForIsland(phone.page, 'BannerCarousel');
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    const controls = (await phone.page.getByTestId('banner-controls').boundingBox())!;
    expect(controls.x + controls.width).toBeLessThanOrEqual(PHONE.width);
    const first = phone.page.getByTestId('banner').first();
    const [slide, caption] = [(await first.boundingBox())!, (await first.locator('.banner__text').boundingBox())!];
    expect(caption.y).toBeGreaterThanOrEqual(slide.y);
    expect(caption.y + caption.height).toBeLessThanOrEqual(slide.y + slide.height + 1);
    await saveScreen(phone.page, 'banner-home-phone');
    await phone.context.close();
  }, 120_000);

  it('does not rotate for a visitor who prefers reduced motion (they may press play)', async () => {
    const { context, page } = await open({ reducedMotion: 'reduce' });
    await page.goto(`${t.url}/`);
    await waitForIsland(page, 'BannerCarousel');
    await expect.poll(() => page.getByTestId('banner-pause').getAttribute('aria-label')).toBe('Play the banners');
    expect(await rotating(page)).toBe('false');
    await page.getByRole('button', { name: 'Play the banners' }).click();
    await leaveBanners(page);
    await expect.poll(() => rotating(page)).toBe('true');
    await context.close();
  }, 60_000);

  /** Scrolls the page down half a screen at a time, as a reader would, then back to the top. */
  const scrollThrough = (page: Page) =>
    page.evaluate(async () => {
      for (let y = 0; y < document.documentElement.scrollHeight; y += window.innerHeight / 2) {
        window.scrollTo(0, y);
        await new Promise((r) => setTimeout(r, 300));
      }
    });

  /** The page's images (outside <noscript>), and whether each is in the viewport now. */
  const pageImages = (page: Page) =>
    page.evaluate(() =>
      [...document.querySelectorAll<HTMLImageElement>('main img:not(noscript img)')].map((img) => {
        const r = img.getBoundingClientRect();
        return {
          src: img.getAttribute('src'),
          lazy: img.dataset.lazy ?? null,
          loaded: img.complete && img.naturalWidth > 0,
          inView: r.bottom > 0 && r.top < window.innerHeight && r.right > 0 && r.left < window.innerWidth && r.width > 0,
          // A delayed lazy image needs its island hydrated, or nothing ever gives it a src.
          inHydratedIsland: !!img.closest('astro-island:not([ssr])'),
        };
      }),
    );

  it('lazy images load as they scroll into view: lists, "More from…" and performer cards', async () => {
    const { context, page } = await open();
    for (const path of ['/', `/performers/${performer.username}`, `/videos/${videoId}`, `/galleries/${gallery.id}`]) {
      await page.goto(`${t.url}${path}`);
      await page.waitForLoadState('load');
      // Down the page half a screen at a time: whatever is in view loads.
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      let seen = 0;
      for (let y = 0; y < height; y += PHONE.height / 2) {
        await page.evaluate((top) => window.scrollTo(0, top), y);
        await expect
          .poll(async () => (await pageImages(page)).filter((i) => i.inView && !i.loaded), { timeout: 10_000, message: `${path} at ${y}px` })
          .toEqual([]);
        seen += (await pageImages(page)).filter((i) => i.inView).length;
      }
      expect(seen, path).toBeGreaterThan(0);
      // Every image waiting for its turn is in a hydrated island (an HTML-only one would wait for ever).
      for (const img of await pageImages(page)) if (img.lazy) expect(img, path).toMatchObject({ inHydratedIsland: true });
    }
    // The video page's "More from…" list is HTML only (no island): its thumbnails load the browser's own lazy way.
    await page.goto(`${t.url}/videos/${videoId}`);
    const more = page.getByTestId('more-videos').locator('img');
    expect(await more.count()).toBeGreaterThan(0);
    expect(await page.getByTestId('more-videos').evaluate((el) => !!el.closest('astro-island'))).toBe(false);
    await page.getByTestId('more-videos').scrollIntoViewIfNeeded();
    await expect.poll(() => more.evaluateAll((imgs: HTMLImageElement[]) => imgs.every((i) => i.getAttribute('loading') === 'lazy' && i.complete && i.naturalWidth > 0)), { timeout: 10_000 }).toBe(true);
    await saveScreen(page, 'video-more-from', { fullPage: true });
    await context.close();
  }, 120_000);

  it('home, performer and video pages do not shift while they load: avatars and covers keep their place (CLS < 0.1)', async () => {
    const results: Record<string, number> = {};
    for (const [device, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      for (const [name, path] of [['home', '/'], ['performer', `/performers/${performer.username}`], ['video', `/videos/${videoId}`]] as const) {
        const { context, page } = await open({ viewport, touch: device === 'phone' });
        await page.addInitScript(() => {
          const w = window as unknown as { __cls: number; __shifts: string[] };
          w.__cls = 0;
          w.__shifts = [];
          new PerformanceObserver((list) => {
            for (const e of list.getEntries() as Array<PerformanceEntry & { value: number; hadRecentInput: boolean; sources?: Array<{ node?: Node | null }> }>) {
              if (e.hadRecentInput) continue;
              w.__cls += e.value;
              w.__shifts.push(`${e.value.toFixed(4)} ${(e.sources ?? []).map((s) => (s.node as Element | null)?.outerHTML?.slice(0, 80) ?? '?').join(' | ')}`);
            }
          }).observe({ type: 'layout-shift', buffered: true });
        });
        await page.goto(`${t.url}${path}`);
        await page.waitForLoadState('load');
        await scrollThrough(page);
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.waitForTimeout(500);
        const { cls, shifts } = await page.evaluate(() => ({ cls: (window as unknown as { __cls: number }).__cls, shifts: (window as unknown as { __shifts: string[] }).__shifts }));
        results[`${name} ${device}`] = cls;
        if (shifts.length) console.info(`${name} on ${device} shifted:\n${shifts.join('\n')}`);
        expect(cls, `${name} on ${device}: ${shifts.join('\n')}`).toBeLessThan(0.1);
        await context.close();
      }
    }
    console.info('layout shift (sum of all shifts, stricter than CLS):', results);
  }, 180_000);
});
