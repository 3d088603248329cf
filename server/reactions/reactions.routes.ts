import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import type { ApiApp } from '../http/types.js';
import type { Limit } from '../config.js';
import { requireUser } from '../http/auth.js';
import { AppError } from '../http/errors.js';
import { limiter } from '../http/rate-limit.js';
import { apiErrorSchema, listSchema, pageQuery } from '../../common/schemas/http.js';
import { objectIdField, objectTypeField } from '../comments/comments.schemas.js';
import { videoItemSchema, galleryItemSchema } from '../../common/schemas/catalogue.js';
import { REACTION_ACTIONS } from '../../common/api-types.js';
import { addReaction, findReactions, listReactedGalleries, listReactedVideos, removeReaction } from './reactions.service.js';

/** Reaction changes per user; generous, it only stops scripted floods. */
export const REACTION_LIMIT: Limit = { max: 300, windowSec: 60 };

/** Accepted spellings (common/api-types.ts ReactionAction); answers always use like, favourite, watch_later. */
const actionAliases: Record<string, string> = {
  favorite: 'favourite',
  'watch-later': 'watch_later',
  watchlater: 'watch_later',
  watchLater: 'watch_later',
};

export const actionField = z.preprocess(
  (v) => (typeof v === 'string' ? (actionAliases[v.trim()] ?? v.trim()) : v),
  z.enum(REACTION_ACTIONS as ['like', 'favourite', 'watch_later'], { error: 'action must be like, favourite or watch_later' }),
);

export const reactionBody = z.object({ objectType: objectTypeField, objectId: objectIdField, action: actionField });
const looseReaction = z.object({ objectType: z.string().optional(), objectId: z.string().optional(), action: z.string().optional() });

const objectIdsField = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean))
  .pipe(z.array(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'Invalid object id')).max(100, 'At most 100 objectIds'));

export const reactionSearchQuery = pageQuery.omit({ cursor: true }).extend({
  objectType: objectTypeField.optional(),
  action: actionField.optional(),
  /** Comma-separated, or the parameter repeated. */
  objectIds: objectIdsField.optional(),
});

const listActionQuery = pageQuery.omit({ cursor: true }).extend({
  action: z.preprocess(
    (v) => (typeof v === 'string' ? (actionAliases[v.trim()] ?? v.trim()) : v),
    z.enum(['favourite', 'watch_later'], { error: 'action must be favourite or watch_later' }),
  ).default('favourite'),
});

const reactionResultSchema = z.object({
  objectType: objectTypeField,
  objectId: z.string(),
  action: z.enum(['like', 'favourite', 'watch_later']),
  reacted: z.boolean(),
  changed: z.boolean(),
  count: z.number().int().nullable(),
});
const reactionItemSchema = z.object({
  _id: z.string(),
  objectType: objectTypeField,
  objectId: z.string(),
  action: z.enum(['like', 'favourite', 'watch_later']),
  createdAt: z.string(),
});
const reactedBase = { _id: z.string(), action: z.enum(['like', 'favourite', 'watch_later']), createdAt: z.string(), objectId: z.string() };

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema, 429: apiErrorSchema };

/** DELETE takes the reaction in a JSON body or as query parameters (some clients send no body with DELETE). */
function deleteInput(request: FastifyRequest) {
  const merged = { ...(request.query as object), ...((request.body as object | undefined) ?? {}) };
  const parsed = reactionBody.safeParse(merged);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.map((i) => ({ path: `body.${i.path.join('.')}`, message: i.message }));
  throw new AppError(400, 'VALIDATION_FAILED', `Invalid ${details[0]!.path}: ${details[0]!.message}`, details);
}

export async function reactionsRoutes(app: ApiApp): Promise<void> {
  const deps = () => ({ db: app.ctx.db, realtime: app.ctx.realtime, logger: app.ctx.logger });
  const byUser = (request: FastifyRequest) => request.user?.id;
  const tooMany = 'Too many reactions, please slow down';

  app.post(
    '/reactions',
    {
      config: { access: 'session' },
      onRequest: [limiter(app, 'reaction', REACTION_LIMIT, byUser, tooMany)],
      schema: {
        tags: ['reactions'],
        summary: 'Like, favourite or add to watch later (idempotent)',
        description:
          'action: like | favourite (or favorite) | watch_later (or watch-later, watchLater); watch_later is for videos and galleries. Adding an existing reaction changes nothing (`changed: false`). `count` is the object\'s likes or favourites after the call.',
        body: reactionBody,
        response: { 200: reactionResultSchema, ...errors },
      },
    },
    async (request) => addReaction(deps(), requireUser(request), request.body, request.country),
  );

  app.delete(
    '/reactions',
    {
      config: { access: 'session' },
      onRequest: [limiter(app, 'reaction', REACTION_LIMIT, byUser, tooMany)],
      schema: {
        tags: ['reactions'],
        summary: 'Remove a reaction (idempotent); the same fields as POST, as a JSON body or query parameters',
        querystring: looseReaction,
        body: looseReaction.nullish(),
        response: { 200: reactionResultSchema, ...errors },
      },
    },
    async (request) => {
      const user = requireUser(request);
      return removeReaction(deps(), user, deleteInput(request));
    },
  );

  app.get(
    '/reactions/search',
    {
      config: { access: 'session' },
      schema: {
        tags: ['reactions'],
        summary: "The signed-in user's reactions, filtered by objectType, action and objectIds (what a page already liked)",
        querystring: reactionSearchQuery,
        response: { 200: listSchema(reactionItemSchema), ...errors },
      },
    },
    async (request, reply) => {
      const user = requireUser(request);
      reply.header('cache-control', 'private, no-store');
      return findReactions(app.ctx.db, user, request.query);
    },
  );

  app.get(
    '/reactions/videos',
    {
      config: { access: 'session' },
      schema: {
        tags: ['reactions'],
        summary: "The signed-in user's favourite (default) or watch-later videos, newest first, with the videos",
        querystring: listActionQuery,
        response: { 200: listSchema(z.object({ ...reactedBase, video: videoItemSchema })), ...errors },
      },
    },
    async (request, reply) => {
      const user = requireUser(request);
      reply.header('cache-control', 'private, no-store');
      return listReactedVideos(app.ctx, user, request.query.action, request.query, request.country);
    },
  );

  app.get(
    '/reactions/galleries',
    {
      config: { access: 'session' },
      schema: {
        tags: ['reactions'],
        summary: "The signed-in user's favourite (default) or watch-later galleries, newest first, with the galleries",
        querystring: listActionQuery,
        response: { 200: listSchema(z.object({ ...reactedBase, gallery: galleryItemSchema })), ...errors },
      },
    },
    async (request, reply) => {
      const user = requireUser(request);
      reply.header('cache-control', 'private, no-store');
      return listReactedGalleries(app.ctx, user, request.query.action, request.query, request.country);
    },
  );
}
