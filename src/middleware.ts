import { defineMiddleware } from 'astro:middleware';
import type { APIContext, MiddlewareNext } from 'astro';
import { accessFor, decide, needsSession, type PageAccess } from './server/page-access.js';
import { isDatabaseUnavailable } from '../server/db/unavailable.js';
import { siteGate } from '../server/http/site-gates.js';
import { SESSION_COOKIE, sessionCookieOptions } from '../server/http/auth.js';
import { AGE_GATE_EXEMPT, ageGateApplies, passedAgeGate } from '../server/http/age-gate.js';
import { MEMBER_SHELL_ROUTES } from '../server/routes.js';

/**
 * Runs before every page: loads site settings (cached briefly by the settings service), the visitor's
 * country and session, then applies the gates in order: geo-block, maintenance, page access. Who may see a page
 * is looked up by the route Astro matched (src/server/page-access.ts), never by the request path; a route with
 * no rule is refused. Paths reach Astro already canonical (server/http/canonical-path.ts).
 */
export const onRequest = defineMiddleware(async (context, next) => {
  const access = accessFor(context.routePattern);
  if (!access) {
    // Deny by default: a page nobody gave a rule is not rendered, whoever asks.
    context.locals.ctx.logger.error({ route: context.routePattern, path: context.url.pathname }, 'page route has no access rule in src/server/page-access.ts: refused');
    return context.routePattern === '/404' ? new Response('Not found', { status: 404 }) : context.rewrite('/404');
  }
  try {
    return await gate(context, next, access);
  } catch (err) {
    // The database is restarting or unreachable: a page says so with 503 (as the API does), not a 500 error page.
    if (isDatabaseUnavailable(err)) {
      context.locals.ctx.logger.warn({ err: (err as Error).message, path: context.url.pathname }, 'database unavailable');
      return unavailable();
    }
    throw err;
  }
});

async function gate(context: APIContext, next: MiddlewareNext, access: PageAccess): Promise<Response> {
  const { ctx } = context.locals;
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
  context.locals.sessionEnded = Boolean(token && !user);
  if (token && !user) {
    // An invalid stored token is cleared,
    // with the attributes it was set with (Secure on an https site), so the browser replaces it.
    context.cookies.delete(SESSION_COOKIE, sessionCookieOptions(ctx.config.publicUrl, context.url.protocol === 'https:'));
  }

  const country = ctx.geo.countryOf(context.locals.clientIp, Object.fromEntries(context.request.headers));
  context.locals.country = country;
  // Guests only, decided from what the micro-cache keys by (country, the cookie), so a cached page is always right.
  context.locals.ageGate =
    !user && !AGE_GATE_EXEMPT.has(context.routePattern) && !passedAgeGate(context.request.headers.get('cookie')) &&
    ageGateApplies(await ctx.settings.get('ageGateEnabled'), await ctx.settings.get('ageGateCountries'), country);
  // The same decision as the API, media and socket.io (server/http/site-gates.ts); pages answer with a page.
  const refusal = await siteGate(ctx, { country, role: user?.role }, { skipMaintenance: Boolean(access.maintenance) });
  let response: Response;
  if (refusal?.code === 'COUNTRY_BLOCKED' && context.routePattern !== '/blocked') {
    response = await context.rewrite('/blocked');
  } else if (refusal?.code === 'MAINTENANCE' && context.routePattern !== '/maintenance') {
    response = await context.rewrite('/maintenance');
  } else {
    const decision = decide(access, user ?? null);
    // A member-shell page is rendered without the visitor, so that one copy serves every signed-in visitor
    // (server/routes.ts, the micro-cache): the content as a guest sees it, the header asking who is signed in. Not in
    // maintenance mode, where the admins who get through must not leave the site's copy for members to find.
    if (user && decision === 'render' && !settings.maintenanceMode && MEMBER_SHELL_ROUTES.includes(context.routePattern)) {
      context.locals.user = null;
      context.locals.memberShell = true;
      context.locals.shellUser = user;
      const shell = await next();
      // The page left the shell (src/server/catalogue-page.ts, leaveMemberShell): it is this visitor's alone.
      if (!context.locals.memberShell) shell.headers.set('cache-control', 'private, no-store');
      return shell;
    }
    response =
      decision === 'login'
        ? context.redirect(`/auth/login?next=${encodeURIComponent(context.url.pathname + context.url.search)}`, 302)
        : decision === 'forbidden'
          ? await context.rewrite('/403')
          : await next();
  }
  // Whatever a signed-in user gets, and whatever a page behind a session answers (its login redirect included),
  // is for this visitor alone: no shared cache (the micro-cache, a CDN) may keep it.
  if (user || needsSession(access)) response.headers.set('cache-control', 'private, no-store');
  return response;
}

function unavailable(): Response {
  const html = '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Back in a moment</title></head>'
    + '<body><main><h1>Back in a moment</h1><p>The site is briefly unavailable. Please try again in a few seconds.</p></main></body></html>';
  return new Response(html, { status: 503, headers: { 'content-type': 'text/html; charset=utf-8', 'retry-after': '5', 'cache-control': 'no-store' } });
}
