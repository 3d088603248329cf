import type { ApiApp } from '../http/types.js';
import { byIp, limiter } from '../http/rate-limit.js';
import { route } from '../http/route.js';
import type { Limit } from '../config.js';
import { apiErrorSchema } from '../../common/schemas/http.js';
import { createTakedownBody, takedownReceiptSchema } from '../../common/schemas/takedowns.js';
import { fileTakedown, type TakedownDeps } from './takedowns.service.js';

/**
 * Requests from anyone hide content at once, so a flood is the attack: a few per address (shared by every instance
 * through the limiter's store) and the captcha when the site has one.
 */
export const TAKEDOWN_LIMIT: Limit = { max: 5, windowSec: 3600 };

const errors = { 400: apiErrorSchema, 429: apiErrorSchema };

export function takedownDeps(app: ApiApp): TakedownDeps {
  const { ctx } = app;
  return { db: ctx.db, mailer: ctx.mailer, site: async () => ({ siteName: await ctx.settings.get('siteName'), publicUrl: ctx.config.publicUrl }) };
}

/** The public takedown form's endpoint (docs/product.md, Takedown requests); the console's queue is takedowns.admin.routes.ts. */
export async function takedownsRoutes(app: ApiApp): Promise<void> {
  const perIp = limiter(app, 'takedown', TAKEDOWN_LIMIT, byIp, 'Too many takedown requests from your address, please try again later');
  const deps = takedownDeps(app);
  app.post(
    '/takedowns',
    {
      ...route({
        access: 'public',
        tags: ['takedowns'],
        summary:
          'Ask for content of this site to be removed (no account): the item the address names is hidden at once and an admin reviews the request; the requester is mailed a reference. 400 UNKNOWN_ITEM for an address that names no item of this site; captcha when enabled; 5 per address an hour',
        body: createTakedownBody,
        response: { 201: takedownReceiptSchema, ...errors },
      }),
      onRequest: [perIp],
    },
    async (request, reply) => {
      const { captchaToken, ...body } = request.body;
      await app.ctx.captcha.require(captchaToken, request.ip);
      const receipt = await fileTakedown(deps, body, { ip: request.ip, ownHosts: [new URL(app.ctx.config.publicUrl).host, request.host].filter(Boolean) });
      return reply.code(201).send(receipt);
    },
  );
}
