import http, { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { finished } from 'node:stream';
import type { FastifyInstance, FastifyRequest, FastifyServerFactory } from 'fastify';
import { passedAgeGate } from './age-gate.js';

export interface MicroCacheOptions {
  /** How long an answer is reused (PAGE_CACHE_MS); 0 turns the cache off. */
  ttlMs: number;
  /** Entries kept at most; the oldest go first. */
  maxEntries?: number;
  /** Bodies larger than this are never kept. */
  maxBodyBytes?: number;
  /** How long requests wait for a concurrent render of their key before rendering themselves. */
  maxWaitMs?: number;
  /**
   * How long past `ttlMs` an answer is kept to be served while a fresh one renders (stale while revalidate):
   * the requests arriving during that render get the previous answer at once instead of waiting for it.
   */
  staleMs?: number;
  /** The visitor's country, part of the key because pages and lists filter by it. */
  countryOf(request: IncomingMessage): string | null;
  /** Fastify routes (by their URL pattern) whose anonymous GET answer may be kept; pages need no listing. */
  isPublicRoute(routeUrl: string): boolean;
  /** Pages (by path) whose answer is the same for every signed-in visitor (the member shell, server/routes.ts). */
  isMemberShellPage(path: string): boolean;
}

interface Entry {
  at: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

const CACHEABLE_TYPE = /^(text\/html|application\/json|application\/xml|text\/xml|text\/plain)\b/i;
// Headers that describe one connection or one moment, not the answer.
const DROPPED = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);
const SESSION_COOKIE = /(?:^|;\s*)token=[^;]/;

export interface MicroCache {
  /**
   * Answers `req` from memory if it can (a fresh answer, or the previous one while a fresh one renders) and says
   * whether it did. Meant for the HTTP server's request listener, before Fastify builds a request at all: a hit
   * then costs what a plain node:http answer costs. Only keys the Fastify hook stored are found, and it stores
   * only what routing said may be kept, so this path needs no routing of its own.
   */
  answer(req: IncomingMessage, res: ServerResponse): boolean;
  /**
   * Fastify's `serverFactory`: an HTTP server whose request listener answers hits itself and hands the rest to
   * Fastify. Routing, request objects and hooks cost about as much again as sending a small cached answer.
   */
  serverFactory: FastifyServerFactory;
  /** The onRequest hook: hits that reached Fastify, waiting on a render in flight, and storing what misses render. */
  install(app: FastifyInstance): void;
  /**
   * Renders still running when `maxWaitMs` ran out, which let their waiters (if any) go render for themselves. A
   * render that ends, answered or abandoned, releases its key at once; this counts the times that did not happen.
   */
  readonly waitsTimedOut: number;
}

/**
 * A short-lived in-process cache of anonymous GET answers (pages, and the API routes `isPublicRoute` names), in front
 * of everything else: what nginx's micro-caching does, inside the one process. A burst of visitors on the same page
 * costs one render per `ttlMs`; concurrent misses on one key wait for the first render instead of repeating it,
 * and once a key has an answer, the requests arriving while it is rendered again get the previous answer
 * (`staleMs`, as nginx's `proxy_cache_use_stale updating`).
 *
 * Never kept or served: requests carrying a session (`token` cookie or Authorization header), so anything a
 * signed-in user sees, entitlements and signed media URLs included, stays out, except the member-shell pages
 * (`isMemberShellPage`), kept apart from the guests' copies and rendered without the visitor (src/middleware.ts);
 * answers other than 200, answers
 * that set a cookie or say `private`/`no-store`, other content types, and bodies over `maxBodyBytes`.
 * The key is host + URL + country + whether the age gate's cookie is there (server/http/age-gate.ts: the page with
 * the gate and the page without it are two answers), or "member" in its place for a request with a session cookie.
 * Each instance has its own cache, so a change (a setting, a new video) shows to anonymous visitors at most `ttlMs`
 * later.
 */
export function createMicroCache(opts: MicroCacheOptions): MicroCache {
  const entries = new Map<string, Entry>();
  const inflight = new Map<string, Promise<void>>();
  const maxEntries = opts.maxEntries ?? 2000;
  const maxBodyBytes = opts.maxBodyBytes ?? 1024 * 1024;
  const maxWaitMs = opts.maxWaitMs ?? 5000;
  const keepMs = opts.ttlMs + (opts.staleMs ?? 10_000);
  const enabled = opts.ttlMs > 0;
  let waitsTimedOut = 0;

  /**
   * The key of a GET that may be shared, or null; whether its route may be kept is the hook's question. A request
   * with a session shares only a member-shell page (when `page`: what no Fastify route claimed), with every other
   * signed-in visitor (never with guests); which session it carries does not matter, as the page holds nothing of
   * it. Any other signed-in request is turned away before the visitor's country is looked up.
   */
  const sharedKey = (req: IncomingMessage, page: boolean): string | null => {
    if (req.method !== 'GET') return null;
    const h = req.headers;
    if (h.authorization) return null;
    const url = req.url ?? '';
    let variant: string;
    if (h.cookie && SESSION_COOKIE.test(h.cookie)) {
      const q = url.indexOf('?');
      if (!page || !opts.isMemberShellPage(q < 0 ? url : url.slice(0, q))) return null;
      variant = 'member';
    } else variant = passedAgeGate(h.cookie) ? 'age' : '';
    return `${h.host ?? ''}\u0000${url}\u0000${opts.countryOf(req) ?? ''}\u0000${variant}`;
  };

  const keyOf = (request: FastifyRequest): string | null => {
    // Astro pages are what no Fastify route claimed; API routes opt in.
    if (!request.is404 && !opts.isPublicRoute(request.routeOptions.url ?? '')) return null;
    return sharedKey(request.raw, request.is404);
  };

  /** The entry for `key` if younger than `maxAgeMs`; entries past every use are dropped on the way. */
  const lookup = (key: string, maxAgeMs: number): Entry | undefined => {
    const e = entries.get(key);
    if (!e) return undefined;
    const age = Date.now() - e.at;
    if (age >= keepMs) entries.delete(key);
    return age < maxAgeMs ? e : undefined;
  };

  /** A fresh answer, else the previous one while a fresh one renders. */
  const usable = (key: string): { entry: Entry; state: 'HIT' | 'STALE' } | undefined => {
    const fresh = lookup(key, opts.ttlMs);
    if (fresh) return { entry: fresh, state: 'HIT' };
    const stale = inflight.has(key) ? lookup(key, keepMs) : undefined;
    return stale ? { entry: stale, state: 'STALE' } : undefined;
  };

  const send = (res: ServerResponse, entry: Entry, state: string) => {
    res.writeHead(200, { ...entry.headers, 'content-length': entry.body.length, 'x-cache': state });
    res.end(entry.body);
  };

  const store = (key: string, entry: Entry) => {
    entries.delete(key);
    entries.set(key, entry);
    if (entries.size > maxEntries) {
      const now = Date.now();
      for (const [k, e] of entries) if (now - e.at >= keepMs) entries.delete(k);
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    }
  };

  const answer = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (!enabled || entries.size === 0) return false;
    // A member key is only ever stored for a page (the hook's `keyOf`), so asking for one here finds no API answer.
    const key = sharedKey(req, true);
    const found = key ? usable(key) : undefined;
    if (!found) return false;
    send(res, found.entry, found.state);
    return true;
  };

  return {
    answer,
    get waitsTimedOut() {
      return waitsTimedOut;
    },

    serverFactory(handler, o) {
      const server = http.createServer((req, res) => {
        if (!answer(req, res)) handler(req, res);
      });
      // What Fastify sets on a server it creates itself (its options carry the defaults by now).
      const t = o as { keepAliveTimeout: number; requestTimeout: number; connectionTimeout: number };
      server.keepAliveTimeout = t.keepAliveTimeout;
      server.requestTimeout = t.requestTimeout;
      server.setTimeout(t.connectionTimeout);
      return server;
    },

    install(app) {
      if (!enabled) return;
      app.addHook('onRequest', async (request, reply) => {
        const key = keyOf(request);
        if (!key) return;
        let found = usable(key);
        if (!found && inflight.has(key)) {
          // A fresh copy is rendering and there is no previous one: wait for it.
          await inflight.get(key);
          const fresh = lookup(key, opts.ttlMs);
          if (fresh) found = { entry: fresh, state: 'HIT' };
        }
        if (found) {
          reply.hijack();
          send(reply.raw, found.entry, found.state);
          return;
        }
        // The render waited for was not kept: this request renders too, and owns the key unless another waiter already does.
        if (inflight.has(key)) return;
        let done!: () => void;
        const waiting = new Promise<void>((resolve) => (done = resolve));
        inflight.set(key, waiting);
        // A render that hangs must not hold its waiters: after maxWaitMs they render for themselves.
        const release = () => {
          if (inflight.get(key) === waiting) inflight.delete(key);
          done();
        };
        const timer = setTimeout(() => {
          waitsTimedOut++;
          release();
        }, maxWaitMs).unref();
        reply.raw.setHeader('x-cache', 'MISS');
        capture(reply.raw, maxBodyBytes, (entry) => {
          clearTimeout(timer);
          if (entry) store(key, entry);
          release();
        });
      });
    },
  };
}

