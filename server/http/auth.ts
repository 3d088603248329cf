import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthService, SessionUser } from '../auth/auth.service.js';
import type { Role } from '../../common/api-types.js';
import { AppError, forbidden, unauthorized } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user, set by the API's auth hook; null for guests (and outside the API plugin). */
    user: SessionUser | null;
    /** Where the session token came from: the `token` cookie or the Authorization header. */
    authSource: 'cookie' | 'bearer' | null;
  }
}

export const SESSION_COOKIE = 'token';

/**
 * Attributes of the session cookie, for every place that sets or clears it (API login and logout, the pages'
 * middleware). `Secure` whenever the site's public address is https, even when this hop is plain http (TLS ends
 * at the proxy, or X-Forwarded-Proto is not trusted), so the browser never sends the session over plain http.
 */
export function sessionCookieOptions(publicUrl: string, requestIsHttps: boolean) {
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    path: '/',
    secure: requestIsHttps || publicUrl.startsWith('https:'),
  };
}
/** Methods that change state: a cookie session on one must come from the site itself (CSRF). */
export const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The session token of a request: `Authorization: Bearer <token>` (a bare `Authorization: <token>` is
 * accepted too, docs/product.md, Sessions), else the `token` cookie.
 * When the header is present the cookie is not looked at.
 */
export function readSessionToken(request: FastifyRequest): { token: string; source: 'cookie' | 'bearer' } | null {
  const header = request.headers.authorization?.trim();
  if (header) {
    const token = /^bearer\s+/i.test(header) ? header.replace(/^bearer\s+/i, '').trim() : header;
    return token ? { token, source: 'bearer' } : null;
  }
  const cookie = request.cookies?.[SESSION_COOKIE];
  return cookie ? { token: cookie, source: 'cookie' } : null;
}

/** The origin of a request's Origin header, else of its Referer; null when neither is usable. */
function requestOrigin(request: FastifyRequest): string | null {
  const raw = request.headers.origin ?? request.headers.referer;
  if (!raw || raw === 'null') return null;
  try {
    return new URL(raw).origin;
  } catch {
    return null;
  }
}

/** The site's own origins: the one the request was addressed to (trustProxy honoured) and config.publicUrl's. */
function ownOrigins(request: FastifyRequest, publicUrl: string): Set<string> {
  const origins = new Set<string>();
  try {
    origins.add(new URL(`${request.protocol}://${request.host}`).origin);
  } catch {
    // a malformed Host header simply matches nothing
  }
  try {
    origins.add(new URL(publicUrl).origin);
  } catch {
    // config is validated elsewhere
  }
  return origins;
}

/**
 * Installs the API's authentication: on every request, the session token (header or cookie) is checked
 * and `request.user` set. A state-changing request authenticated by the COOKIE must come from the site
 * itself (Origin, else Referer, equal to the request's own origin or PUBLIC_URL's), otherwise 403:
 * browsers attach cookies to cross-site requests, but never an Authorization header, so bearer requests
 * skip the check. An invalid token just leaves the request anonymous; routes that need a user call
 * `requireUser`.
 */
export function installAuthHook(app: FastifyInstance, auth: AuthService, publicUrl: () => string): void {
  app.decorateRequest('user', null);
  app.decorateRequest('authSource', null);
  app.addHook('onRequest', async (request) => {
    const found = readSessionToken(request);
    if (!found) return;
    const user = await auth.authenticate(found.token);
    if (!user) return;
    if (found.source === 'cookie' && UNSAFE_METHODS.has(request.method)) {
      const origin = requestOrigin(request);
      if (!origin || !ownOrigins(request, publicUrl()).has(origin)) {
        throw new AppError(403, 'CSRF_REJECTED', 'Cross-site request refused: the request must come from this site');
      }
    }
    request.user = user;
    request.authSource = found.source;
  });
}

/** The signed-in user, or a 401 (the browser then sends the user to /login, docs/product.md). */
export function requireUser(request: FastifyRequest): SessionUser {
  if (!request.user) throw unauthorized('Please log in to continue');
  return request.user;
}

/** The signed-in user if their role is one of `roles`: 401 for guests, 403 for other roles. */
export function requireRole(request: FastifyRequest, ...roles: Role[]): SessionUser {
  const user = requireUser(request);
  if (!roles.includes(user.role)) throw forbidden('You are not allowed to do this');
  return user;
}
