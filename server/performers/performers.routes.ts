import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import { decodeCursor, listSchema, pageQuery } from '../http/pagination.js';
import { searchPerformers } from './performers.repository.js';
import { getPerformerProfile } from './performers.service.js';
import { idParams } from '../catalogue/catalogue.schemas.js';
import { audienceOf } from '../catalogue/catalogue.repository.js';

export const performerCardSchema = z.object({
  _id: z.string(),
  username: z.string(),
  name: z.string(),
  avatar: z.string(),
  cover: z.string().nullable(),
  bio: z.string().nullable(),
  monthlyPrice: z.number().int(),
  yearlyPrice: z.number().int(),
  subscriberCount: z.number().int(),
  videoCount: z.number().int(),
  isFeatured: z.boolean(),
});

export const performerProfileSchema = performerCardSchema.extend({
  gender: z.string().nullable(),
  country: z.string().nullable(),
  photoCount: z.number().int(),
  galleryCount: z.number().int(),
  productCount: z.number().int(),
  likeCount: z.number().int(),
  viewCount: z.number().int(),
  categories: z.array(z.object({ _id: z.string(), name: z.string(), slug: z.string() })),
  tags: z.array(z.string()),
  createdAt: z.string(),
  isSubscribed: z.boolean(),
});

export const performerSearchQuery = pageQuery.extend({
  q: z.string().trim().max(100).optional(),
  categoryId: z.string().max(64).optional(),
  featured: z.enum(['true', 'false']).transform((v) => v === 'true').optional(),
  /** Without `sort`: best match first when `q` is given (relevance; ties: most subscribers), else newest. */
  sort: z.enum(['newest', 'popular', 'price', 'relevance']).optional(),
});

export async function performersRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/performers/search',
    {
      config: { access: 'public' },
      schema: {
        tags: ['performers'],
        summary: 'Search performers by keyword (name, username, bio, tags, categories) or category; best match first for a keyword, or sorted by newest, popular or price',
        querystring: performerSearchQuery,
        response: { 200: listSchema(performerCardSchema) },
      },
    },
    async (request) =>
      searchPerformers(app.ctx.db, { ...request.query, audience: audienceOf(request.user, request.country), cursor: decodeCursor(request.query.cursor) }),
  );

  app.get(
    '/performers/:id',
    {
      config: { access: 'public' },
      schema: {
        tags: ['performers'],
        summary: "A performer's profile by id or username, with whether the viewer subscribes",
        params: idParams,
        response: { 200: performerProfileSchema },
      },
    },
    async (request) => getPerformerProfile(app.ctx.db, request.user, request.params.id, request.country),
  );
}
