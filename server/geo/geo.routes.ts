import type { ApiApp } from '../http/types.js';
import { countryBlockCheckSchema } from '../../common/schemas/site.js';
import { route } from '../http/route.js';

export async function geoRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/country-block/check',
    route({ access: 'public', tags: ['settings'], summary: "Whether the visitor's country is blocked site-wide", response: { 200: countryBlockCheckSchema } }),
    async (request) => {
      const country = app.ctx.geo.countryOf(request.ip, request.headers);
      return { blocked: await app.ctx.geo.isBlocked(country), country };
    },
  );
}
