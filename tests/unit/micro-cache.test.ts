import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { createMicroCache, type MicroCache } from '../../server/http/micro-cache.js';
import { isMemberShellPath, MEMBER_SHELL_ROUTES } from '../../server/routes.js';

/**
 * The micro-cache over a real HTTP server with counting routes: what it keeps, what it refuses, coalescing and
 * expiry. The whole site with it switched on is tested in tests/api/micro-cache.test.ts.
 */
describe('micro-cache', () => {
  let app: FastifyInstance;
  let base: string;
  /** Requests that reached Fastify's hooks: hits answered by the server's listener never do. */
  let reachedFastify = 0;
  const calls = new Map<string, number>();
  const count = (name: string) => calls.set(name, (calls.get(name) ?? 0) + 1).get(name)!;
  const TTL = 300;
  const STALE = 600;

  let cache: MicroCache;
  beforeAll(async () => {
    cache = createMicroCache({
      ttlMs: TTL,
      maxBodyBytes: 10_000,
      maxWaitMs: 3000,
      staleMs: STALE,
      countryOf: (req) => (req.headers['x-country'] as string | undefined) ?? null,
      isPublicRoute: (url) => url.startsWith('/public'),
      isMemberShellPage: (path) => path === '/shell' || path === '/public/json',
    });
    app = Fastify({ forceCloseConnections: true, serverFactory: cache.serverFactory, keepAliveTimeout: 4321 });
    app.addHook('onRequest', async () => {
      reachedFastify++;
    });
    cache.install(app);
    app.get('/public/slow', async () => {
      const n = count('slow');
      await new Promise((r) => setTimeout(r, 150));
      return { n };
    });
    app.get('/public/json', async () => ({ n: count('json') }));
    app.get('/public/cookie', async (_req, reply) => reply.header('set-cookie', 'a=b').send({ n: count('cookie') }));
    app.get('/public/private', async (_req, reply) => reply.header('cache-control', 'private').send({ n: count('private') }));
    app.get('/public/missing', async (_req, reply) => reply.code(404).send({ message: 'no', n: count('missing') }));
    app.get('/public/big', async () => ({ n: count('big'), pad: 'x'.repeat(20_000) }));
    app.get('/public/binary', async (_req, reply) => reply.type('image/png').send(Buffer.from([count('binary')])));
    app.get('/public/broken', async (_req, reply) => {
      count('broken');
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'text/html' });
      reply.raw.write('<p>half');
      setTimeout(() => reply.raw.destroy(), 20);
    });
    app.get('/public/hang', async () => {
      // The first render hangs far longer than waiters wait; later ones are quick.
      if (count('hang') === 1) await new Promise((r) => setTimeout(r, 10_000));
      return { ok: true };
    });
    app.get('/public/abandoned', async () => {
      await new Promise((r) => setTimeout(r, 100));
      return { n: count('abandoned') };
    });
    app.post('/public/json', async () => ({ n: count('post') }));
    app.get('/private/json', async () => ({ n: count('unlisted') }));
    // What no route claims stands for an Astro page.
    app.setNotFoundHandler(async (request, reply) => reply.type('text/html').send(`<p>${request.url} ${count('page')}</p>`));
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  const get = async (p: string, headers: Record<string, string> = {}) => {
    const res = await fetch(base + p, { headers });
    return { status: res.status, cache: res.headers.get('x-cache'), type: res.headers.get('content-type'), text: await res.text() };
  };

  it('keeps a listed route and an unclaimed page, and serves the same bytes and type', async () => {
    const first = await get('/public/json');
    const second = await get('/public/json');
    expect([first.cache, second.cache]).toEqual(['MISS', 'HIT']);
    expect(second.text).toBe(first.text);
    expect(second.type).toBe(first.type);
    expect(calls.get('json')).toBe(1);
    expect((await get('/about')).cache).toBe('MISS');
    const page = await get('/about');
    expect(page.cache).toBe('HIT');
    expect(page.text).toBe('<p>/about 1</p>');
  });

  it('answers hits from the server listener, before Fastify, on a server set up as Fastify would', async () => {
    await get('/public/json?listener');
    const before = reachedFastify;
    const hits = await Promise.all(Array.from({ length: 5 }, () => get('/public/json?listener')));
    expect(hits.map((h) => h.cache)).toEqual(['HIT', 'HIT', 'HIT', 'HIT', 'HIT']);
    expect(reachedFastify).toBe(before);
    // Misses, sessions and other methods go through Fastify.
    await get('/public/json?listener', { cookie: 'token=abc' });
    await fetch(`${base}/public/json?listener`, { method: 'POST' });
    await get('/public/json?listener-other');
    expect(reachedFastify).toBe(before + 3);
    expect(app.server.keepAliveTimeout).toBe(4321);
  });

  it('renders a burst of concurrent misses once', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => get('/public/slow')));
    expect(calls.get('slow')).toBe(1);
    expect(new Set(answers.map((a) => a.text))).toEqual(new Set(['{"n":1}']));
    expect(answers.filter((a) => a.cache === 'MISS')).toHaveLength(1);
  });

  it('serves the previous answer while a fresh one renders, for at most staleMs past the TTL', async () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const old = await get('/public/slow?swr');
    await sleep(TTL + 20);
    const renderer = get('/public/slow?swr');
    await sleep(40);
    const during = await Promise.all([get('/public/slow?swr'), get('/public/slow?swr')]);
    expect(during.map((d) => [d.cache, d.text])).toEqual([['STALE', old.text], ['STALE', old.text]]);
    const fresh = await renderer;
    expect(fresh.cache).toBe('MISS');
    expect(fresh.text).not.toBe(old.text);
    expect(await get('/public/slow?swr')).toMatchObject({ cache: 'HIT', text: fresh.text });
    // Past TTL + staleMs the old answer is gone: requests during the next render wait for it.
    await sleep(TTL + STALE + 50);
    const next = get('/public/slow?swr');
    await sleep(40);
    const waited = await get('/public/slow?swr');
    expect(waited.cache).toBe('HIT');
    expect(waited.text).toBe((await next).text);
    expect(waited.text).not.toBe(fresh.text);
  });

  it('expires after the TTL', async () => {
    await get('/public/json?expiry');
    await new Promise((r) => setTimeout(r, TTL + 50));
    expect((await get('/public/json?expiry')).cache).toBe('MISS');
  });

  it('keys by URL and country', async () => {
    const de = await get('/country', { 'x-country': 'DE' });
    const fr = await get('/country', { 'x-country': 'FR' });
    const de2 = await get('/country', { 'x-country': 'DE' });
    expect([de.cache, fr.cache, de2.cache]).toEqual(['MISS', 'MISS', 'HIT']);
    expect((await get('/country?x=1', { 'x-country': 'DE' })).cache).toBe('MISS');
  });

  it('never reads or fills for a request with a session', async () => {
    const withCookie = await get('/session', { cookie: 'theme=dark; token=abc' });
    const withHeader = await get('/session', { authorization: 'Bearer abc' });
    expect([withCookie.cache, withHeader.cache]).toEqual([null, null]);
    expect((await get('/session')).cache).toBe('MISS');
    expect((await get('/session', { cookie: 'token=abc' })).cache).toBe(null);
    // Other cookies do not matter.
    expect((await get('/session', { cookie: 'theme=dark' })).cache).toBe('HIT');
  });

  it('shares a member-shell page among sessions, apart from guests, and nothing else', async () => {
    const a = await get('/shell?x=1', { cookie: 'token=a' });
    const b = await get('/shell?x=1', { cookie: 'theme=dark; token=b' });
    expect([a.cache, b.cache]).toEqual(['MISS', 'HIT']);
    expect(b.text).toBe(a.text);
    // Guests have their own copy; a bearer token, another method or another country shares nothing.
    expect((await get('/shell?x=1')).cache).toBe('MISS');
    expect((await get('/shell?x=1', { authorization: 'Bearer a' })).cache).toBe(null);
    expect((await get('/shell?x=1', { cookie: 'token=a', 'x-country': 'FR' })).cache).toBe('MISS');
    expect((await fetch(`${base}/shell?x=1`, { method: 'HEAD', headers: { cookie: 'token=a' } })).headers.get('x-cache')).toBe(null);
    // Only pages are member shells: an API route listed by mistake is still never shared among sessions.
    await get('/public/json', { cookie: 'token=a' });
    expect((await get('/public/json', { cookie: 'token=a' })).cache).toBe(null);
    // Another page is not shared among sessions.
    expect((await get('/shelf', { cookie: 'token=a' })).cache).toBe(null);
  });

  it("knows the site's member-shell pages by their path: each listed route, the home feed, a performer's and a video's page, and nothing deeper", () => {
    const paths = ['/', '/home', '/performers', '/videos', '/store', '/posts', '/performers/alice', '/performers/a-b_c', '/videos/abc', '/videos/morning-flow-7'];
    expect(paths.filter(isMemberShellPath)).toEqual(paths);
    expect(MEMBER_SHELL_ROUTES).toEqual(expect.arrayContaining(['/home', '/performers/[username]', '/videos/[id]']));
    const not = ['/home/', '/home/x', '/homes', '/performers/', '/performers/alice/', '/performers/alice/x', '/videos/', '/videos/abc/', '/videos/abc/x', '/galleries/abc', '/account', '/messages', '/performersx', '//', ''];
    expect(not.filter(isMemberShellPath)).toEqual([]);
  });

  it.each([
    ['an answer setting a cookie', '/public/cookie', 'cookie'],
    ['a private answer', '/public/private', 'private'],
    ['a non-200 answer', '/public/missing', 'missing'],
    ['a body over the size bound', '/public/big', 'big'],
    ['a content type other than pages and JSON', '/public/binary', 'binary'],
    ['an unlisted route', '/private/json', 'unlisted'],
  ])('does not keep %s', async (_what, p, name) => {
    await get(p);
    const again = await get(p);
    expect(again.cache).not.toBe('HIT');
    expect(calls.get(name)).toBe(2);
  });

  it('does not keep a render that failed midway, nor answer a POST from memory', async () => {
    await get('/public/broken').catch(() => undefined);
    await get('/public/broken').catch(() => undefined);
    expect(calls.get('broken')).toBe(2);
    await get('/public/json?post');
    const posted = calls.get('post') ?? 0;
    const post = await fetch(`${base}/public/json?post`, { method: 'POST' });
    expect(post.headers.get('x-cache')).toBe(null);
    expect(await post.json()).toEqual({ n: posted + 1 });
  });

  it('lets waiters render for themselves when the first render hangs', async () => {
    let firstEnded = false;
    const first = fetch(`${base}/public/hang`).then(() => (firstEnded = true), () => (firstEnded = true));
    await expect.poll(() => calls.get('hang')).toBe(1);
    const timedOut = cache.waitsTimedOut;
    const second = await get('/public/hang');
    expect(second.status).toBe(200);
    // The waiter was let go by the wait limit and rendered for itself while the first render still hung.
    expect(firstEnded).toBe(false);
    expect(calls.get('hang')).toBe(2);
    expect(cache.waitsTimedOut).toBe(timedOut + 1);
    void first;
  });

  it('forgets a render whose client hung up', async () => {
    const abort = new AbortController();
    const gone = fetch(`${base}/public/abandoned`, { signal: abort.signal }).catch(() => 'aborted');
    await new Promise((r) => setTimeout(r, 10));
    abort.abort();
    expect(await gone).toBe('aborted');
    await expect.poll(() => calls.get('abandoned')).toBe(1);
    await new Promise((r) => setTimeout(r, 300));
    const timedOut = cache.waitsTimedOut;
    const next = await get('/public/abandoned');
    // The abandoned render released its key when it ended: the next visitor rendered at once, not after the wait limit.
    expect(cache.waitsTimedOut).toBe(timedOut);
    expect(next.status).toBe(200);
    expect(JSON.parse(next.text)).toEqual({ n: 2 });
  });
});
