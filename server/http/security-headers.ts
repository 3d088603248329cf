import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * The security headers every answer carries (pages, the API, media, errors and 404s alike), worked out once at
 * start by helmet's own middleware. Astro puts a hash-based CSP <meta> in every page (experimental.csp), which is what
 * actually pins inline scripts and styles; this header adds what a meta tag cannot (frame-ancestors) and covers
 * non-HTML responses.
 *
 * Why not @fastify/helmet: it builds helmet's middleware again on every request (its CSP directives parsed and
 * validated each time, 2–3% of a signed-in API call's CPU in a profile), though with a fixed configuration every
 * header is the same for every answer.
 */
export function helmetOptions(hsts: boolean): HelmetOptions {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", "'unsafe-inline'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        mediaSrc: ["'self'", 'blob:'],
        connectSrc: ["'self'", 'ws:', 'wss:'],
        fontSrc: ["'self'", 'data:'],
        frameAncestors: ["'none'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
      },
    },
    crossOriginEmbedderPolicy: false,
    hsts: hsts ? { maxAge: 15552000 } : false,
  };
}

/** What helmet's middleware does to a response with `options`: the headers it sets and the ones it removes. */
export function securityHeaders(options: HelmetOptions): { set: Array<[string, string]>; removed: string[] } {
  const set: Array<[string, string]> = [];
  const removed: string[] = [];
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      if (typeof value !== 'string') throw new Error(`security header ${name}: helmet set a value that is not one string`);
      set.push([name, value]);
    },
    removeHeader(name: string) {
      removed.push(name);
    },
  };
  let failure: unknown;
  // Every middleware of a fixed configuration only sets or removes headers, at once: anything else is refused here.
  helmet(options)({} as never, recorder as never, (err?: unknown) => {
    failure = err;
  });
  if (failure) throw failure instanceof Error ? failure : new Error(String(failure));
  return { set, removed };
}

/** The first hook after the micro-cache's: every answer Fastify sends gets the headers. */
export function installSecurityHeaders(app: FastifyInstance, options: { hsts: boolean }): void {
  const { set, removed } = securityHeaders(helmetOptions(options.hsts));
  app.addHook('onRequest', (_request, reply, done) => {
    const res = reply.raw;
    for (const [name, value] of set) res.setHeader(name, value);
    for (const name of removed) res.removeHeader(name);
    done();
  });
}
