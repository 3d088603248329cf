import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import { readSessionToken } from '../http/auth.js';
import { openProtectedFile, type Viewer } from '../access/access.service.js';
import { sendStoredObject } from './media.routes.js';
import { mediaSigner, PROTECTED_MEDIA_PREFIX } from './signed-urls.js';
import { sendRefusal, siteGate } from '../http/site-gates.js';

/**
 * `GET /media/protected/<objectType>/<objectId>/<fileId>?u&e&s`: full videos, full photos and digital downloads.
 * Every request (each Range request of a playing video included) is checked: the site gates (country block 451,
 * maintenance 503; admins pass, server/http/site-gates.ts), signature, expiry, that the session (token cookie or
 * Authorization header) is the user the URL was signed for, and the access rules as they are now, the item's
 * performer's own country block included (404, as for a missing item). A URL signed for a guest opens for anyone,
 * with a guest's rights (free items only). Failures answer JSON; success streams with Range support.
 */
export async function protectedMediaRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  const { ctx } = opts;
  const deny = (reply: FastifyReply, code: string, message: string) =>
    reply.status(403).header('cache-control', 'no-store').send({ message, code });

  app.get<{ Params: { objectType: string; objectId: string; fileId: string }; Querystring: Record<string, unknown> }>(
    `${PROTECTED_MEDIA_PREFIX}/:objectType/:objectId/:fileId`,
    // The signed URL is the credential; the grant is re-checked against the database on every request.
    { config: { access: 'signed' }, schema: { hide: true } },
    async (request, reply) => {
      const session = readSessionToken(request);
      const user = session ? await ctx.auth.authenticate(session.token) : null;
      const country = ctx.geo.countryOf(request.ip, request.headers);
      const refusal = await siteGate(ctx, { country, role: user?.role });
      if (refusal) return sendRefusal(reply, refusal);
      const verified = mediaSigner(ctx.config).verify(request.params, request.query);
      if (!verified.ok) {
        return verified.reason === 'expired'
          ? deny(reply, 'MEDIA_URL_EXPIRED', 'This link has expired: reload the page for a new one')
          : deny(reply, 'MEDIA_URL_INVALID', 'This link is not valid');
      }
      const { grant } = verified;
      let viewer: Viewer = null;
      if (grant.userId) {
        if (!user || user.id !== grant.userId) return deny(reply, 'MEDIA_URL_OTHER_USER', 'This link was made for another account');
        viewer = user;
      }
      const check = await openProtectedFile(ctx.db, viewer, grant, country);
      if (!check.ok) return reply.status(check.status).header('cache-control', 'no-store').send({ message: check.message, code: check.code });
      if (check.download) {
        const name = (check.fileName ?? 'download').replace(/["\\\r\n]/g, '_');
        reply.header('content-disposition', `attachment; filename="${name.replace(/[^\x20-\x7e]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`);
      }
      // Private: the bytes depend on who asks, so no shared cache may keep them.
      return sendStoredObject(ctx.storage, check.storageKey, request.headers.range, reply, 'private, no-store');
    },
  );
}
