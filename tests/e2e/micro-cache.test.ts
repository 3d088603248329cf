import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { buildCatalogue, type Catalogue } from '../helpers/catalogue-fixture.js';
import { createUser } from '../helpers/sessions.js';
import { listCounts } from '../../server/catalogue/count-cache.js';
import { MEMBER_SHELL_ROUTES } from '../../server/routes.js';
import { accessFor, needsSession } from '../../src/server/page-access.js';

/**
 * The whole site (built pages + API) with the micro-cache on, as in production: anonymous pages and public lists
 * come from memory, while anything a session sees (entitlements, signed media URLs, the user's name) never enters
 * or leaves it. The cache's own rules are in tests/unit/micro-cache.test.ts.
 */
describe.each(engines)('micro-cache in the site on %s', (engine) => {
  let t: TestApp;
  let c: Catalogue;

  beforeAll(async () => {
    t = await startTestApp(engine, { web: true, env: { PAGE_CACHE_MS: '60000', COUNTRY_HEADER: 'x-country' } });
    c = await buildCatalogue(t.ctx);
  });
  afterAll(() => t?.close());

  const page = async (p: string, headers: Record<string, string> = {}) => {
    const res = await fetch(t.url + p, { headers, redirect: 'manual' });
    return { status: res.status, cache: res.headers.get('x-cache'), headers: res.headers, text: await res.text() };
  };

  it('serves an anonymous performer page from memory, with the security headers of the render', async () => {
    const first = await page('/performers/alice');
    const second = await page('/performers/alice');
    expect(first.status).toBe(200);
    expect([first.cache, second.cache]).toEqual(['MISS', 'HIT']);
    expect(second.text).toBe(first.text);
    expect(second.text).toContain('Alice Stone');
    for (const h of ['content-security-policy', 'x-frame-options', 'content-type']) expect(second.headers.get(h)).toBe(first.headers.get(h));
  });

  it('keeps one copy per country', async () => {
    const de = await page('/performers', { 'x-country': 'DE' });
    const fr = await page('/performers', { 'x-country': 'FR' });
    const de2 = await page('/performers', { 'x-country': 'DE' });
    expect([de.cache, fr.cache, de2.cache]).toEqual(['MISS', 'MISS', 'HIT']);
  });

  it('never lets a signed-in page in or out', async () => {
    // The subscriber's page of alice's subscribers-only gallery opens it; a guest's is locked.
    const path = `/galleries/${c.galleries.subs.id}`;
    const anonymous = await page(path);
    const signedIn = await page(path, { cookie: `token=${c.subscriber.token}` });
    expect(anonymous.cache).toBe('MISS');
    expect(signedIn.cache).toBe(null);
    expect(signedIn.headers.get('cache-control')).toContain('no-store');
    expect(signedIn.text).not.toBe(anonymous.text);
    // And the signed-in render did not replace the anonymous copy.
    const again = await page(path);
    expect(again.cache).toBe('HIT');
    expect(again.text).toBe(anonymous.text);
  });

  it('shares each member-shell page among signed-in visitors, holding nobody\'s data, apart from the guests\' copy', async () => {
    const other = await createUser(t.ctx.db, 'user', { username: 'zeldaquill', name: 'Zelda Quill' });
    // Each member-shell route, the performer's page as alice's (where the subscriber has a subscription), the
    // video's page as her subscribers-only video's (which plays for the subscriber).
    const paths = MEMBER_SHELL_ROUTES.map((r) => r.replace('[username]', 'alice').replace('[id]', c.videos.subs.id));
    expect(paths).toEqual(expect.arrayContaining(['/performers/alice', `/videos/${c.videos.subs.id}`, '/home']));
    for (const [i, path] of paths.entries()) {
      const url = `${path}?shell=1`;
      const first = await page(url, { cookie: `token=${c.subscriber.token}` });
      const second = await page(url, { cookie: `token=${other.token}` });
      // Even a session that no longer opens anything gets the shell: it holds nothing of any session.
      const ended = await page(url, { cookie: 'token=not-a-session' });
      expect(first.status, path).toBe(200);
      expect([first.cache, second.cache, ended.cache], path).toEqual(['MISS', 'HIT', 'HIT']);
      expect(second.text, path).toBe(first.text);
      // The subscriber's unlocked cards and signed addresses, either visitor's name, e-mail and id are not in it:
      // the content is the guests', the header asks who is signed in.
      for (const secret of [c.subscriber.id, c.subscriber.email, other.id, other.email, 'zeldaquill', 'Zelda Quill', '/media/protected', 'sig=']) {
        expect(first.text, `${path} holds ${secret}`).not.toContain(secret);
      }
      expect(first.text, path).toContain('data-testid="user-menu-pending"');
      expect(first.text, path).not.toContain('data-testid="login-link"');
      // The guests' page is another copy, with its login link; a page behind a session sends them to log in.
      const guest = await page(url);
      if (needsSession(accessFor(MEMBER_SHELL_ROUTES[i]!)!)) {
        expect([guest.status, guest.headers.get('location')], path).toEqual([302, `/auth/login?next=${encodeURIComponent(url)}`]);
        expect((await page(url)).cache, path).toBe('MISS');
      } else {
        expect(guest.cache, path).toBe('MISS');
        expect(guest.text, path).toContain('data-testid="login-link"');
      }
    }
    // The home feed's copy holds no feed: it waits for the header's answer, which brings the visitor's.
    const home = await page('/home?shell=1', { cookie: `token=${c.subscriber.token}` });
    expect(home.text).toContain('data-testid="feed-pending"');
    expect(home.text).toContain('data-member-feed="12"');
    expect(home.text).not.toContain('data-testid="feed-item"');
    // The home page's newest videos are the guests': the subscriber's video stays locked in the shared copy.
    expect((await page('/?shell=1', { cookie: `token=${c.subscriber.token}` })).text).toContain('Core strength');
    // A page that is not a member shell stays the visitor's own.
    expect((await page(`/galleries/${c.galleries.subs.id}`, { cookie: `token=${c.subscriber.token}` })).cache).toBe(null);
  });

  it("renders a performer's page for the visitor alone where a guest's copy has none: their own inactive page, an admin's", async () => {
    const own = await page('/performers/carol', { cookie: `token=${c.carol.token}` });
    expect(own.status).toBe(200);
    expect(own.text).toContain('Carol Gone');
    expect(own.headers.get('cache-control')).toBe('private, no-store');
    // Rendered for her (her menu, no shared header), and kept by no cache: a fan after her finds no page.
    expect(own.text).not.toContain('data-testid="user-menu-pending"');
    const admin = await page('/performers/carol', { cookie: `token=${c.admin.token}` });
    expect([admin.status, admin.cache, admin.headers.get('cache-control')]).toEqual([200, 'MISS', 'private, no-store']);
    const fan = await page('/performers/carol', { cookie: `token=${c.fan.token}` });
    expect(fan.status).toBe(404);
    expect(fan.text).not.toContain('Carol Gone');
  });

  it("renders a video's page for the visitor alone where a guest's copy has none: its performer's draft, an admin's", async () => {
    const path = `/videos/${c.videos.draft.id}`;
    const own = await page(path, { cookie: `token=${c.alice.token}` });
    expect([own.status, own.cache, own.headers.get('cache-control')]).toEqual([200, 'MISS', 'private, no-store']);
    expect(own.text).toContain('Draft video');
    // Rendered for her: her state is in the page (the player, its file signed for her), not asked by the islands.
    expect(own.text).not.toContain('data-member-video');
    expect(own.text).toContain(`u=${c.alice.id}`);
    const admin = await page(path, { cookie: `token=${c.admin.token}` });
    expect([admin.status, admin.headers.get('cache-control')]).toEqual([200, 'private, no-store']);
    expect(admin.text).not.toContain(`u=${c.alice.id}`);
    const fan = await page(path, { cookie: `token=${c.fan.token}` });
    expect(fan.status).toBe(404);
    expect(fan.text).not.toContain('Draft video');
  });

  it('tells the member-shell header who is signed in and their unread counts, and a guest nothing', async () => {
    const res = await fetch(`${t.url}/api/users/me/header`, { headers: { cookie: `token=${c.subscriber.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const body = (await res.json()) as { user: { _id: string; username: string }; unread: { messages: number; notifications: number }; unlocksMore: boolean };
    expect(body.user).toMatchObject({ _id: c.subscriber.id, username: c.subscriber.username, role: 'user' });
    expect(body.unread).toEqual({ messages: 0, notifications: expect.any(Number) });
    // Whether a shared page's lists must ask again: only when some decision can differ from a guest's.
    const unlocks = async (token: string) => ((await (await fetch(`${t.url}/api/users/me/header`, { headers: { cookie: `token=${token}` } })).json()) as { unlocksMore: boolean }).unlocksMore;
    const who = { fan: c.fan, subscriber: c.subscriber, lapsed: c.lapsed, buyer: c.buyer, performer: c.alice, admin: c.admin };
    const answers = Object.fromEntries(await Promise.all(Object.entries(who).map(async ([k, u]) => [k, await unlocks(u.token)] as const)));
    expect(answers).toEqual({ fan: false, subscriber: true, lapsed: false, buyer: true, performer: true, admin: true });
    // A revoked purchase opens nothing any more.
    await t.ctx.db.updateTable('entitlements').set({ revokedAt: new Date().toISOString() }).where('userId', '=', c.buyer.id).execute();
    try {
      expect(await unlocks(c.buyer.token)).toBe(false);
    } finally {
      await t.ctx.db.updateTable('entitlements').set({ revokedAt: null }).where('userId', '=', c.buyer.id).execute();
    }
    const guest = await fetch(`${t.url}/api/users/me/header`);
    expect(guest.status).toBe(401);
    expect(await guest.json()).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  });

  it("keeps a free video's page, whose media URL is signed for any guest, for guests and for members alike", async () => {
    const first = await page(`/videos/${c.videos.free.id}`);
    const second = await page(`/videos/${c.videos.free.id}`);
    expect([first.cache, second.cache]).toEqual(['MISS', 'HIT']);
    expect(second.text).toMatch(/\/media\/protected\/video\/[^"]*u=guest/);
    // Members share their own copy of it, which plays the same guest's URL: nothing in it is signed for anyone.
    const fan = await page(`/videos/${c.videos.free.id}`, { cookie: `token=${c.fan.token}` });
    const subscriber = await page(`/videos/${c.videos.free.id}`, { cookie: `token=${c.subscriber.token}` });
    expect([fan.cache, subscriber.cache]).toEqual(['MISS', 'HIT']);
    expect(fan.text).toMatch(/\/media\/protected\/video\/[^"]*u=guest/);
    for (const id of [c.fan.id, c.subscriber.id]) expect(fan.text).not.toContain(`u=${id}`);
  });

  it('keeps the anonymous answer of a public API route, never the entitled one', async () => {
    const id = c.videos.subs.id;
    const subscriber = await t.api(`/user/assets/videos/${id}`, { headers: c.subscriber.headers });
    expect(subscriber.status).toBe(200);
    expect(subscriber.headers.get('x-cache')).toBe(null);
    expect(subscriber.body.video?.url).toBeTruthy();

    const guest = await t.api(`/user/assets/videos/${id}`);
    const guestAgain = await t.api(`/user/assets/videos/${id}`);
    expect([guest.headers.get('x-cache'), guestAgain.headers.get('x-cache')]).toEqual(['MISS', 'HIT']);
    expect(guestAgain.body.locked).toBe(true);
    expect(guestAgain.body.video).toBe(null);
    expect(JSON.stringify(guestAgain.body)).not.toContain(subscriber.body.video.url);

    const viaCookie = await t.api(`/user/assets/videos/${id}`, { headers: { cookie: `token=${c.subscriber.token}` } });
    expect(viaCookie.headers.get('x-cache')).toBe(null);
    expect(viaCookie.body.locked).toBe(false);
  });

  it('leaves routes that are not listed alone', async () => {
    for (let i = 0; i < 2; i++) {
      const me = await t.api('/users/me');
      expect(me.status).toBe(401);
      expect(me.headers.get('x-cache')).toBe(null);
    }
    const list = await t.api('/performers/search?limit=5');
    const listAgain = await t.api('/performers/search?limit=5');
    expect([list.headers.get('x-cache'), listAgain.headers.get('x-cache')]).toEqual(['MISS', 'HIT']);
    expect(listAgain.body).toEqual(list.body);
  });
});

/**
 * Astro's server bundle has its own copy of the server modules; the list-count cache must still be the one
 * buildApp configured (it once was a separate, unconfigured copy, so every page counted the whole catalogue).
 */
describe('list totals in pages', () => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('come from the count cache the app configured', async () => {
    t = await startTestApp('sqlite', { web: true, env: { LIST_COUNT_CACHE_MS: '60000' } });
    await createUser(t.ctx.db, 'performer', { username: 'first' });
    const description = async () => /Browse (\d+) performers?\b/.exec(await (await fetch(`${t.url}/performers`)).text())?.[1];
    expect(await description()).toBe('1');
    await createUser(t.ctx.db, 'performer', { username: 'second' });
    // The total is reused for the TTL, then counted again.
    expect(await description()).toBe('1');
    listCounts.clear();
    expect(await description()).toBe('2');
  });
});
