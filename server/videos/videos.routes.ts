import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import { requireRole } from '../http/auth.js';
import { decodeCursor, listSchema } from '../http/pagination.js';
import { catalogueDeps } from '../catalogue/catalogue.service.js';
import {
  accessSchema, contentListQuery, contentStatusSchema, idParams, performerSummarySchema, processingStatusSchema, signedMediaSchema, statsSchema,
} from '../catalogue/catalogue.schemas.js';
import { getOwnVideo, getVideo, searchVideos } from './videos.service.js';
import { recordVideoView } from './views.service.js';
import { byIp, limiter } from '../http/rate-limit.js';
import { apiErrorSchema } from '../http/schemas.js';
import type { Limit } from '../config.js';

/** Plays reported per IP: a person opens a few videos a minute at most; this only stops scripted inflation. */
export const VIEW_LIMIT: Limit = { max: 30, windowSec: 60 };

export const videoItemSchema = z.object({
  _id: z.string(),
  slug: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  performerId: z.string(),
  performer: performerSummarySchema.nullable(),
  access: accessSchema,
  isSale: z.boolean(),
  price: z.number().int(),
  locked: z.boolean(),
  thumbnail: z.string().nullable(),
  poster: z.string().nullable(),
  teaser: z.string().nullable(),
  video: signedMediaSchema.nullable(),
  duration: z.number().nullable(),
  tags: z.array(z.string()),
  status: contentStatusSchema,
  processingStatus: processingStatusSchema,
  scheduledAt: z.string().nullable(),
  publishedAt: z.string().nullable(),
  createdAt: z.string(),
  stats: statsSchema,
});

/** Without `sort`: best match first when `q` is given (relevance), else newest. */
export const videoSearchQuery = contentListQuery.extend({ sort: z.enum(['newest', 'popular', 'price', 'relevance']).optional() });

export async function videosRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/user/assets/videos/search',
    {
      config: { access: 'public' },
      schema: {
        tags: ['videos'],
        summary: 'Public videos, filtered by performer, tag, category or keyword (title, description, tags, categories; best match first unless sorted); locked ones carry previews and price only',
        querystring: videoSearchQuery,
        response: { 200: listSchema(videoItemSchema) },
      },
    },
    async (request) => searchVideos(catalogueDeps(app.ctx, request.country), request.user, { ...request.query, cursor: decodeCursor(request.query.cursor) }),
  );

  app.get(
    '/user/assets/videos/:id',
    {
      config: { access: 'public' },
      schema: {
        tags: ['videos'],
        summary: 'A video by id or slug; `video` (a signed URL) only when the viewer may play it',
        params: idParams,
        response: { 200: videoItemSchema },
      },
    },
    async (request) => getVideo(catalogueDeps(app.ctx, request.country), request.user, request.params.id),
  );

  app.post(
    '/user/assets/videos/:id/views',
    {
      config: { access: 'public' },
      onRequest: [limiter(app, 'video-view', VIEW_LIMIT, byIp, 'Too many plays, please slow down')],
      schema: {
        tags: ['videos'],
        summary: 'Count a play of the full video (the player sends it on the first play of a page)',
        description:
          'Counts when the caller may watch the full video (else `403 LOCKED`) and is not its performer or an admin, once per viewer (the user, or a guest by a keyed hash of the IP) and video per hour: `counted` says whether this call added one. `views` is the video\'s count after the call. No body.',
        params: idParams,
        response: { 200: z.object({ counted: z.boolean(), views: z.number().int() }), 403: apiErrorSchema, 404: apiErrorSchema, 429: apiErrorSchema },
      },
    },
    async (request) => recordVideoView({ db: app.ctx.db, appSecret: app.ctx.config.appSecret }, request.user, request.params.id, { country: request.country, ip: request.ip }),
  );

  app.get(
    '/performer/assets/videos/:id/view',
    {
      config: { access: { roles: ['performer', 'admin'] } },
      schema: {
        tags: ['videos', 'performer'],
        summary: "The performer's own video in any state (draft, scheduled, processing)",
        params: idParams,
        response: { 200: videoItemSchema },
      },
    },
    async (request) => getOwnVideo(catalogueDeps(app.ctx, request.country), requireRole(request, 'performer', 'admin'), request.params.id),
  );
}
