import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { hasChromium, saveScreen, useBrowser, waitForIsland, waitForPerformerControls } from '../helpers/browser.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { subscribe } from '../../server/seed/factories.js';
import { startInstance } from '../helpers/realtime-client.js';

/**
 * Messages in chromium (docs/product.md, Messages): a fan on a phone opens a conversation from the performer's page
 * and writes; the performer, on a desktop in another browser context, sees the header's unread badge appear live,
 * opens the thread (the badge clears, the fan sees "Seen"), answers with a picture, and the answer reaches the fan's
 * thread live. A fan who may not write sees why on the performer's page.
 */
describe.skipIf(!hasChromium)('messages in chromium', () => {
  let t: TestApp;
  let performer: TestUser;
  let fan: TestUser;
  let stranger: TestUser;
  const chromium = useBrowser(() => t.url);
  const noSideScroll = (p: Page) => p.evaluate((width) => document.documentElement.scrollWidth <= width, p.viewportSize()!.width);
  const connected = (p: Page) => expect.poll(() => p.getByTestId('realtime-status').getAttribute('data-status'), { timeout: 15_000 }).toBe('connected');

  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true, env: { JOBS_POLL_MS: '100' } });
    performer = await createUser(t.ctx.db, 'performer', { name: 'Nova Notes' });
    fan = await createUser(t.ctx.db, 'user', { name: 'Chatty Fan' });
    stranger = await createUser(t.ctx.db, 'user', { name: 'Not Subscribed' });
    await subscribe(t.ctx.db, fan.id, performer.id);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('a fan who may not write sees why on the performer\'s page', async () => {
    const page = await chromium.page({ as: stranger });
    await page.goto(`${t.url}/performers/${performer.username}`);
    await page.getByTestId('message-button').scrollIntoViewIfNeeded();
    await waitForPerformerControls(page);
    expect(await page.getByTestId('message-button').isDisabled()).toBe(true);
    expect(await page.getByTestId('message-why-not').textContent()).toContain('Only subscribers can message this performer first');
  });

  it('a fan on a phone and a performer on a desktop talk live; the unread badge appears and clears', async () => {
    const fanPage = await chromium.page({ as: fan, phone: true, viewport: { width: 390, height: 844 } });
    const perfPage = await chromium.page({ as: performer, viewport: { width: 1280, height: 900 } });
    await perfPage.goto(`${t.url}/studio`);
    await waitForIsland(perfPage, 'MessagesLink');
    await connected(perfPage);
    expect(await perfPage.getByTestId('messages-badge').count()).toBe(0);

    // The fan opens the conversation from the performer's page and writes.
    await fanPage.goto(`${t.url}/performers/${performer.username}`);
    await fanPage.getByTestId('message-button').scrollIntoViewIfNeeded();
    await waitForPerformerControls(fanPage);
    await fanPage.getByTestId('message-button').click();
    await fanPage.waitForURL(/\/messages\/[0-9a-f]+$/);
    const conversationId = fanPage.url().split('/').pop()!;
    await waitForIsland(fanPage, 'Inbox');
    await connected(fanPage);
    // On a phone the thread is its own screen: the list is hidden, the way back shown.
    expect(await fanPage.getByTestId('conversation-list').isVisible()).toBe(false);
    expect(await fanPage.getByTestId('inbox-back').isVisible()).toBe(true);
    await fanPage.getByTestId('composer-text').fill('Hello Nova, loved the last video!');
    await fanPage.getByTestId('composer-send').click();
    await expect.poll(() => fanPage.getByTestId('message').count()).toBe(1);
    // The message can arrive over the socket before the send's answer, which is what clears the composer.
    await expect.poll(() => fanPage.getByTestId('composer-text').inputValue()).toBe('');

    // The performer's badge appears without a reload.
    await expect.poll(() => perfPage.getByTestId('messages-badge').textContent(), { timeout: 15_000 }).toBe('1');
    await perfPage.getByTestId('messages-link').click();
    await perfPage.waitForURL('**/messages');
    await waitForIsland(perfPage, 'Inbox');
    const item = perfPage.locator(`[data-testid="conversation-item"][data-conversation-id="${conversationId}"]`);
    expect(await item.getByTestId('conversation-unread').textContent()).toBe('1');
    expect(await item.textContent()).toContain('Hello Nova');
    await item.click();
    await perfPage.waitForURL(`**/messages/${conversationId}`);
    await waitForIsland(perfPage, 'Inbox');
    await connected(perfPage);
    // Opening the thread reads it: the badge clears, the fan sees "Seen".
    await expect.poll(() => perfPage.getByTestId('messages-badge').count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => fanPage.getByTestId('message-seen').count(), { timeout: 15_000 }).toBe(1);
    // Side by side on a desktop.
    expect(await perfPage.getByTestId('conversation-list').isVisible()).toBe(true);

    // The performer answers with a picture; it reaches the fan's open thread live, and the fan's view reads it.
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'msg-')), 'wave.png');
    fs.writeFileSync(file, await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 30, g: 160, b: 90 } } }).png().toBuffer());
    await perfPage.getByTestId('composer-files').setInputFiles(file);
    await perfPage.getByTestId('composer-text').fill('Thank you! Here is a wave.');
    await perfPage.getByTestId('composer-send').click();
    await expect.poll(() => fanPage.getByTestId('message').count(), { timeout: 15_000 }).toBe(2);
    expect(await fanPage.getByTestId('message').nth(1).textContent()).toContain('Thank you! Here is a wave.');
    const img = fanPage.getByTestId('message-image');
    expect(await img.getAttribute('src')).toMatch(/^\/media\/protected\/message\//);
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth), { timeout: 15_000 }).toBe(40);
    // The fan had the thread open: it is read at once, and the fan's badge shows nothing.
    await expect.poll(() => perfPage.getByTestId('message-seen').count(), { timeout: 15_000 }).toBe(1);
    expect(await fanPage.getByTestId('messages-badge').count()).toBe(0);
    expect(await noSideScroll(fanPage)).toBe(true);
    await saveScreen(fanPage, 'messages-thread-phone', { fullPage: false });
    await saveScreen(perfPage, 'messages-desktop', { fullPage: false });

    // The performer blocks the fan from the thread; the fan's page then says so.
    await perfPage.getByTestId('block-toggle').click();
    await expect.poll(() => perfPage.getByTestId('block-toggle').textContent()).toBe('Unblock');
    await fanPage.reload();
    await waitForIsland(fanPage, 'Inbox');
    expect(await fanPage.getByTestId('cannot-send').textContent()).toContain('does not accept messages from you');
    // And unblocks from the studio's list.
    await perfPage.goto(`${t.url}/studio/messages`);
    await waitForIsland(perfPage, 'StudioMessaging');
    expect(await perfPage.getByTestId('blocked-fan').textContent()).toContain('Chatty Fan');
    await perfPage.getByTestId('unblock').click();
    await expect.poll(() => perfPage.getByTestId('blocked-fan').count()).toBe(0);
    await perfPage.getByTestId('message-policy-fans').check();
    await expect.poll(async () => (await t.ctx.db.selectFrom('performers').select('messagePolicy').where('id', '=', performer.id).executeTakeFirstOrThrow()).messagePolicy).toBe('fans');

    // A message to all subscribers: the studio shows its progress, and it reaches the fan's open thread live.
    await perfPage.getByTestId('mass-text').fill('New set out tonight, for all of you');
    await perfPage.getByTestId('mass-send').click();
    await expect.poll(() => perfPage.getByTestId('mass-progress').first().textContent(), { timeout: 15_000 }).toBe('Delivered to 1 of 1');
    await expect.poll(() => fanPage.getByTestId('message').last().textContent(), { timeout: 15_000 }).toContain('New set out tonight');
    await saveScreen(perfPage, 'studio-messages', { fullPage: true });

    // Someone new writes first (the performer now takes messages from any fan): the open list shows it live, unread.
    await perfPage.goto(`${t.url}/messages`);
    await waitForIsland(perfPage, 'Inbox');
    await connected(perfPage);
    const opened = await t.api('/messages/conversations', { method: 'POST', headers: stranger.headers, json: { userId: performer.id } });
    expect(opened.status).toBe(200);
    expect((await t.api(`/messages/conversations/${opened.body._id}/messages`, { method: 'POST', headers: stranger.headers, json: { text: 'Hi from a new fan' } })).status).toBe(201);
    const fresh = perfPage.locator(`[data-testid="conversation-item"][data-conversation-id="${opened.body._id}"]`);
    await expect.poll(() => fresh.getByTestId('conversation-unread').textContent(), { timeout: 15_000 }).toBe('1');
    expect(await perfPage.getByTestId('conversation-item').first().getAttribute('data-conversation-id')).toBe(opened.body._id);
    await expect.poll(() => perfPage.getByTestId('messages-badge').textContent(), { timeout: 15_000 }).toBe('1');
  }, 120_000);
});

