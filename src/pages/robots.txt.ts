import type { APIRoute } from 'astro';

/** robots.txt with the sitemap's absolute address (PUBLIC_URL); replaces the static public/robots.txt. */
export const GET: APIRoute = ({ locals }) => {
  const base = locals.ctx.config.publicUrl;
  const body = ['User-agent: *', 'Disallow: /api/', 'Disallow: /account/', 'Disallow: /admin/', 'Disallow: /studio/', 'Disallow: /search', '', `Sitemap: ${base}/sitemap.xml`, ''].join('\n');
  return new Response(body, { headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'public, max-age=3600' } });
};
