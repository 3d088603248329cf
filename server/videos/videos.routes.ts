import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import { requireRole } from '../http/auth.js';
import { decodeCursor, listSchema } from '../http/pagination.js';
import { catalogueDeps } from '../catalogue/catalogue.service.js';
import {
  accessSchema, contentListQuery, contentStatusSchema, idParams, performerSummarySchema, processingStatusSchema, signedMediaSchema, statsSchema,
} from '../catalogue/catalogue.schemas.js';
import { getOwnVideo, getVideo, searchVideos } from './videos.service.js';

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
