import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { Role } from '../../common/api-types.js';
import { declareGroupAccess, installAccessControl, installRouteRegistry, registeredRoutes, withAccessSecurity, type RouteAccess } from '../../server/http/access.js';
import { installErrorHandler } from '../../server/http/error-handler.js';

/**
 * The route access mechanism itself (server/http/access.ts), on a small Fastify app: what a declaration may be, that
 * an app with an undeclared or malformed one does not build, and what each declaration answers to a guest, each role
 * and an unknown URL. The access matrix (tests/api/access-matrix.test.ts) checks the real app's table of routes.
 */

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

/** An app whose requests carry the role named by the `x-role` header (none: a guest). */
function appWithUsers(opts: { sessions?: boolean } = {}): FastifyInstance {
  const app = Fastify();
  apps.push(app);
  installRouteRegistry(app);
  app.addHook('onRequest', async (request) => {
    const role = request.headers['x-role'];
    (request as unknown as { user: unknown }).user = typeof role === 'string' ? { id: 'u1', role: role as Role } : null;
  });
  installErrorHandler(app, { jsonNotFound: true });
  installAccessControl(app, opts);
  return app;
}

async function buildError(register: (app: FastifyInstance) => void, opts: { sessions?: boolean } = {}): Promise<string> {
  const app = appWithUsers(opts);
  try {
    register(app);
    await app.ready();
  } catch (err) {
    return (err as Error).message;
  }
  return 'built';
}

const ok = async () => ({ ok: true });

describe('route access declarations', () => {
  it('an app with a route that declares no access does not build, and says which route and how to fix it', async () => {
    expect(await buildError((app) => app.get('/forgotten', ok))).toBe(
      "Route GET /forgotten declares no access: add config: { access: 'public' | 'session' | 'signed' | { roles: [...] } } (server/http/access.ts)",
    );
  });

  it('names every method of an undeclared route', async () => {
    expect(await buildError((app) => app.route({ method: ['GET', 'POST'], url: '/two', handler: ok }))).toBe(
      "Route GET,POST /two declares no access: add config: { access: 'public' | 'session' | 'signed' | { roles: [...] } } (server/http/access.ts)",
    );
  });

  it.each([
    ['an unknown word', 'private'],
    ['an empty role list', { roles: [] }],
    ['an unknown role', { roles: ['root'] }],
    ['one unknown role among known ones', { roles: ['user', 'root'] }],
    ['roles that are not a list', { roles: 'admin' }],
    ['false', false],
    ['a number', 1],
  ])('refuses %s as a declaration', async (_name, access) => {
    const message = await buildError((app) => app.get('/x', { config: { access: access as RouteAccess } }, ok));
    expect(message).toBe(`Route GET /x: invalid access ${JSON.stringify(access)}; use 'public', 'session', 'signed' or { roles: [...] }`);
  });

  it.each([['public'], ['session'], ['signed'], [{ roles: ['user'] }], [{ roles: ['performer'] }], [{ roles: ['admin'] }], [{ roles: ['user', 'performer', 'admin'] }]] as const)(
    'accepts %j',
    async (access) => {
      expect(await buildError((app) => app.get('/x', { config: { access: access as RouteAccess } }, ok))).toBe('built');
    },
  );

  it('refuses a malformed group declaration at once, naming declareGroupAccess', async () => {
    const app = appWithUsers();
    expect(() => declareGroupAccess(app, { roles: [] })).toThrow("declareGroupAccess: invalid access {\"roles\":[]}; use 'public', 'session', 'signed' or { roles: [...] }");
    expect(() => declareGroupAccess(app, null as never)).toThrow("declareGroupAccess: invalid access null; use 'public', 'session', 'signed' or { roles: [...] }");
  });

  it('outside the API (no session read), only public and signed may be declared', async () => {
    for (const access of ['session', { roles: ['admin'] }] as RouteAccess[]) {
      expect(await buildError((app) => app.post('/media/x', { config: { access } }, ok), { sessions: false })).toBe(
        `Route POST /media/x declares ${JSON.stringify(access)}, but no session is read outside the API: use 'public' or 'signed'`,
      );
    }
    expect(await buildError((app) => app.get('/media/y', { config: { access: 'signed' } }, ok), { sessions: false })).toBe('built');
    expect(await buildError((app) => app.get('/media/z', { config: { access: 'public' } }, ok), { sessions: false })).toBe('built');
  });
});

