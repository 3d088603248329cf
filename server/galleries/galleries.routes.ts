import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import { decodeCursor, listSchema } from '../http/pagination.js';
import { catalogueDeps } from '../catalogue/catalogue.service.js';
import { accessSchema, contentListQuery, contentStatusSchema, idParams, performerSummarySchema, statsSchema } from '../catalogue/catalogue.schemas.js';
import { getGallery, searchGalleries } from './galleries.service.js';

export const galleryItemSchema = z.object({
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
  cover: z.string().nullable(),
  photoCount: z.number().int(),
  tags: z.array(z.string()),
  status: contentStatusSchema,
  publishedAt: z.string().nullable(),
  createdAt: z.string(),
  stats: statsSchema,
});

/** Without `sort`: best match first when `q` is given (relevance), else newest. */
export const gallerySearchQuery = contentListQuery.extend({ sort: z.enum(['newest', 'popular', 'price', 'relevance']).optional() });

export async function galleriesRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/user/assets/galleries/search',
    {
      config: { access: 'public' },
      schema: {
        tags: ['galleries'],
        summary: 'Public galleries, filtered by performer, tag, category or keyword (title, description, tags, categories; best match first unless sorted)',
        querystring: gallerySearchQuery,
        response: { 200: listSchema(galleryItemSchema) },
      },
    },
    async (request) => searchGalleries(catalogueDeps(app.ctx, request.country), request.user, { ...request.query, cursor: decodeCursor(request.query.cursor) }),
  );

  app.get(
    '/user/assets/galleries/:id/view',
    {
      config: { access: 'public' },
      schema: {
        tags: ['galleries'],
        summary: 'A gallery by id or slug (its photos: GET /user/assets/gallery/{id}/photos)',
        params: idParams,
        response: { 200: galleryItemSchema },
      },
    },
    async (request) => getGallery(catalogueDeps(app.ctx, request.country), request.user, request.params.id),
  );
}
