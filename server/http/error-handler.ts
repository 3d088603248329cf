import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { AppError, isUniqueViolation } from './errors.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';

/** One place turns every failure into `{ message, code, details? }`; 5xx internals never leave the server. */
/**
 * `jsonNotFound: false` leaves unmatched routes to a later handler (the root app hands them to Astro;
 * the API plugin answers them with JSON).
 */
export function installErrorHandler(app: FastifyInstance, opts: { jsonNotFound?: boolean } = {}): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(err)) {
      const details = err.validation.map((v) => ({
        path: `${err.validationContext ?? ''}${v.instancePath}`.replace(/\//g, '.'),
        message: v.message,
      }));
      const first = details[0];
      return reply.status(400).send({
        message: first ? `Invalid ${first.path || 'input'}: ${first.message}` : 'Invalid input',
        code: 'VALIDATION_FAILED',
        details,
      });
    }
    if (err instanceof AppError) {
      if (err.statusCode === 429 && (err.details as { retryAfter?: number })?.retryAfter) {
        reply.header('retry-after', String((err.details as { retryAfter: number }).retryAfter));
      }
      return reply.status(err.statusCode).send({ message: err.message, code: err.code, ...(err.details !== undefined ? { details: err.details } : {}) });
    }
    if (isUniqueViolation(err)) {
      return reply.status(409).send({ message: 'This already exists', code: 'CONFLICT' });
    }
    if (isResponseSerializationError(err)) {
      request.log.error({ err, cause: err.cause }, 'response did not match its schema');
      return reply.status(500).send({ message: 'Internal server error', code: 'INTERNAL' });
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Fastify's own client errors: bad JSON, body too large, unsupported media type, rate limit...
      return reply.status(status).send({ message: err.message, code: err.code ?? 'BAD_REQUEST' });
    }
    if (isDatabaseUnavailable(err)) {
      // The database is down or restarting: say so (the pool reconnects by itself once it is back).
      request.log.warn({ err: err.message }, 'database unavailable');
      reply.header('retry-after', '5');
      return reply.status(503).send({ message: 'Service temporarily unavailable, please retry', code: 'UNAVAILABLE' });
    }
    request.log.error({ err }, 'unhandled error');
    return reply.status(500).send({ message: 'Internal server error', code: 'INTERNAL' });
  });

  if (opts.jsonNotFound === false) return;
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send({ message: `Route ${request.method} ${request.url.split('?')[0]} not found`, code: 'NOT_FOUND' });
  });
}