describe('route access on each request', () => {
  async function statuses(access: RouteAccess | 'group-admin' | 'group-admin-own-public') {
    const app = appWithUsers();
    if (access === 'group-admin' || access === 'group-admin-own-public') {
      await app.register(async (group) => {
        declareGroupAccess(group, { roles: ['admin'] });
        group.get('/x', access === 'group-admin' ? {} : { config: { access: 'public' } }, ok);
      });
    } else {
      app.get('/x', { config: { access } }, ok);
    }
    await app.ready();
    const out: Record<string, string> = {};
    for (const who of ['guest', 'user', 'performer', 'admin']) {
      const res = await app.inject({ url: '/x', headers: who === 'guest' ? {} : { 'x-role': who } });
      out[who] = res.statusCode === 200 ? '200' : `${res.statusCode} ${res.json().code}`;
    }
    return out;
  }

  it.each([
    ['public', 'public', { guest: '200', user: '200', performer: '200', admin: '200' }],
    ['signed (the handler checks the signature)', 'signed', { guest: '200', user: '200', performer: '200', admin: '200' }],
    ['session', 'session', { guest: '401 UNAUTHORIZED', user: '200', performer: '200', admin: '200' }],
    ['performers', { roles: ['performer'] }, { guest: '401 UNAUTHORIZED', user: '403 FORBIDDEN', performer: '200', admin: '403 FORBIDDEN' }],
    ['performers and admins', { roles: ['performer', 'admin'] }, { guest: '401 UNAUTHORIZED', user: '403 FORBIDDEN', performer: '200', admin: '200' }],
    ['a group of admins', 'group-admin', { guest: '401 UNAUTHORIZED', user: '403 FORBIDDEN', performer: '403 FORBIDDEN', admin: '200' }],
    ['a public route in a group of admins', 'group-admin-own-public', { guest: '200', user: '200', performer: '200', admin: '200' }],
  ] as const)('%s', async (_name, access, expected) => {
    expect(await statuses(access as RouteAccess)).toEqual(expected);
  });

  it('tells a guest to log in and a wrong role that it is not allowed, as { message, code }', async () => {
    const app = appWithUsers();
    app.get('/x', { config: { access: { roles: ['admin'] } } }, ok);
    await app.ready();
    expect((await app.inject({ url: '/x' })).json()).toEqual({ message: 'Please log in to continue', code: 'UNAUTHORIZED' });
    expect((await app.inject({ url: '/x', headers: { 'x-role': 'user' } })).json()).toEqual({ message: 'You are not allowed to do this', code: 'FORBIDDEN' });
  });

  it('answers an unknown URL with a 404, not a refusal', async () => {
    const app = appWithUsers();
    app.get('/x', { config: { access: 'session' } }, ok);
    await app.ready();
    const res = await app.inject({ url: '/nowhere' });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('NOT_FOUND');
  });

  it('refuses a route that slipped past the declaration check (registered before it was installed): deny by default', async () => {
    const app = Fastify();
    apps.push(app);
    app.get('/early', ok);
    installErrorHandler(app, { jsonNotFound: true });
    installAccessControl(app);
    await app.ready();
    const res = await app.inject({ url: '/early', headers: { 'x-role': 'admin' } });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('FORBIDDEN');
  });
});

describe('the route list and the OpenAPI document', () => {
  it('lists every route once per method, without HEAD twins, with its access (a group default included)', async () => {
    const app = appWithUsers();
    app.route({ method: ['GET', 'POST'], url: '/both', config: { access: 'session' }, handler: ok });
    await app.register(async (group) => {
      declareGroupAccess(group, { roles: ['admin'] });
      group.get('/admin/x', ok);
    });
    await app.ready();
    expect(registeredRoutes(app).map((r) => `${r.method} ${r.url} ${JSON.stringify(r.access)}`)).toEqual([
      'GET /both "session"',
      'POST /both "session"',
      'GET /admin/x {"roles":["admin"]}',
    ]);
    expect(registeredRoutes(Fastify())).toEqual([]);
  });

  it('documents the access of an operation, and its security: a session required, optional (public) or none (signed)', () => {
    const transform = withAccessSecurity(((args: { schema: object; url: string }) => ({ schema: args.schema, url: args.url })) as never);
    const doc = (access: RouteAccess | undefined) =>
      (transform as unknown as (a: unknown) => { schema: Record<string, unknown> })({ schema: { summary: 's' }, url: '/x', route: { config: access === undefined ? {} : { access } } }).schema;
    // A route of a plugin without access control (static files) may have no config at all.
    const bare = (transform as unknown as (a: unknown) => { schema: Record<string, unknown> })({ schema: { summary: 's' }, url: '/x', route: {} }).schema;
    const session = [{ bearerAuth: [] }, { cookieAuth: [] }];
    // Public answers may depend on who asks, so a session is optional (`{}`); a signed request needs none.
    expect(doc('public')).toEqual({ summary: 's', 'x-access': 'public', security: [{}, ...session] });
    expect(doc('signed')).toEqual({ summary: 's', 'x-access': 'signed', security: [] });
    expect(doc('session')).toEqual({ summary: 's', 'x-access': 'session', security: session });
    expect(doc({ roles: ['admin'] })).toEqual({ summary: 's', 'x-access': { roles: ['admin'] }, security: session });
    // Strict: an `x-access` key present with an undefined value would still be written into the document.
    expect(doc(undefined)).toStrictEqual({ summary: 's' });
    expect(bare).toStrictEqual({ summary: 's' });
  });

  it('lists a route registered outside access control, with no config at all, as declaring nothing', async () => {
    const app = Fastify();
    apps.push(app);
    installRouteRegistry(app);
    app.get('/static', ok);
    await app.ready();
    expect(registeredRoutes(app).map((r) => [r.method, r.url, r.access])).toEqual([['GET', '/static', undefined]]);
  });
});
