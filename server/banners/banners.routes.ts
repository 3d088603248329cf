import type { ApiApp } from '../http/types.js';
import { listSchema } from '../../common/schemas/http.js';
import { bannerSchema, bannerSearchQuery } from '../../common/schemas/site.js';
import { searchBanners } from './banners.repository.js';
import { route } from '../http/route.js';

export async function bannersRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/site-promo/search',
    route({ access: 'public', tags: ['banners'], summary: 'Active site promo banners', querystring: bannerSearchQuery, response: { 200: listSchema(bannerSchema) } }),
    async (request) => searchBanners(app.ctx.db, request.query),
  );
}
