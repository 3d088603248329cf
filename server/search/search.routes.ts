import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import type { DbOrTrx } from '../db/database.js';
import { audienceOf, galleryIsPublic, matches, performerIsPublic, postIsPublic, productIsPublic, videoIsPublic, type Audience } from '../catalogue/catalogue.repository.js';

/**
 * How many public items of each kind match a keyword (drives the tab counts of the search page). Uses the same
 * visibility rules and keyword match as the lists (server/catalogue/catalogue.repository.ts), so a count never
 * includes drafts, unprocessed or scheduled items, items of inactive or unapproved performers, or of performers who
 * block the audience's country.
 */
export async function searchTotals(db: DbOrTrx, q: string, a: Audience) {
  const count = async (query: { executeTakeFirstOrThrow(): Promise<{ n: number | string }> }) => Number((await query.executeTakeFirstOrThrow()).n);
  const [performers, videos, galleries, products, posts] = await Promise.all([
    count(
      db
        .selectFrom('performers')
        .where(performerIsPublic(a))
        .where((eb) => eb.or([matches('performers.displayName', q), matches('performers.username', q)]))
        .select((eb) => eb.fn.countAll<number>().as('n')),
    ),
    count(db.selectFrom('videos').where(videoIsPublic(a)).where(matches('videos.title', q)).select((eb) => eb.fn.countAll<number>().as('n'))),
    count(db.selectFrom('galleries').where(galleryIsPublic(a)).where(matches('galleries.title', q)).select((eb) => eb.fn.countAll<number>().as('n'))),
    count(db.selectFrom('products').where(productIsPublic(a)).where(matches('products.name', q)).select((eb) => eb.fn.countAll<number>().as('n'))),
    count(db.selectFrom('posts').where(postIsPublic(a)).where('posts.type', '=', 'post').where(matches('posts.title', q)).select((eb) => eb.fn.countAll<number>().as('n'))),
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
