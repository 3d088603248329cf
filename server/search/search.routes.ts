import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import { audienceOf } from '../catalogue/catalogue.repository.js';
import { searchTotals } from './search.service.js';

export async function searchRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/search/total',
    {
      config: { access: 'public' },
      schema: {
        tags: ['search'],
        summary: 'Counts of matching performers, videos, galleries, products and posts',
        querystring: z.object({ q: z.string().trim().min(1, 'Search keyword is required').max(100) }),
        response: {
          200: z.object({ total: z.number(), performers: z.number(), videos: z.number(), galleries: z.number(), products: z.number(), posts: z.number() }),
        },
      },
    },
    async (request) => searchTotals(app.ctx.db, request.query.q, audienceOf(request.user, request.country)),
  );
}
