import type { CompiledQuery } from 'kysely';
import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import type { DbOrTrx } from '../db/database.js';
import { audienceOf, type Audience } from '../catalogue/catalogue.repository.js';
import { listCounts } from '../catalogue/count-cache.js';
import { performerListQueries } from '../performers/performers.repository.js';
import { publicVideoQueries } from '../videos/videos.repository.js';
import { publicGalleryQueries } from '../galleries/galleries.repository.js';
import { publicProductQueries } from '../products/products.repository.js';
import { publicPostQueries } from '../posts/posts.repository.js';

/**
 * How many public items of each kind match a keyword (drives the tab counts of the search page). Each count is the
 * count query of the list the tab shows (the same filter, the same visibility rules, the same keyword match of
 * server/catalogue/search.repository.ts), through the same count cache, so a tab's count is the list's `total`:
 * never drafts, unprocessed or scheduled items, items of inactive or unapproved performers, or of performers who
 * block the audience's country.
 */
export async function searchTotals(db: DbOrTrx, q: string, a: Audience) {
  const page = { limit: 1, offset: 0 };
  const count = (query: { compile(): CompiledQuery; executeTakeFirst(): Promise<{ n: number | string } | undefined> }) =>
    listCounts.get(query.compile(), async () => Number((await query.executeTakeFirst())?.n ?? 0));
  const [performers, videos, galleries, products, posts] = await Promise.all([
    count(performerListQueries(db, { q, audience: a, ...page }).count),
    count(publicVideoQueries(db, { q, ...page }, a).count),
    count(publicGalleryQueries(db, { q, ...page }, a).count),
    count(publicProductQueries(db, { q, ...page }, a).count),
    count(publicPostQueries(db, { type: 'post', q, ...page }, a).count),
  ]);
  return { performers, videos, galleries, products, posts, total: performers + videos + galleries + products + posts };
}

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
