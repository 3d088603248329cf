import type { FastifyInstance } from 'fastify';
import path from 'node:path';
import type { Storage } from './storage.js';

const mimeByExt: Record<string, string> = {
  '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.png': 'image/png', '.webp': 'image/webp', '.gif': 'image/gif',
  '.svg': 'image/svg+xml', '.mp4': 'video/mp4', '.webm': 'video/webm', '.pdf': 'application/pdf', '.zip': 'application/zip',
};

/** Parses a single `bytes=a-b` range; multi-range requests get the whole file, as most servers do. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'invalid' | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '' && m[2] === '') return 'invalid';
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start > end || start >= size) return 'invalid';
  return { start, end };
}

/** Sends a stored object with Range support (video seeking). */
export async function sendStoredObject(
  storage: Storage,
  key: string,
  rangeHeader: string | undefined,
  reply: import('fastify').FastifyReply,
  cacheControl: string,
) {
  const stat = await storage.stat(key);
  if (!stat) return reply.status(404).send({ message: 'File not found', code: 'NOT_FOUND' });
  const type = mimeByExt[path.extname(key).toLowerCase()] ?? 'application/octet-stream';
  reply.header('accept-ranges', 'bytes').header('content-type', type).header('cache-control', cacheControl);
  reply.header('x-content-type-options', 'nosniff');
  const range = parseRange(rangeHeader, stat.size);
  if (range === 'invalid') {
    // The JSON error must not go out under the file's content type (Fastify refuses an object body for video/mp4: a 500).
    return reply
      .status(416)
      .header('content-type', 'application/json; charset=utf-8')
      .header('content-range', `bytes */${stat.size}`)
      .send({ message: 'Range not satisfiable', code: 'RANGE' });
  }
  if (range) {
    reply.status(206).header('content-range', `bytes ${range.start}-${range.end}/${stat.size}`).header('content-length', range.end - range.start + 1);
    return reply.send(storage.read(key, range));
  }
  reply.header('content-length', stat.size);
  return reply.send(storage.read(key));
}

/**
 * Public media (avatars, covers, thumbnails, banners): anyone may read `public/` keys. Every public file is stored
 * under a new random name and a name is never written twice (a new avatar, a re-encoded teaser: new key, old one
 * deleted), so browsers and CDNs may keep each for a year without asking again.
 */
export const PUBLIC_MEDIA_CACHE = 'public, max-age=31536000, immutable';

export async function publicMediaRoutes(app: FastifyInstance, opts: { storage: Storage }): Promise<void> {
  // Files, outside the API base the OpenAPI document's server names: left out of it, like protected media and /health.
  app.get<{ Params: { '*': string } }>('/media/public/*', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const rest = request.params['*'];
    if (!rest || rest.includes('..') || rest.includes('\0')) return reply.status(404).send({ message: 'File not found', code: 'NOT_FOUND' });
    return sendStoredObject(opts.storage, `public/${rest}`, request.headers.range, reply, PUBLIC_MEDIA_CACHE);
  });
}