/** Records what is written to `res`; calls `onEnd` with a cacheable entry once the answer is complete, else null. */
function capture(res: ServerResponse, maxBodyBytes: number, onEnd: (entry: Entry | null) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooBig = false;
  let headArg: OutgoingHttpHeaders | undefined;
  const take = (chunk: unknown, encoding?: unknown) => {
    if (chunk == null || typeof chunk === 'function' || tooBig) return;
    const buf = Buffer.isBuffer(chunk)
      ? chunk
      : chunk instanceof Uint8Array
        ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
        : Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    size += buf.length;
    if (size > maxBodyBytes) {
      tooBig = true;
      chunks.length = 0;
    } else chunks.push(Buffer.from(buf));
  };
  const writeHead = res.writeHead;
  const write = res.write;
  const end = res.end;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    const h = args.find((a, i) => i > 0 && a && typeof a === 'object');
    if (h && !Array.isArray(h)) headArg = h as OutgoingHttpHeaders;
    else if (Array.isArray(h)) tooBig = true; // raw header lists: not worth parsing, just do not keep
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['writeHead'];
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    take(chunk, rest[0]);
    return (write as (...a: unknown[]) => boolean).apply(this, [chunk, ...rest]);
  } as ServerResponse['write'];
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    take(chunk, rest[0]);
    return (end as (...a: unknown[]) => ServerResponse).apply(this, [chunk, ...rest]);
  } as ServerResponse['end'];

  // Also called when the client had already gone before this hook ran. An error (a render that failed midway
  // destroys the socket, a client that hung up) means the answer was not complete.
  finished(res, (err) => onEnd(err || !res.writableFinished ? null : entryOf(res, headArg, chunks, tooBig)));
}

function entryOf(res: ServerResponse, headArg: OutgoingHttpHeaders | undefined, chunks: Buffer[], tooBig: boolean): Entry | null {
  if (tooBig || res.statusCode !== 200) return null;
  const headers: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries({ ...(headArg ?? {}), ...res.getHeaders() })) {
    const name = k.toLowerCase();
    if (v !== undefined && !DROPPED.has(name) && name !== 'x-cache') headers[name] = v;
  }
  if (headers['set-cookie']) return null;
  if (/private|no-store|no-cache/i.test(String(headers['cache-control'] ?? ''))) return null;
  if (!CACHEABLE_TYPE.test(String(headers['content-type'] ?? ''))) return null;
  return { at: Date.now(), headers, body: Buffer.concat(chunks) };
}

