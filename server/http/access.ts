import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import type { SwaggerTransform } from '@fastify/swagger';
import type { Role } from '../../common/api-types.js';
import { forbidden, unauthorized } from './errors.js';

/**
 * Who may call a route. Every route of the API declares one, in its options: `config: { access: ... }`, or once for a
 * whole group with `declareGroupAccess`. Kept deliberately small:
 *  - 'public'   anyone, guests included. The handler may still read `request.user` to personalise the answer.
 *  - 'session'  any signed-in account (guests: 401). Whose data it touches is the handler's ownership check.
 *  - 'signed'   no session: the handler authenticates the caller by a signature over the request (payment
 *               provider webhooks, signed media URLs). The gate lets everyone through; the handler refuses.
 *  - { roles }  a signed-in account with one of these roles (guests: 401, other roles: 403).
 */
export type RouteAccess = 'public' | 'session' | 'signed' | { roles: readonly Role[] };

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

const GROUP_ACCESS = Symbol('groupAccess');
const ACCESS_KINDS = new Set(['public', 'session', 'signed']);
const ROLES: ReadonlySet<string> = new Set<Role>(['user', 'performer', 'admin']);

/**
 * The access of every route registered in `group` (and the plugins it registers) that declares none itself. A
 * route may still declare its own, stricter or looser, in its `config`.
 */
export function declareGroupAccess(group: FastifyInstance, access: RouteAccess): void {
  assertValid(access, 'declareGroupAccess');
  (group as unknown as Record<symbol, RouteAccess>)[GROUP_ACCESS] = access;
}

function assertValid(access: unknown, where: string): asserts access is RouteAccess {
  if (typeof access === 'string' && ACCESS_KINDS.has(access)) return;
  const roles = (access as { roles?: unknown } | null)?.roles;
  if (Array.isArray(roles) && roles.length > 0 && roles.every((r) => ROLES.has(r))) return;
  throw new Error(`${where}: invalid access ${JSON.stringify(access)}; use 'public', 'session', 'signed' or { roles: [...] }`);
}

/**
 * Installs access control on an encapsulated part of the app (the API plugin; health and media with
 * `sessions: false`, where no session is read and so only 'public' and 'signed' may be declared):
 *  - at start-up (onRoute), a route that declares no access, in its config or through its group, is refused: the
 *    app does not build, so a forgotten route fails every test instead of being open;
 *  - on each request (onRequest, after the session hook has set `request.user` and before the body is read or
 *    validated), the declaration is enforced: 401 UNAUTHORIZED for guests, 403 FORBIDDEN for the wrong role. A
 *    forbidden caller never learns anything from validation errors.
 * Must be installed after the session hook (installAuthHook) and before any route is registered.
 */
export function installAccessControl(app: FastifyInstance, opts: { sessions?: boolean } = {}): void {
  const sessions = opts.sessions ?? true;
  app.addHook('onRoute', function declared(this: FastifyInstance, route: RouteOptions) {
    const own = route.config?.access;
    const access = own ?? (this as unknown as Record<symbol, RouteAccess | undefined>)[GROUP_ACCESS];
    const where = `${[route.method].flat().join(',')} ${route.url}`;
    if (access === undefined) {
      throw new Error(`Route ${where} declares no access: add config: { access: 'public' | 'session' | 'signed' | { roles: [...] } } (server/http/access.ts)`);
    }
    assertValid(access, `Route ${where}`);
    if (!sessions && access !== 'public' && access !== 'signed') {
      throw new Error(`Route ${where} declares ${JSON.stringify(access)}, but no session is read outside the API: use 'public' or 'signed'`);
    }
    // Written into the route's own config, where the request hook and the OpenAPI transform read it.
    if (own === undefined) route.config = { ...route.config, access };
  });

  app.addHook('onRequest', async (request) => {
    // Unknown URLs fall through to the JSON 404 answer.
    if (request.is404) return;
    const access = request.routeOptions.config.access;
    if (access === 'public' || access === 'signed') return;
    if (access === undefined) throw forbidden();
    if (!request.user) throw unauthorized('Please log in to continue');
    if (access !== 'session' && !access.roles.includes(request.user.role)) throw forbidden('You are not allowed to do this');
  });
}

/** The OpenAPI security schemes a session is accepted by (server/http/auth.ts readSessionToken). */
export const securitySchemes = {
  bearerAuth: { type: 'http', scheme: 'bearer', description: 'The session token from POST /auth/login' },
  cookieAuth: { type: 'apiKey', in: 'cookie', name: 'token', description: 'The session cookie set by POST /auth/login' },
} as const;

/** A session, by either of the schemes above. */
const SESSION_SECURITY = [{ bearerAuth: [] }, { cookieAuth: [] }];

/**
 * Wraps the OpenAPI transform so each operation documents its declared access: `x-access` (the declaration itself)
 * and `security`, always, so a client (and a linter) knows what to send:
 *  - 'session' and roles: a session is required (bearer or cookie);
 *  - 'public': a session is optional (`{}` first): the answer may depend on who asks (a locked video's price, a
 *    signed URL for a subscriber), so a client that has a session should send it;
 *  - 'signed': none (`[]`): the request is authenticated by its own signature and a session changes nothing.
 */
export function withAccessSecurity<S extends FastifySchema>(transform: SwaggerTransform<S>): SwaggerTransform<S> {
  return (args) => {
    const result = transform(args);
    const access = args.route.config?.access;
    if (access === undefined) return result;
    const security = access === 'signed' ? [] : access === 'public' ? [{}, ...SESSION_SECURITY] : SESSION_SECURITY;
    const schema = { ...(result.schema ?? {}), 'x-access': access, security };
    return { ...result, schema };
  };
}

export interface RegisteredRoute {
  method: string;
  url: string;
  /** The route's declared access (read late: a group's default is filled in after this list first sees the route). */
  readonly access: RouteAccess | undefined;
}

const registries = new WeakMap<object, RegisteredRoute[]>();

/**
 * Records every route the app registers, whatever its scope (HEAD twins left out). Installed on the root instance
 * before any plugin, so it also sees routes that bypass installAccessControl; the access matrix test compares this
 * list and the OpenAPI document with its expectation table.
 */
export function installRouteRegistry(root: FastifyInstance): void {
  const list: RegisteredRoute[] = [];
  registries.set(root, list);
  root.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') list.push({ method, url: route.url, get access() { return route.config?.access; } });
    }
  });
}

/** The routes of an app built with installRouteRegistry (empty otherwise). */
export function registeredRoutes(root: FastifyInstance): readonly RegisteredRoute[] {
  return registries.get(root) ?? [];
}
