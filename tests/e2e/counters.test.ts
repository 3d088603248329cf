import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { hasChromium, saveScreen, useBrowser, waitForIsland, waitForVideoControls } from '../helpers/browser.js';
import { makeVideo } from '../../server/seed/factories.js';
import { payWithSandbox } from '../helpers/money-fixture.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { makeTestMedia, type TestMedia } from '../helpers/uploads.js';
import { bumpPerformerCounter } from '../../server/studio/studio.repository.js';
import fsp from 'node:fs/promises';

/**
 * Counts read right: a performer with one subscriber and one video, whose video has one like, one comment
 * and one view, says so in the singular on the performer page and the video page, on a desktop and on a phone
 * (390×844). Every one of those is made the real way: the subscription through the checkout and the sandbox
 * provider's webhook, the like and the comment through the API, the view by playing the video in the browser (the
 * player reports the play). Screenshots in tests/e2e/screens/counters-*.png.
 */

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
/** A count of one followed by a plural noun, anywhere in the page's text. */
const WRONG_SINGULAR = /(^|[^\d,.])1 (subscribers|videos|views|likes|favourites|comments|photos|galleries|products|performers|items)\b/;

describe.skipIf(!hasChromium)('counts of one read singular in chromium', () => {
  let t: TestApp;
  const chromium = useBrowser(() => t.url);
  let media: TestMedia;
  let performer: TestUser;
  let fan: TestUser;
  let videoId: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true });
    media = await makeTestMedia();
    const ctx = { db: t.ctx.db, storage: t.ctx.storage };
    performer = await createUser(t.ctx.db, 'performer', { username: 'solo', name: 'Solo Singular', performer: { monthlyPrice: 500, yearlyPrice: 5000 } });
    fan = await createUser(t.ctx.db, 'user', { name: 'Only Fan' });
    // One video, counted on the performer as the studio counts an upload; its file a real clip, so it plays.
    const video = await makeVideo(ctx, performer.id, { title: 'The only video', access: 'free' });
    await bumpPerformerCounter(t.ctx.db, performer.id, 'videoCount', 1);
    const file = await t.ctx.db.selectFrom('files').select('storageKey').where('id', '=', video.fileId!).executeTakeFirstOrThrow();
    await t.ctx.storage.put(file.storageKey, await fsp.readFile(media.video));
    videoId = video.id;

    // One subscriber: checkout, then Approve on the sandbox page (its webhook settles the payment).
    const checkout = await t.api('/payment/subscribe', { method: 'POST', headers: fan.headers, json: { performerId: performer.id, type: 'monthly' } });
    expect(checkout.status, JSON.stringify(checkout.body)).toBe(201);
    expect((await payWithSandbox(t, fan, checkout.body.redirectUrl)).status).toBe(200);
    // One like, one comment.
    expect((await t.api('/reactions', { method: 'POST', headers: fan.headers, json: { objectType: 'video', objectId: videoId, action: 'like' } })).body.count).toBe(1);
    expect((await t.api('/comments', { method: 'POST', headers: fan.headers, json: { objectType: 'video', objectId: videoId, content: 'The one and only comment.' } })).status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await media?.cleanup();
  });

  async function open(viewport: { width: number; height: number }, path: string, user?: TestUser): Promise<Page> {
    const page = await chromium.page({ as: user, viewport });
    await page.goto(`${t.url}${path}`);
    return page;
  }

  it('playing the video in the browser counts one view', async () => {
    const page = await open(DESKTOP, `/videos/${videoId}`, fan);
    expect(await page.getByTestId('video-views').textContent()).toBe('0 views');
    await waitForIsland(page, 'VideoPlayer');
    await page.getByTestId('video-player').evaluate((v: HTMLVideoElement) => {
      v.muted = true;
      return v.play().catch(() => undefined);
    });
    await expect
      .poll(async () => (await t.ctx.db.selectFrom('videos').select('viewCount').where('id', '=', videoId).executeTakeFirstOrThrow()).viewCount, { timeout: 15_000 })
      .toBe(1);
    // Playing again on the same page, or after a reload within the hour, is the same viewer.
    await page.reload();
    await waitForIsland(page, 'VideoPlayer');
    await page.getByTestId('video-player').evaluate((v: HTMLVideoElement) => {
      v.muted = true;
      return v.play().catch(() => undefined);
    });
    await page.waitForTimeout(500);
    expect((await t.ctx.db.selectFrom('videoViews').select('id').where('videoId', '=', videoId).execute()).length).toBe(1);
    await page.context().close();
  }, 60_000);

  for (const [device, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    it(`${device}: the performer page says 1 subscriber and 1 video`, async () => {
      const page = await open(viewport, '/performers/solo');
      expect(await page.getByTestId('performer-subscriber-count').textContent()).toBe('1 subscriber');
      expect(await page.getByTestId('performer-video-count').textContent()).toBe('1 video');
      expect((await page.getByTestId('tab-videos').textContent())?.trim()).toBe('Videos (1)');
      const text = await page.locator('body').innerText();
      expect(text).not.toMatch(WRONG_SINGULAR);
      await saveScreen(page, `counters-performer-${device}`);
      await page.context().close();
    });

    it(`${device}: the video page says 1 view, 1 like and 1 comment`, async () => {
      const page = await open(viewport, `/videos/${videoId}`, device === 'phone' ? undefined : fan);
      expect(await page.getByTestId('video-views').textContent()).toBe('1 view');
      await page.locator('[data-slot="comments"]').scrollIntoViewIfNeeded();
      await waitForIsland(page, 'Comments');
      await expect.poll(() => page.getByTestId('comments').locator('h2').textContent()).toBe('1 comment');
      // A member's buttons wait for their state on the page; a guest's are the page's own.
      await (device === 'phone' ? waitForIsland(page, 'ReactionButtons') : waitForVideoControls(page));
      expect(await page.getByTestId('reaction-like-count').textContent()).toBe('1');
      // The count's noun is there for a screen reader: the button is named "Like 1 like" (or "Liked 1 like").
      expect(await page.getByTestId('reaction-like').evaluate((b) => b.textContent)).toMatch(/^Liked? ?1 like$/);
      const text = await page.locator('body').innerText();
      expect(text).not.toMatch(WRONG_SINGULAR);
      await saveScreen(page, `counters-video-${device}`, { fullPage: true });
      await page.context().close();
    });
  }

  it('the performer list card says 1 video', async () => {
    const page = await open(DESKTOP, '/performers');
    const card = page.getByTestId('performer-card').filter({ hasText: 'Solo Singular' });
    expect(await card.locator('.performer-card__meta').textContent()).toBe('@solo · 1 video');
    await page.context().close();
  });
});
