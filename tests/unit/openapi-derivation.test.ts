import Fastify, { type FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openApiOptions, operationIdOf } from '../../server/http/openapi.js';
import { limiter } from '../../server/http/rate-limit.js';
import { apiErrorSchema } from '../../server/http/schemas.js';

/**
 * What server/http/openapi.ts derives for an operation, on a small app with the real swagger options: each rule on a
 * route made to need it, and not on one that does not. tests/api/openapi.test.ts checks the real app's document.
 */

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

type Responses = Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
type Op = { operationId: string; security: unknown; responses: Responses };

async function documentOf(register: (api: FastifyInstance) => void): Promise<Record<string, Record<string, Op>>> {
  const app = Fastify();
  apps.push(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(rateLimit, { global: false });
  await app.register(swagger, openApiOptions({ apiBase: '/api' }));
  await app.register(async (api) => register(api), { prefix: '/api' });
  await app.ready();
  return (app.swagger() as unknown as { paths: Record<string, Record<string, Op>> }).paths;
}

const ok = async () => ({ ok: true });
const okSchema = { 200: z.object({ ok: z.boolean() }) };
const statuses = (op: Op) => Object.keys(op.responses).map(Number);

describe('operationIdOf', () => {
  it('is the method, then each path segment in camelCase, a parameter as By<Name>', () => {
    expect(operationIdOf('GET', '/user/assets/videos/:id')).toBe('getUserAssetsVideosById');
    expect(operationIdOf('PUT', '/admin/content/:type/:id/status')).toBe('putAdminContentByTypeByIdStatus');
    expect(operationIdOf('POST', '/re-captcha/verify')).toBe('postReCaptchaVerify');
    expect(operationIdOf('DELETE', '/reactions')).toBe('deleteReactions');
  });
});

describe('the error answers derived for an operation', () => {
  it('a public GET without input: only the NUL guard 400 and the site gates', async () => {
    const paths = await documentOf((api) => api.get('/plain', { config: { access: 'public' }, schema: { summary: 's', response: okSchema } }, ok));
    const op = paths['/plain']!.get!;
    expect(statuses(op)).toEqual([200, 400, 451, 503]);
    expect(op.responses[400]!.description).toContain('NUL');
    expect(op.responses[400]!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/ApiError' });
    expect(op.operationId).toBe('getPlain');
  });

  it('validation 400, 401 and 403 from roles, 403, 413 and 415 for a state-changing method, 404 for a path parameter', async () => {
    const paths = await documentOf((api) =>
      api.put('/things/:id', { config: { access: { roles: ['admin'] } }, schema: { summary: 's', params: z.object({ id: z.string() }), body: z.object({ a: z.string() }), response: okSchema } }, ok),
    );
    const op = paths['/things/{id}']!.put!;
    expect(statuses(op)).toEqual([200, 400, 401, 403, 404, 413, 415, 451, 503]);
    expect(op.responses[400]!.description).toContain('VALIDATION_FAILED');
    expect(op.responses[415]!.description).toContain('FST_ERR_CTP_INVALID_MEDIA_TYPE');
    expect(op.responses[403]!.description).toContain('only for admin');
    expect(op.responses[403]!.description).toContain('CSRF_REJECTED');
  });

  it('429 where a limiter hook or config.rateLimit guards the route, not elsewhere', async () => {
    const paths = await documentOf((api) => {
      const guard = limiter(api, 'test', { max: 1, windowSec: 60 }, (r) => r.ip);
      api.get('/hooked', { config: { access: 'public' }, preHandler: [guard], schema: { summary: 's', response: okSchema } }, ok);
      api.get('/configured', { config: { access: 'public', rateLimit: { max: 1, timeWindow: 1000 } }, schema: { summary: 's', response: okSchema } }, ok);
      api.get('/free', { config: { access: 'session' }, schema: { summary: 's', response: okSchema } }, ok);
    });
    expect(statuses(paths['/hooked']!.get!)).toContain(429);
    expect(statuses(paths['/configured']!.get!)).toContain(429);
    expect(statuses(paths['/free']!.get!)).toEqual([200, 400, 401, 451, 503]);
  });

  it('no 415 where the route reads a body of any type', async () => {
    const paths = await documentOf((api) => api.post('/hook', { config: { access: 'signed' }, schema: { summary: 's', consumes: ['*/*'], response: okSchema } }, ok));
    expect(statuses(paths['/hook']!.post!)).toEqual([200, 400, 403, 413, 451, 503]);
  });

  it('no site gate on the exempt routes; a route-declared status keeps its own schema and gets a description', async () => {
    const own = z.object({ message: z.string(), code: z.literal('TAKEN') });
    const paths = await documentOf((api) => {
      api.post('/auth/login', { config: { access: 'public' }, schema: { summary: 's', response: { ...okSchema, 409: own, 413: apiErrorSchema } } }, ok);
    });
    const op = paths['/auth/login']!.post!;
    expect(statuses(op)).toEqual([200, 400, 403, 409, 413, 415]);
    expect(op.responses[409]!.description).toContain('CONFLICT');
    // The route's own reason (an upload over its limit) beside Fastify's body limit.
    expect(op.responses[413]!.description).toContain('PAYLOAD_TOO_LARGE');
    expect(op.responses[413]!.description).toContain('FST_ERR_CTP_BODY_TOO_LARGE');
    expect(op.responses[409]!.content!['application/json']!.schema).toMatchObject({ properties: { code: { enum: ['TAKEN'] } } });
    expect(op.responses[413]!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/ApiError' });
  });

  it('nothing derived for a route that describes no answer, and nothing for a hidden one', async () => {
    const paths = await documentOf((api) => {
      api.get('/undescribed', { config: { access: 'session' }, schema: { summary: 's' } }, ok);
      api.get('/hidden', { config: { access: 'public' }, schema: { hide: true } }, ok);
    });
    expect(statuses(paths['/undescribed']!.get!)).toEqual([200]);
    expect(paths['/undescribed']!.get!.operationId).toBe('getUndescribed');
    expect(paths['/hidden']).toBeUndefined();
  });
});
