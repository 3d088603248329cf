import type { DbOrTrx } from '../db/database.js';
import { everyone } from './audience.js';
import { publicPagesForSitemap } from './sitemap.repository.js';

/** At most this many URLs per kind (the sitemap protocol allows 50,000 per file). */
const MAX_PER_KIND = 10_000;

/**
 * What sitemap.xml lists (src/pages/sitemap.xml.ts): home, the directories and every public performer, video,
 * gallery, product and post page (the same visibility rules as the lists). The list ignores performers' country
 * blocks (the pages obey them), so shared caches may keep it for everyone.
 */
export async function sitemapUrls(db: DbOrTrx, base: string): Promise<Array<{ loc: string; lastmod?: string }>> {
  const pages = await publicPagesForSitemap(db, everyone(), MAX_PER_KIND);
  const urls: Array<{ loc: string; lastmod?: string }> = ['/', '/performers', '/videos', '/store', '/posts'].map((p) => ({ loc: `${base}${p}` }));
  const prefixes = { performers: '/performers', videos: '/videos', galleries: '/galleries', products: '/products', posts: '/posts' } as const;
  for (const kind of Object.keys(prefixes) as Array<keyof typeof prefixes>) {
    for (const r of pages[kind]) urls.push({ loc: `${base}${prefixes[kind]}/${encodeURIComponent(r.key)}`, lastmod: r.updatedAt });
  }
  return urls;
}
