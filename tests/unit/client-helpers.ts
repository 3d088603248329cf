import { vi } from 'vitest';

/** A fetch reply with a JSON body (or none, for 204/205). */
export function reply(status: number, body?: unknown, headers: Record<string, string> = {}): Response {
  if (body === undefined) return new Response(null, { status, headers });
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return new Response(text, { status, headers: { 'content-type': typeof body === 'string' ? 'text/html' : 'application/json', ...headers } });
}

export interface FetchCall {
  url: string;
  method: string;
  headers: Headers;
  body: unknown;
  init: RequestInit;
}

type Route = (call: FetchCall) => Response | Promise<Response>;

/**
 * Stubs `globalThis.fetch` (the only HTTP seam of the client): `routes` maps "METHOD /path" (path
 * without the query) to a reply; anything else answers 404. Returns the recorded calls.
 */
export function stubFetch(routes: Record<string, Route | Response>) {
  const calls: FetchCall[] = [];
  const fn = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = (init.method ?? 'GET').toUpperCase();
    const headers = new Headers(init.headers);
    let body: unknown = init.body;
    if (typeof body === 'string' && headers.get('content-type')?.includes('json')) body = JSON.parse(body);
    const call: FetchCall = { url, method, headers, body, init };
    calls.push(call);
    const key = `${method} ${url.split('?')[0]}`;
    const route = routes[key];
    if (!route) return reply(404, { message: `no stub for ${key}`, code: 'NOT_FOUND' });
    return typeof route === 'function' ? route(call) : route.clone();
  });
  vi.stubGlobal('fetch', fn);
  return { fn, calls };
}

/** Puts the JSON `<script>` tags Head.astro renders into the document. */
export function setPageJson(id: 'runtime-config' | 'public-settings', value: unknown): void {
  document.getElementById(id)?.remove();
  const script = document.createElement('script');
  script.type = 'application/json';
  script.id = id;
  script.textContent = JSON.stringify(value);
  document.head.append(script);
}

export const sampleUser = {
  _id: 'u1',
  name: 'Ada Fan',
  username: 'ada',
  email: 'ada@example.com',
  avatar: '/media/public/avatars/ada.webp',
  cover: null,
  role: 'user' as const,
  emailVerified: true,
  country: 'GB',
  bio: null,
  createdAt: '2026-01-01T00:00:00.000Z',
};

/** Resolves after pending promise callbacks have run. */
export const flush = () => new Promise((r) => setTimeout(r, 0));
