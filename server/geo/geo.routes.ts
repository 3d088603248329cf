import { z } from 'zod';
import type { ApiApp } from '../http/types.js';

export async function geoRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/country-block/check',
    {
      config: { access: 'public' },
      schema: {
        tags: ['settings'],
        summary: "Whether the visitor's country is blocked site-wide",
        response: { 200: z.object({ blocked: z.boolean(), country: z.string().nullable() }) },
      },
    },
    async (request) => {
      const country = app.ctx.geo.countryOf(request.ip, request.headers);
      return { blocked: await app.ctx.geo.isBlocked(country), country };
    },
  );
}
