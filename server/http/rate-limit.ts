import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Limit } from '../config.js';
import { tooMany } from './errors.js';

/**
 * A named fixed-window limiter for a route hook, keyed by what `key` returns (skipped when it returns
 * nothing). Built on @fastify/rate-limit's `createRateLimit`, so it uses the same store as every other
 * limit: Redis when REDIS_URL is set (shared by all instances), else memory. Unlike `app.rateLimit()`,
 * several of these can guard one route (per IP in onRequest, per account in preHandler once the body
 * is parsed). Over the limit: 429 with Retry-After. If the store fails (Redis down), the request passes.
 */
export function limiter(
  app: FastifyInstance,
  name: string,
  limit: Limit,
  key: (request: FastifyRequest) => string | undefined | null,
  message = 'Too many requests, please try again later',
) {
  const check = sharedCheck(app, name, limit);
  const hook = async (request: FastifyRequest): Promise<void> => {
    const value = key(request);
    if (!value) return;
    // Hooks of one request run one after another, so this slot is read by this check's keyGenerator only.
    (request as RequestWithKey)[limiterKey] = `${name}:${value}`;
    const result = await check(request);
    if (!result.isAllowed && result.isExceeded) throw tooMany(message, Math.max(1, result.ttlInSeconds ?? 1));
  };
  // Marked so the OpenAPI document can tell which routes may answer 429 (server/http/openapi.ts).
  return Object.assign(hook, { [RATE_LIMITED]: true as const });
}

const RATE_LIMITED = Symbol('rateLimited');

/** Whether a route hook is one of `limiter`'s. */
export function isLimiter(hook: unknown): boolean {
  return typeof hook === 'function' && (hook as { [RATE_LIMITED]?: true })[RATE_LIMITED] === true;
}

const limiterKey = Symbol('limiterKey');
type RequestWithKey = FastifyRequest & { [limiterKey]?: string };
type Check = (request: FastifyRequest) => Promise<{ isAllowed: boolean; isExceeded?: boolean; ttlInSeconds?: number }>;
const checks = new WeakMap<object, Map<string, Check>>();

/**
 * One counter per limiter name and limit: routes that use the same name share one budget, e.g.
 * 'email-account' on both forgot-password and resend-verification. @fastify/rate-limit gives every
 * `createRateLimit()` its own in-memory store, so without this cache each route would count apart in
 * memory while sharing counters in Redis. Cached per `createRateLimit` decorator, which is the same
 * function in every encapsulated child of the app that registered the rate-limit plugin.
 */
function sharedCheck(app: FastifyInstance, name: string, limit: Limit): Check {
  let byName = checks.get(app.createRateLimit);
  if (!byName) checks.set(app.createRateLimit, (byName = new Map()));
  const id = `${name}|${limit.max}/${limit.windowSec}`;
  let check = byName.get(id);
  if (!check) {
    check = app.createRateLimit({
      max: limit.max,
      timeWindow: limit.windowSec * 1000,
      skipOnError: true,
      keyGenerator: (request: FastifyRequest) => (request as RequestWithKey)[limiterKey] ?? `${name}:`,
    }) as Check;
    byName.set(id, check);
  }
  return check;
}

/** The client IP as rate limits see it (proxy headers only when TRUST_PROXY is set). */
export const byIp = (request: FastifyRequest) => request.ip;

/** A normalised account identifier (email or username) read from a JSON body field. */
export const byBodyField = (field: string) => (request: FastifyRequest) => {
  const value = (request.body as Record<string, unknown> | undefined)?.[field];
  return typeof value === 'string' && value.trim() ? value.trim().toLowerCase() : undefined;
};