/**
 * The same conversation across two web instances on one PostgreSQL database, rooms shared through Redis (as deployed
 * behind a balancer): the fan's browser is on instance A, the performer's on instance B. Messages go both ways live,
 * each side's unread badge appears and clears, and each side sees its message read by the other.
 */
describe.skipIf(!hasChromium || !process.env.DATABASE_URL || !process.env.REDIS_URL)('messages across two instances in chromium (PostgreSQL + Redis)', () => {
  let a: TestApp;
  let b: Awaited<ReturnType<typeof startInstance>>;
  let performer: TestUser;
  let fan: TestUser;
  const chromium = useBrowser(() => a.url);
  const connected = (p: Page) => expect.poll(() => p.getByTestId('realtime-status').getAttribute('data-status'), { timeout: 15_000 }).toBe('connected');
  const badge = (p: Page) => p.getByTestId('messages-badge').count().then(async (n) => (n ? p.getByTestId('messages-badge').textContent() : null));

  beforeAll(async () => {
    a = await startTestApp('postgres', { web: true, env: { REDIS_URL: process.env.REDIS_URL!, JOBS_POLL_MS: '100' } });
    b = await startInstance(a, { web: true });
    performer = await createUser(a.ctx.db, 'performer', { name: 'Bea on B' });
    fan = await createUser(a.ctx.db, 'user', { name: 'Al on A' });
    await subscribe(a.ctx.db, fan.id, performer.id);
  }, 60_000);
  afterAll(async () => {
    await b?.built.close();
    await a?.close();
  });

  it('a fan on instance A and a performer on instance B talk live both ways; badges appear and clear; read state comes back', async () => {
    const fanPage = await chromium.page({ as: fan, site: a.url, phone: true, viewport: { width: 390, height: 844 } });
    const perfPage = await chromium.page({ as: performer, site: b.url, viewport: { width: 1280, height: 900 } });
    await perfPage.goto(`${b.url}/studio`);
    await waitForIsland(perfPage, 'MessagesLink');
    await connected(perfPage);
    expect(await badge(perfPage)).toBeNull();

    // A → B: the fan writes from the performer's page on A; the performer's badge on B appears without a reload.
    await fanPage.goto(`${a.url}/performers/${performer.username}`);
    await fanPage.getByTestId('message-button').scrollIntoViewIfNeeded();
    await waitForPerformerControls(fanPage);
    await fanPage.getByTestId('message-button').click();
    await fanPage.waitForURL(/\/messages\/[0-9a-f]+$/);
    const conversationId = fanPage.url().split('/').pop()!;
    await waitForIsland(fanPage, 'Inbox');
    await connected(fanPage);
    await fanPage.getByTestId('composer-text').fill('Hello from instance A');
    await fanPage.getByTestId('composer-send').click();
    await expect.poll(() => fanPage.getByTestId('message').count()).toBe(1);
    await expect.poll(() => badge(perfPage), { timeout: 15_000 }).toBe('1');

    // The performer opens it on B: the badge clears there, and the fan on A sees "Seen".
    await perfPage.getByTestId('messages-link').click();
    await perfPage.waitForURL('**/messages');
    await waitForIsland(perfPage, 'Inbox');
    const item = perfPage.locator(`[data-testid="conversation-item"][data-conversation-id="${conversationId}"]`);
    expect(await item.getByTestId('conversation-unread').textContent()).toBe('1');
    await item.click();
    await perfPage.waitForURL(`**/messages/${conversationId}`);
    await waitForIsland(perfPage, 'Inbox');
    await connected(perfPage);
    expect(await perfPage.getByTestId('message').first().textContent()).toContain('Hello from instance A');
    await expect.poll(() => badge(perfPage), { timeout: 15_000 }).toBeNull();
    await expect.poll(() => fanPage.getByTestId('message-seen').count(), { timeout: 15_000 }).toBe(1);

    // B → A while the fan has the thread open: it arrives live and is read at once; the performer on B sees "Seen".
    await perfPage.getByTestId('composer-text').fill('Hi back from instance B');
    await perfPage.getByTestId('composer-send').click();
    await expect.poll(() => fanPage.getByTestId('message').count(), { timeout: 15_000 }).toBe(2);
    expect(await fanPage.getByTestId('message').nth(1).textContent()).toContain('Hi back from instance B');
    await expect.poll(() => perfPage.getByTestId('message-seen').count(), { timeout: 15_000 }).toBe(1);
    expect(await badge(fanPage)).toBeNull();

    // B → A while the fan is elsewhere on A: the fan's badge appears live; opening the thread clears it, and the
    // performer on B sees that message read too.
    await fanPage.goto(`${a.url}/`);
    await waitForIsland(fanPage, 'MessagesLink');
    await connected(fanPage);
    await perfPage.getByTestId('composer-text').fill('Are you still there?');
    await perfPage.getByTestId('composer-send').click();
    await expect.poll(() => perfPage.getByTestId('message').count()).toBe(3);
    await expect.poll(() => badge(fanPage), { timeout: 15_000 }).toBe('1');
    await fanPage.getByTestId('messages-link').click();
    await fanPage.waitForURL('**/messages');
    await waitForIsland(fanPage, 'Inbox');
    await fanPage.locator(`[data-testid="conversation-item"][data-conversation-id="${conversationId}"]`).click();
    await fanPage.waitForURL(`**/messages/${conversationId}`);
    await waitForIsland(fanPage, 'Inbox');
    expect(await fanPage.getByTestId('message').last().textContent()).toContain('Are you still there?');
    await expect.poll(() => badge(fanPage), { timeout: 15_000 }).toBeNull();
    await expect.poll(() => perfPage.getByTestId('message-seen').count(), { timeout: 15_000 }).toBe(2);

    // What the two browsers showed is what the database holds: three messages, all read.
    const rows = await a.ctx.db.selectFrom('messages').select(['senderId', 'readAt']).where('conversationId', '=', conversationId).execute();
    expect(rows.map((r) => r.senderId).sort()).toEqual([fan.id, performer.id, performer.id].sort());
    expect(rows.every((r) => r.readAt !== null)).toBe(true);
  }, 120_000);
});
