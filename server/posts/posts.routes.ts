import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import { decodeCursor, listSchema } from '../http/pagination.js';
import { contentListQuery, idParams } from '../catalogue/catalogue.schemas.js';
import { audienceOf } from '../catalogue/catalogue.repository.js';
import { getPost, searchPosts } from './posts.service.js';

export const postCardSchema = z.object({
  _id: z.string(),
  slug: z.string(),
  type: z.enum(['post', 'page']),
  title: z.string(),
  excerpt: z.string().nullable(),
  image: z.string().nullable(),
  performerId: z.string().nullable(),
  publishedAt: z.string().nullable(),
  createdAt: z.string(),
  likeCount: z.number().int(),
  commentCount: z.number().int(),
});
export const postDetailSchema = postCardSchema.extend({ content: z.string() });

export const postSearchQuery = contentListQuery.extend({
  type: z.enum(['post', 'page']).default('post'),
  sort: z.enum(['newest', 'popular']).default('newest'),
});

export async function postsRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/posts/search',
    {
      config: { access: 'public' },
      schema: {
        tags: ['posts'],
        summary: 'Published posts (or pages, type=page), newest or most liked first',
        querystring: postSearchQuery,
        response: { 200: listSchema(postCardSchema) },
      },
    },
    async (request) => searchPosts(app.ctx.db, { ...request.query, cursor: decodeCursor(request.query.cursor) }, audienceOf(request.user, request.country)),
  );

  app.get(
    '/posts/:id',
    { config: { access: 'public' }, schema: { tags: ['posts'], summary: 'A published post or page by id or slug', params: idParams, response: { 200: postDetailSchema } } },
    async (request) => getPost(app.ctx.db, request.params.id, audienceOf(request.user, request.country)),
  );
}
