import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { buildCatalogue, type Catalogue } from '../helpers/catalogue-fixture.js';
import { GUEST_JS_BUDGET_BYTES, shippedJs } from '../bench/shipped-js.js';

/**
 * A guest never downloads code only a signed-in visitor can use: the realtime connection (socket.io-client and the
 * realtime store) is on signed-in pages only. Checked on the built site the way a browser loads it: every
 * /_astro/*.js the page's HTML names, then their static imports, recursively (a dynamic import() is not loaded
 * up front, so it is not followed). The signed-in page is the control that the signature is found when present.
 */

/** Strings only socket.io-client / engine.io-client carry (their disconnect reasons and protocol parameter). */
const SOCKET_IO_SIGNATURES = ['io server disconnect', 'io client disconnect', 'EIO'];

async function staticJs(base: string, pagePath: string, headers: Record<string, string> = {}): Promise<Map<string, string>> {
  const res = await fetch(base + pagePath, { headers });
  expect(res.status, pagePath).toBe(200);
  const html = await res.text();
  const files = new Map<string, string>();
  const queue = [...html.matchAll(/["'](\/_astro\/[^"']+?\.js)["']/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
  while (queue.length) {
    const url = queue.shift()!;
    if (files.has(url)) continue;
    const file = await fetch(base + url);
    expect(file.status, url).toBe(200);
    const code = await file.text();
    files.set(url, code);
    for (const m of code.matchAll(/(?:\bfrom|\bimport)\s*["']([^"']+?\.js)["']/g)) queue.push(new URL(m[1]!, base + url).pathname);
  }
  return files;
}

const withSocketIo = (files: Map<string, string>) =>
  [...files].filter(([, code]) => SOCKET_IO_SIGNATURES.every((s) => code.includes(s))).map(([url]) => url);

describe.each(engines)('JavaScript a guest page loads on %s', (engine) => {
  let t: TestApp;
  let c: Catalogue;

  beforeAll(async () => {
    t = await startTestApp(engine, { web: true });
    c = await buildCatalogue(t.ctx);
  });
  afterAll(() => t?.close());

  it('home, a performer page and a video page load no socket.io-client for a guest', async () => {
    for (const p of ['/', '/performers', '/performers/alice', `/videos/${c.videos.free.id}`]) {
      const files = await staticJs(t.url, p);
      expect(files.size, p).toBeGreaterThan(0);
      expect(withSocketIo(files), p).toEqual([]);
      // Nor the realtime status island that owns the connection.
      const html = await (await fetch(t.url + p)).text();
      expect(html, p).not.toContain('data-testid="realtime-status"');
      expect(html, p).not.toMatch(/component-url="[^"]*RealtimeStatus/);
    }
  });

  it(`home, a performer page and a video page stay within ${GUEST_JS_BUDGET_BYTES / 1000} KB of gzipped JavaScript for a guest`, async () => {
    for (const p of ['/', '/performers/alice', `/videos/${c.videos.free.id}`]) {
      const js = await shippedJs(t.url, p);
      // React's runtime alone is over 60 KB: a page without it would mean the islands did not load at all.
      expect(js.gzip, p).toBeGreaterThan(60_000);
      expect(js.gzip, `${p}: ${js.files.map((f) => `${f.url} ${f.gzip}`).join(', ')}`).toBeLessThanOrEqual(GUEST_JS_BUDGET_BYTES);
    }
  });

  it('a signed-in visitor gets the realtime connection (socket.io-client) on the same pages', async () => {
    for (const p of ['/', `/videos/${c.videos.free.id}`]) {
      const files = await staticJs(t.url, p, { cookie: `token=${c.fan.token}` });
      expect(withSocketIo(files).length, p).toBeGreaterThan(0);
    }
  });
});
