import { defineMiddleware } from 'astro:middleware';
import type { APIContext, MiddlewareNext } from 'astro';
import { reachableInMaintenance, ruleFor } from './server/route-rules.js';
import { isDatabaseUnavailable } from '../server/db/unavailable.js';
import { SESSION_COOKIE, sessionCookieOptions } from '../server/http/auth.js';

/**
 * Runs before every page: loads site settings (cached briefly by the settings service), the visitor's
 * country and session, then applies the gates in order: geo-block, maintenance, page flags.
 */
export const onRequest = defineMiddleware(async (context, next) => {
  try {
    return await gate(context, next);
  } catch (err) {
    // The database is restarting or unreachable: a page says so with 503 (as the API does), not a 500 error page.
    if (isDatabaseUnavailable(err)) {
      context.locals.ctx.logger.warn({ err: (err as Error).message, path: context.url.pathname }, 'database unavailable');
      return unavailable();
    }
    throw err;
  }
});

async function gate(context: APIContext, next: MiddlewareNext): Promise<Response> {
  const { ctx } = context.locals;
  const { pathname } = context.url;
  const settings = await ctx.settings.getPublicAll();
  context.locals.settings = settings;
  context.locals.runtime = {
    apiBase: ctx.config.apiBase,
    // Empty means the page's own origin, so the handshake carries the session cookie whatever host the visitor used.
    socketUrl: ctx.config.socketUrl,
    socketPath: ctx.config.socketPath,
    env: ctx.config.env,
  };

  const token = context.cookies.get(SESSION_COOKIE)?.value;
  const user = token ? await ctx.auth.authenticate(token) : null;
  context.locals.user = user ?? null;
  if (token && !user) {
    // SPEC §4: an invalid stored token is cleared.
    // With the attributes it was set with (Secure on an https site), so the browser replaces it.
    context.cookies.delete(SESSION_COOKIE, sessionCookieOptions(ctx.config.publicUrl, context.url.protocol === 'https:'));
  }

  const country = ctx.geo.countryOf(context.locals.clientIp, Object.fromEntries(context.request.headers));
  context.locals.country = country;
  if (pathname !== '/blocked' && (await ctx.geo.isBlocked(country)) && user?.role !== 'admin') {
    return context.rewrite('/blocked');
  }

  if (settings.maintenanceMode && pathname !== '/maintenance' && user?.role !== 'admin' && !reachableInMaintenance(pathname)) {
    return context.rewrite('/maintenance');
  }

  const rule = ruleFor(pathname);
  if (rule.authenticate && !user && !rule.noredirect) {
    return context.redirect(`/auth/login?next=${encodeURIComponent(pathname + context.url.search)}`, 302);
  }
  if (rule.roles && user && !rule.roles.includes(user.role)) {
    return context.rewrite('/403');
  }
  const response = await next();
  if (user || rule.authenticate) response.headers.set('cache-control', 'private, no-store');
  return response;
}

function unavailable(): Response {
  const html = '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Back in a moment</title></head>'
    + '<body><main><h1>Back in a moment</h1><p>The site is briefly unavailable. Please try again in a few seconds.</p></main></body></html>';
  return new Response(html, { status: 503, headers: { 'content-type': 'text/html; charset=utf-8', 'retry-after': '5', 'cache-control': 'no-store' } });
}
