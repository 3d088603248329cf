import type { FastifyInstance } from 'fastify';
import { safeNextPath } from '../../common/next-path.js';
import { sessionCookieOptions } from './auth.js';
import { AGE_COOKIE, AGE_COOKIE_MAX_AGE_SEC } from './age-gate.js';

/**
 * `POST /age-gate`: the age confirmation's "I am 18 or older", a plain HTML form (it works without JavaScript). It
 * sets the `age_ok` cookie for a year and sends the visitor back to `next` (a path of this site, common/next-path.ts;
 * anything else: the home page) with a 303, so reloading does not post again. Outside the API: a browser form sends
 * urlencoded bodies, which only this route parses. Nothing is stored; the cookie is the visitor's own word.
 */
export async function ageGateRoute(app: FastifyInstance): Promise<void> {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
  const publicUrl = app.ctx.config.publicUrl;
  app.post('/age-gate', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const next = safeNextPath((request.body as Record<string, unknown> | undefined)?.next) ?? '/';
    reply.setCookie(AGE_COOKIE, '1', { ...sessionCookieOptions(publicUrl, request.protocol === 'https'), maxAge: AGE_COOKIE_MAX_AGE_SEC });
    return reply.code(303).header('cache-control', 'no-store').header('location', next).send();
  });
}
