import type { FastifyRequest } from 'fastify';
import type { ApiApp } from '../http/types.js';
import type { Limit } from '../config.js';
import { requireUser } from '../http/auth.js';
import { parseInput } from '../http/parse-input.js';
import { limiter } from '../http/rate-limit.js';
import { apiErrorSchema, listSchema } from '../../common/schemas/http.js';
import {
  looseReaction, reactedGallerySchema, reactedListQuery, reactedVideoSchema, reactionBody, reactionItemSchema, reactionResultSchema,
  reactionSearchQuery,
} from '../../common/schemas/engagement.js';
import { addReaction, findReactions, listReactedGalleries, listReactedVideos, removeReaction } from './reactions.service.js';
import { route } from '../http/route.js';

/** Reaction changes per user; generous, it only stops scripted floods. */
export const REACTION_LIMIT: Limit = { max: 300, windowSec: 60 };

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema, 429: apiErrorSchema };

/** DELETE takes the reaction in a JSON body or as query parameters (some clients send no body with DELETE). */
function deleteInput(request: FastifyRequest) {
  const merged = { ...(request.query as object), ...((request.body as object | undefined) ?? {}) };
  return parseInput(reactionBody, merged);
}

export async function reactionsRoutes(app: ApiApp): Promise<void> {
  const deps = () => ({ db: app.ctx.db, realtime: app.ctx.realtime, logger: app.ctx.logger });
  const byUser = (request: FastifyRequest) => request.user?.id;
  const tooMany = 'Too many reactions, please slow down';
  // One limit for adding and removing: a flood of either counts against the same budget.
  const perUser = limiter(app, 'reaction', REACTION_LIMIT, byUser, tooMany);

  app.post(
    '/reactions',
    {
      ...route({
        access: 'session',
        tags: ['reactions'],
        summary: 'Like, favourite or add to watch later (idempotent)',
        description:
          'action: like | favourite (or favorite) | watch_later (or watch-later, watchLater); watch_later is for videos and galleries. Adding an existing reaction changes nothing (`changed: false`). `count` is the object\'s likes or favourites after the call.',
        body: reactionBody,
        response: { 200: reactionResultSchema, ...errors },
      }),
      onRequest: [perUser],
    },
    async (request) => addReaction(deps(), requireUser(request), request.body, request.country),
  );

  app.delete(
    '/reactions',
    {
      ...route({
        access: 'session',
        tags: ['reactions'],
        summary: 'Remove a reaction (idempotent); the same fields as POST, as a JSON body or query parameters',
        querystring: looseReaction,
        body: looseReaction.nullish(),
        response: { 200: reactionResultSchema, ...errors },
      }),
      onRequest: [perUser],
    },
    async (request) => {
      const user = requireUser(request);
      return removeReaction(deps(), user, deleteInput(request));
    },
  );

  app.get(
    '/reactions/search',
    route({
      access: 'session',
      tags: ['reactions'],
      summary: "The signed-in user's reactions, filtered by objectType, action and objectIds (what a page already liked)",
      querystring: reactionSearchQuery,
      response: { 200: listSchema(reactionItemSchema), ...errors },
    }),
    async (request, reply) => {
      const user = requireUser(request);
      reply.header('cache-control', 'private, no-store');
      return findReactions(app.ctx.db, user, request.query);
    },
  );

  app.get(
    '/reactions/videos',
    route({
      access: 'session',
      tags: ['reactions'],
      summary: "The signed-in user's favourite (default) or watch-later videos, newest first, with the videos",
      querystring: reactedListQuery,
      response: { 200: listSchema(reactedVideoSchema), ...errors },
    }),
    async (request, reply) => {
      const user = requireUser(request);
      reply.header('cache-control', 'private, no-store');
      return listReactedVideos(app.ctx, user, request.query.action, request.query, request.country);
    },
  );

  app.get(
    '/reactions/galleries',
    route({
      access: 'session',
      tags: ['reactions'],
      summary: "The signed-in user's favourite (default) or watch-later galleries, newest first, with the galleries",
      querystring: reactedListQuery,
      response: { 200: listSchema(reactedGallerySchema), ...errors },
    }),
    async (request, reply) => {
      const user = requireUser(request);
      reply.header('cache-control', 'private, no-store');
      return listReactedGalleries(app.ctx, user, request.query.action, request.query, request.country);
    },
  );
}
