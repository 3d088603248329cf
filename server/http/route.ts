import type { FastifySchema } from 'fastify';
import type { RouteAccess } from './access.js';

/** What a route says about itself: who may call it (access.ts) and its OpenAPI schema, with a summary always. */
export interface RouteDeclaration extends FastifySchema {
  access: RouteAccess;
  tags: readonly string[];
  summary: string;
}

/**
 * A route's options from one flat declaration: `route({ access, tags, summary, params, querystring, body, response })`
 * is `{ config: { access }, schema: { tags, summary, params, querystring, body, response } }`, the shape Fastify,
 * the access hook (access.ts) and the OpenAPI transform (openapi.ts) read. Only the nesting is saved: the schema keeps
 * its own types, so the zod type provider still types `request.params`, `request.query` and `request.body`. Other
 * route options (a `limiter` hook, `bodyLimit`) are spread beside it: `{ ...route({ ... }), onRequest: [...] }`.
 */
export function route<D extends RouteDeclaration>({ access, ...schema }: D): { config: { access: RouteAccess }; schema: Omit<D, 'access'> } {
  return { config: { access }, schema };
}
