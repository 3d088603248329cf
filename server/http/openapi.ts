import { STATUS_CODES } from 'node:http';
import type { FastifySchema, RouteOptions } from 'fastify';
import type { FastifyDynamicSwaggerOptions, SwaggerTransform } from '@fastify/swagger';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { securitySchemes, withAccessSecurity } from './access.js';
import { UNSAFE_METHODS } from './auth.js';
import { isLimiter } from './rate-limit.js';
import { apiErrorSchema } from './schemas.js';
import { API_GATE_EXEMPT } from './site-gates.js';

/**
 * The OpenAPI document at `<API_BASE>/docs/openapi.json`, in one place: what every operation says beyond its own
 * zod schemas is derived here from what its route declares (access, schemas, hooks) and from the hooks every API
 * route runs, so a new route is documented like the others without anyone remembering to:
 *  - `operationId`: from the method and the path (`GET /user/assets/videos/:id` → `getUserAssetsVideosById`), so it
 *    stays the same as long as the route does; a route may set its own in `schema.operationId`;
 *  - `security` and `x-access`: from `config.access` (server/http/access.ts withAccessSecurity);
 *  - the error answers, all with the one error body `{ message, code, details? }` (components.schemas.ApiError).
 * A route still declares, in `response`, the errors only its handler knows about (409 for a duplicate, 413 for an
 * upload, 403 from an ownership check on a GET...); those get the same body and descriptions here.
 */

/** The document's one error body (`apiErrorSchema`, under components.schemas), referenced by every error answer. */
const ERROR_REF = { $ref: '#/components/schemas/ApiError' } as const;

export function openApiOptions(opts: { apiBase: string }): FastifyDynamicSwaggerOptions {
  const { $schema: _drop, ...apiError } = z.toJSONSchema(apiErrorSchema, { target: 'openapi-3.0', io: 'output' }) as Record<string, unknown>;
  return {
    openapi: {
      info: {
        title: 'Fanstage API',
        version: '1.0.0',
        description:
          'The JSON API of the site. Conventions (errors, lists, ids, money, time) are in docs/architecture.md, "API conventions". ' +
          'A session is the token from POST /auth/login, sent as `Authorization: Bearer <token>` or in the `token` cookie; ' +
          'with the cookie, a request that changes something must come from the site itself (Origin), else 403 CSRF_REJECTED.',
        // The package is private and names no licence: say so rather than invent one.
        license: { name: 'UNLICENSED (private; no licence is granted)' },
      },
      servers: [{ url: opts.apiBase, description: "This site's API base (API_BASE)" }],
      components: {
        securitySchemes,
        schemas: { ApiError: { ...apiError, description: 'Every error answer: a readable `message`, a stable `code`, sometimes `details`' } },
      },
    },
    transform: openApiTransform(opts),
  };
}

/** Wraps the zod transform (fastify-type-provider-zod) with what is derived for every operation. */
export function openApiTransform(opts: { apiBase: string }): SwaggerTransform {
  return withAccessSecurity((args) => {
    const result = jsonSchemaTransform(args as Parameters<typeof jsonSchemaTransform>[0]);
    const own = (args.schema ?? {}) as FastifySchema & { hide?: boolean; operationId?: string; response?: Record<string, unknown> };
    if (own.hide || (result.schema as { hide?: boolean } | undefined)?.hide) return result;
    const path = args.url.startsWith(`${opts.apiBase}/`) ? args.url.slice(opts.apiBase.length) : args.url;
    const schema: Record<string, unknown> = { ...(result.schema ?? {}), operationId: own.operationId ?? operationIdOf([args.route.method].flat()[0]!, path) };
    // A route that declares no answers gets no errors derived either: the document then shows it without a 4xx, which
    // the OpenAPI test refuses, rather than errors beside an undescribed success.
    if (!own.response) return { ...result, schema };
    const response: Record<string, unknown> = { ...(schema.response as Record<string, unknown>) };
    const derived = errorAnswers(args.route, own, opts.apiBase);
    const declared = own.response;
    const statuses = new Set([...derived.keys(), ...Object.keys(declared).map(Number).filter((s) => s >= 400)]);
    for (const status of [...statuses].sort((a, b) => a - b)) {
      const mine = declared[status];
      const description = describe(status, mine !== undefined, derived.get(status) ?? []);
      // The shared error body is referenced, not repeated; a route's own error schema keeps its JSON, with a description.
      const body = mine === undefined || mine === apiErrorSchema ? ERROR_REF : response[status];
      response[status] = { description, content: { 'application/json': { schema: body } } };
    }
    return { ...result, schema: { ...schema, response } };
  });
}

/**
 * `GET /user/assets/videos/:id` → `getUserAssetsVideosById`: the method, then each path segment in camelCase, a
 * parameter as `By<Name>`. Path segments are lowercase words joined by `-`, so no literal segment spells `By…`. A route
 * registered for several methods would share one id (the OpenAPI test refuses duplicates): register one per method.
 */
