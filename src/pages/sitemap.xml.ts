import type { APIRoute } from 'astro';
import { sitemapUrls } from '../../server/catalogue/sitemap.service.js';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * sitemap.xml: home, the performer directory and every public performer, video, gallery, product and post page
 * (the same visibility rules as the lists). Cached for ten minutes.
 */
export const GET: APIRoute = async ({ locals }) => {
  // Shared caches keep it ten minutes for everyone (server/catalogue/sitemap.service.ts).
  const urls = await sitemapUrls(locals.ctx.db, locals.ctx.config.publicUrl);
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' +
    urls.map((u) => `  <url><loc>${esc(u.loc)}</loc>${u.lastmod ? `<lastmod>${esc(u.lastmod)}</lastmod>` : ''}</url>`).join('\n') +
    '\n</urlset>\n';
  return new Response(body, { headers: { 'content-type': 'application/xml; charset=utf-8', 'cache-control': 'public, max-age=600' } });
};
