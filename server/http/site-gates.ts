import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { Role } from '../../common/enums.js';

/**
 * The site's two gates, decided in ONE place for every way in: pages (src/middleware.ts), the JSON API (the hook
 * below), protected media and downloads (server/media/protected.routes.ts) and the socket.io handshake
 * (server/realtime/socket.ts).
 *
 *   country block     the visitor's country is in `country_blocks`          → 451 COUNTRY_BLOCKED
 *   maintenance mode  the `maintenanceMode` setting is on                   → 503 MAINTENANCE, Retry-After
 *
 * The country block is checked first (a blocked visitor learns nothing more). Admins pass both, so they can
 * still run the site and switch maintenance off. Each entry point decides which of its paths are exempt (the API:
 * API_GATE_EXEMPT), and how a refusal looks (a page, JSON, a socket.io connect_error).
 */

/** Seconds a client is asked to wait in maintenance mode (the maintenance page says the same). */
export const MAINTENANCE_RETRY_AFTER_SEC = 300;

export type GateRefusal =
  | { status: 451; code: 'COUNTRY_BLOCKED'; message: string }
  | { status: 503; code: 'MAINTENANCE'; message: string; retryAfterSec: number };

export interface GateVisitor {
  /** The visitor's country (ctx.geo.countryOf), null when unknown: an unknown country is never blocked. */
  country: string | null;
  /** The signed-in user's role, if any. */
  role: Role | null | undefined;
}

/** Whether the visitor may come in; the refusal when not. `skipMaintenance`: a path that stays open in maintenance. */
export async function siteGate(
  ctx: Pick<AppContext, 'geo' | 'settings'>,
  visitor: GateVisitor,
  opts: { skipMaintenance?: boolean } = {},
): Promise<GateRefusal | null> {
  if (visitor.role === 'admin') return null;
  if (await ctx.geo.isBlocked(visitor.country)) {
    return { status: 451, code: 'COUNTRY_BLOCKED', message: 'This site is not available in your country' };
  }
  if (!opts.skipMaintenance && (await ctx.settings.get('maintenanceMode'))) {
    return { status: 503, code: 'MAINTENANCE', message: 'The site is down for maintenance, please come back soon', retryAfterSec: MAINTENANCE_RETRY_AFTER_SEC };
  }
  return null;
}

/** Sends a refusal as the API's JSON error (`{ message, code }`), never cached. */
export function sendRefusal(reply: FastifyReply, refusal: GateRefusal): FastifyReply {
  if (refusal.status === 503) reply.header('retry-after', String(refusal.retryAfterSec));
  return reply.status(refusal.status).header('cache-control', 'no-store').send({ message: refusal.message, code: refusal.code });
}

/**
 * API routes (method + path under the API base) that stay open through both gates: what logging in and out needs
 * (an admin must be able to sign in to pass), the public settings read (the browser learns about maintenance
 * from it) and the country-block check itself. /health is outside the API and never gated.
 */
export const API_GATE_EXEMPT: ReadonlySet<string> = new Set([
  'POST /auth/login',
  'POST /auth/logout',
  'GET /settings/public',
  'GET /country-block/check',
]);

declare module 'fastify' {
  interface FastifyRequest {
    /** The visitor's country (ctx.geo.countryOf of request.ip and the headers), set for every API request. */
    country: string | null;
  }
}

/**
 * The API's gate hook. Runs after the auth hook (an admin's session lets them through); records the visitor's
 * country on the request for the routes (performers' own country blocks, server/catalogue/catalogue.repository.ts).
 */
export function installSiteGates(api: FastifyInstance, ctx: AppContext, apiBase: string): void {
  api.decorateRequest('country', null);
  api.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    request.country = ctx.geo.countryOf(request.ip, request.headers);
    const route = request.routeOptions.url;
    if (route && API_GATE_EXEMPT.has(`${request.method} ${route.slice(apiBase.length)}`)) return;
    const refusal = await siteGate(ctx, { country: request.country, role: request.user?.role });
    if (refusal) return sendRefusal(reply, refusal);
  });
}
