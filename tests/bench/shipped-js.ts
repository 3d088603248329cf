import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

/**
 * What a guest's home, performer and video page may ship, gzipped, in bytes (85 KB). React's client runtime is
 * about 68 KB of it; tests/e2e/guest-js.test.ts fails above it and `npm run bench` reports against it.
 */
export const GUEST_JS_BUDGET_BYTES = 85_000;

export interface ShippedJs {
  files: Array<{ url: string; raw: number; gzip: number }>;
  raw: number;
  gzip: number;
}

/**
 * JavaScript a page makes the browser load: every /_astro/*.js its HTML references (scripts, island component and
 * renderer URLs) plus their static imports (`import x from"./a.js"`, `import"./b.js"`, `export * from"./c.js"`),
 * followed recursively; dynamic import() is lazy and not counted. Each file gzipped at level 9. `headers` go with the
 * page request (e.g. a session cookie: a signed-in visitor gets more islands).
 */
export async function shippedJs(base: string, pagePath: string, headers: Record<string, string> = {}): Promise<ShippedJs> {
  const res = await fetch(base + pagePath, { headers });
  if (!res.ok) throw new Error(`${pagePath}: HTTP ${res.status}`);
  const html = await res.text();
  const seen = new Set<string>();
  const files: ShippedJs['files'] = [];
  const queue = [...html.matchAll(/["'](\/_astro\/[^"']+?\.js)["']/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
  while (queue.length) {
    const url = queue.shift()!;
    if (seen.has(url)) continue;
    seen.add(url);
    const file = await fetch(base + url);
    if (!file.ok) continue;
    const code = Buffer.from(await file.arrayBuffer());
    files.push({ url, raw: code.length, gzip: zlib.gzipSync(code, { level: 9 }).length });
    for (const m of code.toString('utf8').matchAll(/(?:\bfrom|\bimport)\s*["']([^"']+?\.js)["']/g)) {
      queue.push(new URL(m[1]!, base + url).pathname);
    }
  }
  const sum = (k: 'raw' | 'gzip') => files.reduce((n, f) => n + f[k], 0);
  return { files, raw: sum('raw'), gzip: sum('gzip') };
}

/** The session cookie of a login (the `token` cookie the login endpoint sets). */
export async function sessionCookie(base: string, credentials: string): Promise<string> {
  const at = credentials.indexOf(':');
  const res = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: credentials.slice(0, at), password: credentials.slice(at + 1) }),
  });
  if (!res.ok) throw new Error(`login: HTTP ${res.status} ${await res.text()}`);
  const cookies = res.headers.getSetCookie().map((c) => c.split(';')[0]!);
  if (!cookies.length) throw new Error('login: no cookie set');
  return cookies.join('; ');
}

/** The renderer the islands run on, as installed: `@astrojs/react x (react y, react-dom z)`. */
export function rendererName(): string {
  const version = (pkg: string) => (JSON.parse(fs.readFileSync(path.join('node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
  return `@astrojs/react ${version('@astrojs/react')} (react ${version('react')}, react-dom ${version('react-dom')})`;
}

/** A performer page and a video page of a running site, the first each list links to (as `headers` sees them). */
export async function samplePages(base: string, headers: Record<string, string> = {}): Promise<{ performer: string; video: string }> {
  const html = async (p: string) => {
    const res = await fetch(base + p, { headers });
    if (!res.ok) throw new Error(`${p}: HTTP ${res.status}`);
    return res.text();
  };
  const performer = (await html('/performers')).match(/href="(\/performers\/[A-Za-z0-9_.-]+)"/)?.[1];
  if (!performer) throw new Error('no performer link on /performers');
  const video = (await html('/videos')).match(/href="(\/videos\/[A-Za-z0-9_-]+)"/)?.[1];
  if (!video) throw new Error('no video link on /videos');
  return { performer, video };
}

