import type { DbOrTrx } from '../db/database.js';
import { galleryIsPublic, postIsPublic, productIsPublic, videoIsPublic, type Audience } from './catalogue.repository.js';

/** A page of the sitemap: the key in its address (a performer's username, an item's id) and when it last changed. */
export interface SitemapRow {
  key: string;
  updatedAt: string;
}

/**
 * The public performers, videos, galleries, products and posts (the lists' visibility rules for `a`), newest first,
 * at most `max` of each kind.
 */
export async function publicPagesForSitemap(db: DbOrTrx, a: Audience, max: number): Promise<Record<'performers' | 'videos' | 'galleries' | 'products' | 'posts', SitemapRow[]>> {
  const [performers, videos, galleries, products, posts] = await Promise.all([
    db.selectFrom('performers').select(['username as key', 'updatedAt']).where('status', '=', 'active').where('approved', '=', 1).orderBy('createdAt', 'desc').limit(max).execute(),
    db.selectFrom('videos').select(['id as key', 'updatedAt']).where(videoIsPublic(a)).orderBy('publishedAt', 'desc').limit(max).execute(),
    db.selectFrom('galleries').select(['id as key', 'updatedAt']).where(galleryIsPublic(a)).orderBy('publishedAt', 'desc').limit(max).execute(),
    db.selectFrom('products').select(['id as key', 'updatedAt']).where(productIsPublic(a)).orderBy('publishedAt', 'desc').limit(max).execute(),
    db.selectFrom('posts').select(['id as key', 'updatedAt']).where(postIsPublic(a)).where('type', '=', 'post').orderBy('publishedAt', 'desc').limit(max).execute(),
  ]);
  return { performers, videos, galleries, products, posts };
}
