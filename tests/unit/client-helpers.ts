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

export interface XhrCall {
  method: string;
  url: string;
  headers: Record<string, string>;
  withCredentials: boolean;
  body: unknown;
}

/** An upload's reply: status and JSON body, or `network: true` for a request that got no answer. */
export type XhrReply = { status: number; body?: unknown } | { network: true };
type XhrRoute = (call: XhrCall, progress: (loaded: number, total: number) => void) => XhrReply | Promise<XhrReply>;

/**
 * Stubs `XMLHttpRequest` (the client's other HTTP seam: uploads, for their progress events): `routes` maps
 * "METHOD /path" to a reply, or to a function that may report upload progress before answering; anything else
 * answers 404. Returns the recorded calls.
 */
export function stubXhr(routes: Record<string, XhrRoute | XhrReply>) {
  const calls: XhrCall[] = [];
  class FakeXhr {
    status = 0;
    responseText = '';
    responseType = '';
    withCredentials = false;
    upload: { onprogress: ((e: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = { onprogress: null };
    onload: (() => void) | null = null;
    onerror: (() => void) | null = null;
    onabort: (() => void) | null = null;
    private method = 'GET';
    private url = '';
    private headers: Record<string, string> = {};
    open(method: string, url: string) {
      this.method = method.toUpperCase();
      this.url = url;
    }
    setRequestHeader(name: string, value: string) {
      this.headers[name.toLowerCase()] = value;
    }
    abort() {
      this.onabort?.();
    }
    send(body: unknown) {
      const call: XhrCall = { method: this.method, url: this.url, headers: this.headers, withCredentials: this.withCredentials, body };
      calls.push(call);
      const route = routes[`${this.method} ${this.url.split('?')[0]}`];
      void (async () => {
        await Promise.resolve();
        const progress = (loaded: number, total: number) => this.upload.onprogress?.({ lengthComputable: true, loaded, total });
        const answer: XhrReply = !route
          ? { status: 404, body: { message: 'no stub', code: 'NOT_FOUND' } }
          : typeof route === 'function' ? await route(call, progress) : route;
        if ('network' in answer) return this.onerror?.();
        this.status = answer.status;
        this.responseText = answer.body === undefined ? '' : JSON.stringify(answer.body);
        this.onload?.();
      })();
    }
  }
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
  return { calls };
}