export function operationIdOf(method: string, path: string): string {
  const words = [method.toLowerCase()];
  for (const segment of path.split('/').filter(Boolean)) {
    const param = /^:(\w+)/.exec(segment);
    if (param) words.push('By', capitalise(param[1]!));
    else if (segment === '*') words.push('Rest');
    else words.push(...segment.split(/[^A-Za-z0-9]+/).filter(Boolean).map(capitalise));
  }
  return words.join('');
}

const capitalise = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** What a status a route declares itself means: its handler's own reasons, beside the derived ones. */
const DECLARED: Record<number, string> = {
  400: 'the handler refuses the input (`BAD_REQUEST` or a more specific code)',
  401: '`UNAUTHORIZED`: no valid session',
  403: '`FORBIDDEN`: the caller may not do this',
  404: '`NOT_FOUND`: nothing with this id (or not visible to the caller)',
  409: '`CONFLICT`: the change clashes with what exists (a duplicate, or a state that does not allow it)',
  413: '`PAYLOAD_TOO_LARGE`: a file or the body is over its limit',
  429: '`RATE_LIMITED`: too many requests; retry after `Retry-After` seconds',
};

/** Statuses whose derived reason is all a route could mean by declaring them too. */
const SAME_MEANING = new Set([401, 404, 429]);

/**
 * A response's description: the derived reasons, and, where the route declares the status itself, its handler's:
 * a declared 400, 403 or 413 adds the handler's own checks (an image it cannot read, someone else's record, a file
 * over its limit) to the ones every route gets.
 */
function describe(status: number, declared: boolean, derived: readonly string[]): string {
  const own = DECLARED[status] ?? STATUS_CODES[status] ?? 'Error';
  const reasons = declared && (derived.length === 0 || !SAME_MEANING.has(status)) ? [own, ...derived] : derived;
  return reasons.join('; ');
}

/**
 * The error answers of one route, with why, derived from its declaration and from what runs before every handler of
 * the API (server/app.ts: the auth hook, the site gates, access control, the NUL guard, validation):
 *  400 every API route: a NUL character anywhere in the input (nul-guard.ts), and VALIDATION_FAILED where the route
 *      validates params, query, headers or a body;
 *  401 a session is needed (`session` or roles);
 *  403 roles (another role), or a state-changing method (a cookie session from another site: CSRF_REJECTED);
 *  404 a path parameter names something that may not exist;
 *  413 and 415 a state-changing method (Fastify's body parsers: too large, or a type no parser reads);
 *  429 a rate limit: `config.rateLimit` (@fastify/rate-limit) or a `limiter` hook (rate-limit.ts);
 *  451 and 503 the site gates (site-gates.ts), on every API route but the exempt ones.
 */
export function errorAnswers(route: RouteOptions, schema: FastifySchema, apiBase: string): Map<number, string[]> {
  const answers = new Map<number, string[]>();
  const url = route.url;
  const inApi = url.startsWith(`${apiBase}/`);
  const methods = [route.method].flat();
  const access = route.config?.access;
  const needsSession = access === 'session' || typeof access === 'object';
  const add = (status: number, why: string) => answers.set(status, [...(answers.get(status) ?? []), why]);

  if (schema.params || schema.querystring || schema.headers || schema.body) {
    add(400, '`VALIDATION_FAILED`: the input does not match the schema (`details`: one `{ path, message }` per problem)');
  }
  if (inApi) add(400, '`BAD_REQUEST`: a NUL character in the input');
  if (needsSession) add(401, '`UNAUTHORIZED`: no valid session');
  if (typeof access === 'object') add(403, `\`FORBIDDEN\`: only for ${access.roles.join(', ')}`);
  if (inApi && methods.some((m) => UNSAFE_METHODS.has(m))) add(403, '`CSRF_REJECTED`: a cookie session on a request from another site');
  // Fastify's body parsers answer before any handler, on every state-changing method: a body over the size limit, and
  // one of a type no parser reads (JSON and text everywhere, multipart on uploads), unless the route says it takes
  // any type (`schema.consumes: ['*/*']`: the payment webhooks keep the raw bytes).
  if (inApi && methods.some((m) => UNSAFE_METHODS.has(m))) {
    add(413, '`FST_ERR_CTP_BODY_TOO_LARGE`: a body over the size limit');
    if (!(schema as { consumes?: string[] }).consumes?.includes('*/*')) add(415, '`FST_ERR_CTP_INVALID_MEDIA_TYPE`: a body of a type the route does not read');
  }
  if (/\/:\w/.test(url)) add(404, '`NOT_FOUND`: nothing with this id (or not visible to the caller)');
  if (isRateLimited(route)) add(429, '`RATE_LIMITED`: too many requests; retry after `Retry-After` seconds');
  if (inApi && methods.some((m) => !API_GATE_EXEMPT.has(`${m} ${url.slice(apiBase.length)}`))) {
    add(451, "`COUNTRY_BLOCKED`: the site is not available in the visitor's country");
    add(503, '`MAINTENANCE`: the site is down for maintenance; retry after `Retry-After` seconds');
  }
  return answers;
}

function isRateLimited(route: RouteOptions): boolean {
  if (route.config && 'rateLimit' in route.config && route.config.rateLimit) return true;
  const hooks = [route.onRequest, route.preParsing, route.preValidation, route.preHandler].flat().filter(Boolean);
  return hooks.some(isLimiter);
}
