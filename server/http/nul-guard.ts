import type { FastifyInstance } from 'fastify';
import { badRequest } from './errors.js';

function hasNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 20 || value === null || typeof value !== 'object') return false;
  if (Buffer.isBuffer(value)) return false;
  for (const v of Object.values(value as Record<string, unknown>)) if (hasNul(v, depth + 1)) return true;
  return false;
}

/**
 * PostgreSQL refuses NUL characters in text (SQLite stores them), so a NUL anywhere in a JSON body, query or
 * path would turn into a 500 on one engine: refuse it up front, the same on both, with a clear 400.
 */
export function installNulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (hasNul(request.query) || hasNul(request.params) || (!String(request.headers['content-type'] ?? '').startsWith('multipart/') && hasNul(request.body))) {
      throw badRequest('Text must not contain NUL characters');
    }
  });
}
