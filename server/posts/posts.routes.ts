import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import { decodeCursor, listSchema } from '../http/pagination.js';
import { catalogueDeps } from '../catalogue/catalogue.service.js';
import { accessSchema, contentListQuery, idParams, performerSummarySchema, processingStatusSchema, signedMediaSchema } from '../catalogue/catalogue.schemas.js';
import { getPost, searchPosts } from './posts.service.js';

export const postCardSchema = z.object({
  _id: z.string(),
  slug: z.string(),
  type: z.enum(['post', 'page']),
  title: z.string(),
  excerpt: z.string().nullable(),
  image: z.string().nullable(),
  performerId: z.string().nullable(),
  performer: performerSummarySchema.nullable(),
  access: accessSchema,
  price: z.number().int(),
  locked: z.boolean(),
  imageCount: z.number().int(),
  hasVideo: z.boolean(),
  status: z.enum(['draft', 'published', 'hidden']),
  publishedAt: z.string().nullable(),
  createdAt: z.string(),
  likeCount: z.number().int(),
  favouriteCount: z.number().int(),
  commentCount: z.number().int(),
});

export const postMediaSchema = z.object({
  _id: z.string(),
  kind: z.enum(['image', 'video']),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  duration: z.number().nullable(),
  processingStatus: processingStatusSchema,
  preview: z.string().nullable(),
  thumbnail: z.string().nullable(),
  image: z.string().nullable(),
  video: signedMediaSchema.nullable(),
});

export const postDetailSchema = postCardSchema.extend({ content: z.string().nullable(), media: z.array(postMediaSchema) });

export const postSearchQuery = contentListQuery.extend({
  type: z.enum(['post', 'page']).default('post'),
  /** Without `sort`: best match first when `q` is given (relevance), else newest. */
  sort: z.enum(['newest', 'popular', 'relevance']).optional(),
  scope: z.enum(['site', 'all']).default('all'),
});

export async function postsRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/posts/search',
    {
      config: { access: 'public' },
      schema: {
        tags: ['posts'],
        summary: "Published posts (or pages, type=page), newest or most liked first, or best match first for a keyword (title, excerpt, tags, categories): one performer's (performerId), the site's own (scope=site, the blog) or all",
        querystring: postSearchQuery,
        response: { 200: listSchema(postCardSchema) },
      },
    },
    async (request) => searchPosts(catalogueDeps(app.ctx, request.country), request.user, { ...request.query, cursor: decodeCursor(request.query.cursor) }),
  );

  app.get(
    '/posts/:id',
    {
      config: { access: 'public' },
      schema: {
        tags: ['posts'],
        summary: "A published post or page by id or slug; a performer's locked post without its text and with blurred previews only",
        params: idParams,
        response: { 200: postDetailSchema },
      },
    },
    async (request) => getPost(catalogueDeps(app.ctx, request.country), request.user, request.params.id),
  );
}
