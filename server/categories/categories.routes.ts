import type { ApiApp } from '../http/types.js';
import { listSchema } from '../../common/schemas/http.js';
import { categoryItemSchema, categorySearchQuery } from '../../common/schemas/catalogue.js';
import { decodeCursor } from '../http/pagination.js';
import { searchCategories } from './categories.service.js';
import { route } from '../http/route.js';

export async function categoriesRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/user/assets/categories/search',
    route({
      access: 'public',
      tags: ['categories'],
      summary: 'Active categories, optionally of one group (performer, video, gallery, product, post)',
      querystring: categorySearchQuery,
      response: { 200: listSchema(categoryItemSchema) },
    }),
    async (request) => searchCategories(app.ctx.db, { ...request.query, cursor: decodeCursor(request.query.cursor) }),
  );
}
