import type { FastifyRequest } from 'fastify';
import type { ApiApp } from '../http/types.js';
import type { Limit } from '../config.js';
import { requireUser } from '../http/auth.js';
import { decodeCursor } from '../http/pagination.js';
import { limiter } from '../http/rate-limit.js';
import { route } from '../http/route.js';
import { catalogueDeps } from '../catalogue/catalogue.service.js';
import { apiErrorSchema, listSchema } from '../../common/schemas/http.js';
import { feedPageSchema, feedQuery, followedPerformerSchema, followingQuery, followStateSchema, performerKeyParams } from '../../common/schemas/feed.js';
import { followPerformer, listFollowing, unfollowPerformer } from './follows.service.js';
import { feedOf } from './feed.service.js';

/** Follow changes per user; generous, it only stops scripted floods. */
export const FOLLOW_LIMIT: Limit = { max: 120, windowSec: 60 };

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema, 429: apiErrorSchema };

/** Follows and the feed (docs/product.md, Follows and the feed). */
export async function followsRoutes(app: ApiApp): Promise<void> {
  const perUser = limiter(app, 'follow', FOLLOW_LIMIT, (request: FastifyRequest) => request.user?.id, 'Too many follows, please slow down');

  // Follow and unfollow answer the same state for the same key; only the change differs.
  const followRoute = (summary: string) => ({
    ...route({ access: 'session', tags: ['follows'], summary, params: performerKeyParams, response: { 200: followStateSchema, ...errors } }),
    onRequest: [perUser],
  });
  app.post(
    '/performers/:id/follow',
    followRoute('Follow a performer (by id or username) for free; idempotent. 400 CANNOT_FOLLOW_SELF for oneself, 404 for anyone who is not a public performer'),
    async (request) => followPerformer(app.ctx.db, requireUser(request), request.params.id, request.country),
  );
  app.delete(
    '/performers/:id/follow',
    followRoute('Stop following a performer; idempotent'),
    async (request) => unfollowPerformer(app.ctx.db, requireUser(request), request.params.id, request.country),
  );

  app.get(
    '/following',
    route({
      access: 'session',
      tags: ['follows'],
      summary: 'The performers the signed-in user follows, newest follow first (keyset paged by cursor)',
      querystring: followingQuery,
      response: { 200: listSchema(followedPerformerSchema), ...errors },
    }),
    async (request) => listFollowing(app.ctx.db, requireUser(request), request.country, { limit: request.query.limit, cursor: decodeCursor(request.query.cursor) }),
  );

  app.get(
    '/feed',
    route({
      access: 'session',
      tags: ['follows'],
      summary: "The signed-in user's feed: public posts, videos and galleries of the performers they follow or subscribe to, newest first (keyset paged by cursor), each locked or open as in the catalogue",
      querystring: feedQuery,
      response: { 200: feedPageSchema, ...errors },
    }),
    async (request) => feedOf(catalogueDeps(app.ctx, request.country), requireUser(request), { limit: request.query.limit, cursor: decodeCursor(request.query.cursor) }),
  );
}
