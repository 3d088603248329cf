import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import { listSchema, pageQuery } from '../../common/schemas/http.js';
import { decodeCursor } from '../http/pagination.js';
import { searchCategories } from './categories.service.js';

export const categoryGroupSchema = z.enum(['performer', 'video', 'gallery', 'product', 'post']);
export const categoryItemSchema = z.object({
  _id: z.string(),
  name: z.string(),
  slug: z.string(),
  group: categoryGroupSchema,
  description: z.string().nullable(),
  ordering: z.number().int(),
});

export const categorySearchQuery = pageQuery.extend({
  group: categoryGroupSchema.optional(),
  q: z.string().trim().max(100).optional(),
  sort: z.enum(['ordering', 'name']).default('ordering'),
});

export async function categoriesRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/user/assets/categories/search',
    {
      config: { access: 'public' },
      schema: {
        tags: ['categories'],
        summary: 'Active categories, optionally of one group (performer, video, gallery, product, post)',
        querystring: categorySearchQuery,
        response: { 200: listSchema(categoryItemSchema) },
      },
    },
    async (request) => searchCategories(app.ctx.db, { ...request.query, cursor: decodeCursor(request.query.cursor) }),
  );
}
