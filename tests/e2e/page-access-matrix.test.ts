import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { buildMoneyWorld, payWithSandbox, type MoneyWorld } from '../helpers/money-fixture.js';
import { makeGallery, makePost } from '../../server/seed/factories.js';
import type { TestUser } from '../helpers/sessions.js';
import { accessFor, needsSession, pageAccess } from '../../src/server/page-access.js';
import { unsubscribeToken } from '../../server/notifications/unsubscribe.js';
import { MEMBER_SHELL_ROUTES } from '../../server/routes.js';

/**
 * Who may see which page, for every page route there is: the route list comes from src/pages (and is checked
 * against the build's own route list), so a new page without a rule here and in src/server/page-access.ts fails
 * this file, as does a rule for a page that is gone. Each page is asked for as a guest, a fan, a performer, another
 * performer and an admin, with real ids for dynamic routes, over plain HTTP to the built site with the micro-cache
 * on. Then every page behind a session is asked for under other spellings of its path (`//x`, `/./x`, `%2F`, upper
 * case, ...): none of them is ever the page.
 */

type Who = 'guest' | 'fan' | 'performer' | 'otherPerformer' | 'admin';
const WHO: Who[] = ['guest', 'fan', 'performer', 'otherPerformer', 'admin'];
/** An HTTP status, or 'login' (302 to /auth/login?next=<the path>), or 'home' (a login form sends a signed-in user to /home). */
type Outcome = 200 | 403 | 404 | 451 | 503 | 'login' | 'home';
type Expected = Record<Who, Outcome>;

interface RouteCase {
  /** The concrete path to request (real ids for dynamic segments). */
  path: string;
  expect: Expected;
  /** Data of one visitor: that visitor's answer shows it, nobody else's ever does. */
  own?: { who: Who; marker: string };
}

const everyone = (o: Outcome): Expected => ({ guest: o, fan: o, performer: o, otherPerformer: o, admin: o });
const signedIn: Expected = { guest: 'login', fan: 200, performer: 200, otherPerformer: 200, admin: 200 };
const performers: Expected = { guest: 'login', fan: 403, performer: 200, otherPerformer: 200, admin: 403 };
const admins: Expected = { guest: 'login', fan: 403, performer: 403, otherPerformer: 403, admin: 200 };
const loginForm: Expected = { guest: 200, fan: 'home', performer: 'home', otherPerformer: 'home', admin: 'home' };
/** The fan's own order or payment: someone else's is not found (an admin may read any payment's result). */
const fansOwn = (admin: Outcome): Expected => ({ guest: 'login', fan: 200, performer: 404, otherPerformer: 404, admin });

/** Every page route, as Astro names it (`context.routePattern`), from the files under src/pages. */
function pageRoutesFromFiles(): string[] {
  const root = path.resolve('src/pages');
  const routes: string[] = [];
  for (const file of fs.readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    const rel = file.split(path.sep);
    // Files and folders starting with an underscore are not routes (components, helpers).
    if (rel.some((p) => p.startsWith('_'))) continue;
    const m = /^(.*)\.(astro|ts|js|mjs|md|mdx|html)$/.exec(rel.join('/'));
    if (!m || !fs.statSync(path.join(root, file)).isFile()) continue;
    const route = `/${m[1]!}`.replace(/\/index$/, '') || '/';
    routes.push(route);
  }
  return routes.sort();
}

