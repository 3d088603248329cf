import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import { listSchema, pageQuery } from '../../common/schemas/http.js';
import { searchBanners } from './banners.repository.js';

export const bannerSchema = z.object({
  _id: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  imageUrl: z.string().nullable(),
  link: z.string().nullable(),
  position: z.string(),
});

export async function bannersRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/site-promo/search',
    {
      config: { access: 'public' },
      schema: {
        tags: ['banners'],
        summary: 'Active site promo banners',
        querystring: pageQuery.extend({ position: z.string().trim().max(32).regex(/^[a-z0-9_-]*$/).optional() }),
        response: { 200: listSchema(bannerSchema) },
      },
    },
    async (request) => searchBanners(app.ctx.db, request.query),
  );
}
