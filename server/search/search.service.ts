import type { DbOrTrx } from '../db/database.js';
import { cachedTotal, type Audience } from '../catalogue/catalogue.repository.js';
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
  const [performers, videos, galleries, products, posts] = await Promise.all([
    cachedTotal(performerListQueries(db, { q, audience: a, ...page }).count),
    cachedTotal(publicVideoQueries(db, { q, ...page }, a).count),
    cachedTotal(publicGalleryQueries(db, { q, ...page }, a).count),
    cachedTotal(publicProductQueries(db, { q, ...page }, a).count),
    cachedTotal(publicPostQueries(db, { type: 'post', q, ...page }, a).count),
  ]);
  return { performers, videos, galleries, products, posts, total: performers + videos + galleries + products + posts };
}