/** The routes of the server build (`npx astro build`), Astro's internal ones included. */
function pageRoutesFromBuild(): string[] {
  const dir = path.resolve(process.env.ASTRO_DIST ?? 'dist', 'server');
  const manifest = fs.readdirSync(dir).find((f) => /^manifest_.*\.mjs$/.test(f));
  if (!manifest) throw new Error(`no Astro manifest in ${dir}: run "npx astro build" first`);
  return [...new Set([...fs.readFileSync(path.join(dir, manifest), 'utf8').matchAll(/"route":"([^"]+)"/g)].map((m) => m[1]!))].sort();
}

/** Astro's own routes: no page of ours, so no rule, so refused. */
const ASTRO_INTERNAL: Record<string, string> = { '/_image': '/_image?href=%2Ffavicon.svg&w=16', '/_server-islands/[name]': '/_server-islands/Anything' };

interface Answer {
  status: number;
  location?: string;
  cacheControl?: string;
  xCache?: string;
  body: string;
}

/** A GET with the path sent exactly as given (fetch would normalise some of the spellings under test). */
function get(t: TestApp, rawPath: string, who?: TestUser): Promise<Answer> {
  const { hostname, port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, path: rawPath, method: 'GET', agent: false, headers: who ? { cookie: `token=${who.token}` } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          location: res.headers.location,
          cacheControl: res.headers['cache-control'],
          xCache: res.headers['x-cache'] as string | undefined,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

function outcomeOf(a: Answer, requested: string): Outcome | number | string {
  if (a.status === 302 && a.location === `/auth/login?next=${encodeURIComponent(requested)}`) return 'login';
  if (a.status === 302 && a.location === '/home') return 'home';
  if (a.status >= 300 && a.status < 400) return `${a.status} to ${a.location}`;
  return a.status;
}

/** Runs `fn` over `items`, a few at a time (the requests are independent; the machine has two cores). */
async function pool<T>(items: T[], fn: (item: T) => Promise<void>, size = 4): Promise<void> {
  const queue = [...items];
  await Promise.all(Array.from({ length: size }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
  }));
}

/** Other spellings of `p` that a router, a proxy or a browser may treat as `p`. */
function spellings(p: string): Array<{ name: string; url: string; resolvesTo: 'canonical' | 'nothing' }> {
  const segs = p.slice(1).split('/');
  const first = segs[0]!;
  const last = segs.at(-1)!;
  const head = segs.slice(0, -1).join('/');
  const hex = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`;
  const hexLetter = [...first].findIndex((c) => /[A-F]/.test(hex(c)));
  if (hexLetter < 0) throw new Error(`no letter with a hex letter in its code in ${first}`);
  const canonical = 'canonical' as const;
  const nothing = 'nothing' as const;
  return [
    { name: '//x', url: `/${p}`, resolvesTo: canonical },
    { name: '///x', url: `//${p}`, resolvesTo: canonical },
    { name: 'x with a doubled inner slash', url: segs.length > 1 ? `/${head}//${last}` : `/${first}//`, resolvesTo: canonical },
    { name: '/./x', url: `/.${p}`, resolvesTo: canonical },
    { name: '/x/', url: `${p}/`, resolvesTo: canonical },
    { name: '/x/.', url: `${p}/.`, resolvesTo: canonical },
    { name: '/a/../x', url: `/zz/..${p}`, resolvesTo: canonical },
    { name: '/a/%2e%2e/x', url: `/zz/%2e%2e${p}`, resolvesTo: canonical },
    { name: '%2F for a slash', url: segs.length > 1 ? `/${head}%2F${last}` : `/%2F${first}`, resolvesTo: canonical },
    { name: '%2f for the first slash', url: `/%2f${p.slice(1)}`, resolvesTo: canonical },
    { name: 'percent-encoded letter', url: `/${hex(first[0]!)}${p.slice(2)}`, resolvesTo: canonical },
    // A letter whose code has a hex letter in it (`o` is %6F), so lower-case hex is a spelling of its own.
    { name: 'lower-case percent-encoded letter', url: `/${first.slice(0, hexLetter)}${hex(first[hexLetter]!).toLowerCase()}${p.slice(2 + hexLetter)}`, resolvesTo: canonical },
    { name: 'upper case', url: p.toUpperCase(), resolvesTo: nothing },
    { name: 'capitalised first segment', url: `/${first[0]!.toUpperCase()}${p.slice(2)}`, resolvesTo: nothing },
    { name: ';param', url: `${p};x=1`, resolvesTo: nothing },
    { name: ';param in the first segment', url: `/${first};x=1${p.slice(1 + first.length)}`, resolvesTo: nothing },
    { name: 'backslash', url: segs.length > 1 ? `/${head}\\${last}` : `/\\${first}`, resolvesTo: nothing },
    { name: 'a query after a trailing slash', url: `${p}/?tab=1`, resolvesTo: canonical },
  ];
}

describe.each(engines)('page access matrix on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;
  let users: Record<Exclude<Who, 'guest'>, TestUser>;
  let cases: Record<string, RouteCase>;

  beforeAll(async () => {
    // The micro-cache on, as in production: nothing behind a session may get into it.
    t = await startTestApp(engine, { web: true, env: { PAGE_CACHE_MS: '60000' } });
    w = await buildMoneyWorld(t.ctx);
    users = { fan: w.fan, performer: w.perf, otherPerformer: w.perf2, admin: w.admin };
    const gallery = await makeGallery(t.ctx, w.perf.id, { title: 'Matrix gallery of Mona' });
    const post = await makePost(t.ctx, { performerId: w.perf.id, authorId: w.perf.id, title: 'Matrix post of Mona' });
    // The fan buys Mona's mug: an order, a payment and a sandbox charge that are the fan's, an order and an earning that are Mona's.
    const bought = await t.api('/payment/purchase-products', { method: 'POST', headers: w.fan.headers, json: { items: [{ _id: w.products.mug.id, quantity: 1 }], shippingAddress: '1 Matrix Road' } });
    expect(bought.status).toBe(201);
    expect((await payWithSandbox(t, w.fan, bought.body.redirectUrl)).status).toBe(200);
    const chargeId = (bought.body.redirectUrl as string).split('/').pop()!;
    const orderId = bought.body.orderIds[0] as string;
    const { orderNumber } = await t.ctx.db.selectFrom('orders').select('orderNumber').where('id', '=', orderId).executeTakeFirstOrThrow();

    const mona = (marker: string) => ({ who: 'performer' as const, marker });
    // The fan writes to Mona, who lets any fan write first: their conversation is theirs (and the admin's) only.
    expect((await t.api('/performer/message-settings', { method: 'PUT', headers: w.perf.headers, json: { messagePolicy: 'fans' } })).status).toBe(200);
    const conversation = (await t.api('/messages/conversations', { method: 'POST', headers: w.fan.headers, json: { userId: w.perf.id } })).body._id as string;
    expect((await t.api(`/messages/conversations/${conversation}/messages`, { method: 'POST', headers: w.fan.headers, json: { text: 'Matrix message to Mona' } })).status).toBe(201);
    cases = {
      '/': { path: '/', expect: everyone(200) },
      '/performers': { path: '/performers', expect: everyone(200) },
      '/performers/[username]': { path: `/performers/${w.perf.username}`, expect: everyone(200) },
      '/videos': { path: '/videos', expect: everyone(200) },
      '/videos/[id]': { path: `/videos/${w.videos.freeVideo.id}`, expect: everyone(200) },
      '/galleries/[id]': { path: `/galleries/${gallery.id}`, expect: everyone(200) },
      '/store': { path: '/store', expect: everyone(200) },
      '/products/[id]': { path: `/products/${w.products.mug.id}`, expect: everyone(200) },
      '/posts': { path: '/posts', expect: everyone(200) },
      '/posts/[id]': { path: `/posts/${post.id}`, expect: everyone(200) },
      '/comments/[type]/[id]': { path: `/comments/video/${w.videos.freeVideo.id}`, expect: everyone(200) },
      '/search': { path: '/search?q=mug', expect: everyone(200) },
      '/contact': { path: '/contact', expect: everyone(200) },
      '/takedown': { path: '/takedown', expect: everyone(200) },
      '/record-keeping': { path: '/record-keeping', expect: everyone(200) },
      '/cart': { path: '/cart', expect: everyone(200) },
      '/robots.txt': { path: '/robots.txt', expect: everyone(200) },
      '/sitemap.xml': { path: '/sitemap.xml', expect: everyone(200) },
      '/403': { path: '/403', expect: everyone(403) },
      '/404': { path: '/404', expect: everyone(404) },
      '/blocked': { path: '/blocked', expect: everyone(451) },
      '/maintenance': { path: '/maintenance', expect: everyone(503) },
      '/login': { path: '/login', expect: loginForm },
      '/auth/login': { path: '/auth/login', expect: loginForm },
      '/auth/register': { path: '/auth/register', expect: loginForm },
      '/auth/forgot-password': { path: '/auth/forgot-password', expect: everyone(200) },
      '/auth/reset-password': { path: '/auth/reset-password?token=nope', expect: everyone(200) },
      '/auth/verify-email': { path: '/auth/verify-email?token=nope', expect: everyone(200) },

      '/home': { path: '/home', expect: signedIn },
      '/notifications': { path: '/notifications', expect: signedIn },
      '/account/notifications': { path: '/account/notifications', expect: signedIn },
      '/account/data': { path: '/account/data', expect: signedIn },
      '/notifications/unsubscribe': { path: `/notifications/unsubscribe?token=${unsubscribeToken(t.config.appSecret, w.fan.id, 'comment')}`, expect: everyone(200) },
      '/checkout': { path: '/checkout', expect: signedIn },
      '/payments/result/[id]': { path: `/payments/result/${bought.body.paymentId}`, expect: fansOwn(200) },
      '/payments/sandbox/[id]': { path: `/payments/sandbox/${chargeId}`, expect: fansOwn(404) },
      '/account/profile': { path: '/account/profile', expect: signedIn, own: { who: 'fan', marker: w.fan.email } },
      '/account/password': { path: '/account/password', expect: signedIn },
      '/account/subscriptions': { path: '/account/subscriptions', expect: signedIn },
      '/account/orders': { path: '/account/orders', expect: signedIn, own: { who: 'fan', marker: orderNumber } },
      '/account/orders/[id]': { path: `/account/orders/${orderId}`, expect: fansOwn(404), own: { who: 'fan', marker: orderNumber } },
      '/account/transactions': { path: '/account/transactions', expect: signedIn },
      '/account/favourites': { path: '/account/favourites', expect: signedIn },
      '/account/following': { path: '/account/following', expect: signedIn },
      '/account/watch-later': { path: '/account/watch-later', expect: signedIn },
      // The list says "You: …" before one's own last message: only the fan's list says it of this one.
      '/messages': { path: '/messages', expect: signedIn, own: { who: 'fan', marker: 'You: Matrix message to Mona' } },
      '/messages/[id]': { path: `/messages/${conversation}`, expect: { guest: 'login', fan: 200, performer: 200, otherPerformer: 404, admin: 200 } },
      '/studio/messages': { path: '/studio/messages', expect: performers },
      '/studio/verification': { path: '/studio/verification', expect: performers },
      '/studio/co-performers': { path: '/studio/co-performers', expect: performers },

      '/studio': { path: '/studio', expect: performers, own: mona(`@${w.perf.username}`) },
      '/studio/profile': { path: '/studio/profile', expect: performers, own: mona(w.perf.username) },
      '/studio/videos': { path: '/studio/videos', expect: performers, own: mona(w.videos.subsVideo.title) },
      '/studio/galleries': { path: '/studio/galleries', expect: performers, own: mona(gallery.title) },
      '/studio/products': { path: '/studio/products', expect: performers, own: mona(w.products.lastOne.name) },
      '/studio/posts': { path: '/studio/posts', expect: performers, own: mona(post.title) },
      '/studio/earnings': { path: '/studio/earnings', expect: performers, own: mona('data-testid="earning-row"') },
      '/studio/orders': { path: '/studio/orders', expect: performers, own: mona(orderNumber) },

      '/admin': { path: '/admin', expect: admins },
      '/admin/settings': { path: '/admin/settings', expect: admins },
      '/admin/banners': { path: '/admin/banners', expect: admins },
      '/admin/categories': { path: '/admin/categories', expect: admins },
      '/admin/country-blocks': { path: '/admin/country-blocks', expect: admins },
      '/admin/coupons': { path: '/admin/coupons', expect: admins, own: { who: 'admin', marker: w.coupons.welcome.code } },
      '/admin/packages': { path: '/admin/packages', expect: admins },
      '/admin/users': { path: '/admin/users', expect: admins, own: { who: 'admin', marker: w.fan2.email } },
      '/admin/performers': { path: '/admin/performers', expect: admins },
      '/admin/content': { path: '/admin/content', expect: admins },
      '/admin/comments': { path: '/admin/comments', expect: admins },
      '/admin/payments': { path: '/admin/payments', expect: admins },
      '/admin/orders': { path: '/admin/orders', expect: admins, own: { who: 'admin', marker: orderNumber } },
      '/admin/earnings': { path: '/admin/earnings', expect: admins },
      '/admin/payouts': { path: '/admin/payouts', expect: admins },
      '/admin/audit': { path: '/admin/audit', expect: admins },
      '/admin/reports': { path: '/admin/reports', expect: admins },
      '/admin/takedowns': { path: '/admin/takedowns', expect: admins },
      '/admin/watermarks': { path: '/admin/watermarks', expect: admins },
      '/admin/verifications': { path: '/admin/verifications', expect: admins },
      '/admin/consent': { path: '/admin/consent', expect: admins },
    };
  }, 120_000);
  afterAll(() => t?.close());

  const as = (who: Who) => (who === 'guest' ? undefined : users[who]);
  const pathOnly = (p: string) => p.split('?')[0]!;
  /** The routes a guest must never see: every route whose rule wants a session. */
  const protectedRoutes = () => Object.keys(cases).filter((r) => needsSession(accessFor(r)!));

  it('has a rule and an expectation for every page route, and neither for a route that is gone', () => {
    const routes = pageRoutesFromFiles();
    expect(routes.length).toBeGreaterThan(40);
    // The file list is read the way Astro reads it: the build knows exactly these routes, plus Astro's own.
    expect(pageRoutesFromBuild()).toEqual([...routes, ...Object.keys(ASTRO_INTERNAL)].sort());
    expect(Object.keys(pageAccess).sort(), 'src/server/page-access.ts').toEqual(routes);
    expect(Object.keys(cases).sort(), 'the expectations in this file').toEqual(routes);
  });

  it('answers every page as expected to a guest, a fan, a performer, another performer and an admin', async () => {
    const wrong: string[] = [];
    const jobs = Object.entries(cases).flatMap(([route, c]) => WHO.map((who) => ({ route, c, who })));
    await pool(jobs, async ({ route, c, who }) => {
      const a = await get(t, c.path, as(who));
      const got = outcomeOf(a, c.path);
      if (got !== c.expect[who]) wrong.push(`${route} as ${who}: expected ${c.expect[who]}, got ${got}`);
      if (a.status >= 500 && a.status !== 503) wrong.push(`${route} as ${who}: ${a.status}`);
      if (c.own) {
        const shown = a.body.includes(c.own.marker);
        if (who === c.own.who && !shown) wrong.push(`${route} as ${who}: the viewer's own data (${c.own.marker}) is missing`);
        if (who !== c.own.who && shown) wrong.push(`${route} as ${who}: shows ${c.own.who}'s data (${c.own.marker})`);
      }
    });
    expect(wrong.sort()).toEqual([]);
    // Every page five times over: its time grows with the site's pages.
  }, 120_000);

  it('keeps pages behind a session and every signed-in answer private, and out of the micro-cache', async () => {
    const wrong: string[] = [];
    const jobs = Object.entries(cases).flatMap(([route, c]) => WHO.map((who) => ({ route, c, who })));
    // Twice, so anything the micro-cache kept the first time would be answered from memory the second.
    for (let round = 0; round < 2; round++) {
      await pool(jobs, async ({ route, c, who }) => {
        const a = await get(t, c.path, as(who));
        // A member-shell page holds nobody's data and is shared by every signed-in visitor (tests/e2e/micro-cache.test.ts),
        // the home feed among them, whose guests are sent to log in.
        const shared = who !== 'guest' && MEMBER_SHELL_ROUTES.includes(route);
        const isPrivate = !shared && (who !== 'guest' || needsSession(accessFor(route)!));
        if (isPrivate && a.cacheControl !== 'private, no-store') wrong.push(`${route} as ${who}: cache-control ${a.cacheControl}`);
        if (isPrivate && a.xCache && a.xCache !== 'MISS') wrong.push(`${route} as ${who}: answered from the micro-cache (${a.xCache})`);
      });
    }
    // The cache is on and does keep public pages: the check above could see a hit.
    expect((await get(t, '/performers')).xCache).toBe('HIT');
    expect(wrong.sort()).toEqual([]);
  }, 120_000);

  it('never shows a page behind a session under another spelling of its path', async () => {
    const wrong: string[] = [];
    const jobs = protectedRoutes().flatMap((route) => {
      const p = cases[route]!.path;
      return spellings(p).flatMap((s) => (['guest', 'fan'] as const).map((who) => ({ route, p, s, who })));
    });
    expect(jobs.length).toBeGreaterThan(30 * 18 * 2);
    await pool(jobs, async ({ route, p, s, who }) => {
      const where = `${route} as ${who}, ${s.name} (${JSON.stringify(s.url)})`;
      const query = s.url.includes('?') ? s.url.slice(s.url.indexOf('?')) : '';
      // Follow redirects between spellings (never more than a few) until one leads to the canonical path.
      let url = s.url;
      for (let hop = 0; hop < 3; hop++) {
        const a = await get(t, url, as(who));
        if (a.status === 200) return void wrong.push(`${where}: answered 200 under ${JSON.stringify(url)}`);
        if (a.status === 301 || a.status === 308) {
          if (a.location === p + query) {
            if (s.resolvesTo !== 'canonical') wrong.push(`${where}: redirected to ${a.location}`);
            return;
          }
          if (!a.location?.startsWith('/') || a.location.startsWith('//')) return void wrong.push(`${where}: redirected off site to ${a.location}`);
          url = a.location;
          continue;
        }
        const ok = a.status === 404 || a.status === 403 || (a.status === 302 && a.location?.startsWith('/auth/login?next='));
        if (!ok) wrong.push(`${where}: ${a.status} ${a.location ?? ''}`);
        else if (s.resolvesTo === 'canonical') wrong.push(`${where}: expected a redirect to ${p + query}, got ${a.status} ${a.location ?? ''}`);
        return;
      }
      wrong.push(`${where}: too many redirects`);
    });
    expect(wrong.sort()).toEqual([]);
  }, 120_000);

  it('refuses (404, logged) a route that has no rule: Astro\'s own', async () => {
    const logged = vi.spyOn(t.ctx.logger, 'error');
    try {
      for (const [route, url] of Object.entries(ASTRO_INTERNAL)) {
        expect(accessFor(route)).toBeUndefined();
        for (const who of ['guest', 'admin'] as const) {
          const a = await get(t, url, as(who));
          expect(a.status, `${url} as ${who}`).toBe(404);
          expect(a.body).toContain('Page not found');
        }
        expect(logged).toHaveBeenCalledWith(expect.objectContaining({ route }), expect.stringContaining('no access rule'));
      }
    } finally {
      logged.mockRestore();
    }
  });

  it('keeps in maintenance mode only the pages flagged for it, for guests; admins see every page', async () => {
    await t.ctx.db
      .insertInto('settings')
      .values({ key: 'maintenanceMode', value: 'true', group: 'general', public: 1, updatedAt: new Date().toISOString() })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: 'true' }))
      .execute();
    try {
      const wrong: string[] = [];
      await pool(Object.entries(cases), async ([route, c]) => {
        // A query of its own, so no answer the micro-cache kept before maintenance is reused.
        const url = `${c.path}${c.path.includes('?') ? '&' : '?'}during=maintenance`;
        const expected = accessFor(route)!.maintenance ? c.expect.guest : 503;
        const guest = outcomeOf(await get(t, url, undefined), url);
        if (guest !== expected) wrong.push(`${route} as guest: expected ${expected}, got ${guest}`);
        const admin = outcomeOf(await get(t, url, users.admin), url);
        if (admin !== c.expect.admin) wrong.push(`${route} as admin: expected ${c.expect.admin}, got ${admin}`);
      });
      // The login pages and the console stay reachable, so an admin can sign in and switch maintenance off.
      expect(accessFor('/auth/login')!.maintenance).toBe(true);
      expect(accessFor('/admin/settings')!.maintenance).toBe(true);
      expect(accessFor('/performers')!.maintenance).toBeUndefined();
      expect(wrong.sort()).toEqual([]);
    } finally {
      await t.ctx.db.updateTable('settings').set({ value: 'false' }).where('key', '=', 'maintenanceMode').execute();
    }
  }, 60_000);
});
