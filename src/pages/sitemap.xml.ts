import type { APIRoute } from 'astro';
import { nowIso } from '../../server/db/ids.js';
import { everyone, galleryIsPublic, postIsPublic, productIsPublic, videoIsPublic } from '../../server/catalogue/catalogue.repository.js';

/** At most this many URLs per kind (the sitemap protocol allows 50,000 per file). */
const MAX_PER_KIND = 10_000;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * sitemap.xml: home, the performer directory and every public performer, video, gallery, product and post page
 * (the same visibility rules as the lists). Cached for ten minutes.
 */
export const GET: APIRoute = async ({ locals }) => {
  const { ctx } = locals;
  const { db } = ctx;
  // Shared caches keep it ten minutes for everyone: the list ignores performers' country blocks (the pages obey them).
  const now = everyone(nowIso());
  const base = ctx.config.publicUrl;
  const [performers, videos, galleries, products, posts] = await Promise.all([
    db.selectFrom('performers').select(['username as key', 'updatedAt']).where('status', '=', 'active').where('approved', '=', 1).orderBy('createdAt', 'desc').limit(MAX_PER_KIND).execute(),
    db.selectFrom('videos').select(['id as key', 'updatedAt']).where(videoIsPublic(now)).orderBy('publishedAt', 'desc').limit(MAX_PER_KIND).execute(),
    db.selectFrom('galleries').select(['id as key', 'updatedAt']).where(galleryIsPublic(now)).orderBy('publishedAt', 'desc').limit(MAX_PER_KIND).execute(),
    db.selectFrom('products').select(['id as key', 'updatedAt']).where(productIsPublic(now)).orderBy('publishedAt', 'desc').limit(MAX_PER_KIND).execute(),
    db.selectFrom('posts').select(['id as key', 'updatedAt']).where(postIsPublic(now)).where('type', '=', 'post').orderBy('publishedAt', 'desc').limit(MAX_PER_KIND).execute(),
  ]);
  const urls: Array<{ loc: string; lastmod?: string }> = ['/', '/performers', '/videos', '/store', '/posts'].map((p) => ({ loc: `${base}${p}` }));
  const add = (prefix: string, rows: Array<{ key: string; updatedAt: string }>) => {
    for (const r of rows) urls.push({ loc: `${base}${prefix}/${encodeURIComponent(r.key)}`, lastmod: r.updatedAt });
  };
  add('/performers', performers);
  add('/videos', videos);
  add('/galleries', galleries);
  add('/products', products);
  add('/posts', posts);
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' +
    urls.map((u) => `  <url><loc>${esc(u.loc)}</loc>${u.lastmod ? `<lastmod>${esc(u.lastmod)}</lastmod>` : ''}</url>`).join('\n') +
    '\n</urlset>\n';
  return new Response(body, { headers: { 'content-type': 'application/xml; charset=utf-8', 'cache-control': 'public, max-age=600' } });
};
