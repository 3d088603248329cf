import type { ApiApp } from '../http/types.js';
import { searchTotalQuery, searchTotalsSchema } from '../../common/schemas/site.js';
import { audienceOf } from '../catalogue/catalogue.repository.js';
import { searchTotals } from './search.service.js';
import { route } from '../http/route.js';

export async function searchRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/search/total',
    route({
      access: 'public',
      tags: ['search'],
      summary: 'Counts of matching performers, videos, galleries, products and posts',
      querystring: searchTotalQuery,
      response: { 200: searchTotalsSchema },
    }),
    async (request) => searchTotals(app.ctx.db, request.query.q, audienceOf(request.user, request.country)),
  );
}
