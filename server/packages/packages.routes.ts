import type { ApiApp } from '../http/types.js';
import { apiErrorSchema, listSchema } from '../../common/schemas/http.js';
import { packageSchema, packageSearchQuery } from '../../common/schemas/money.js';
import { listActivePackages } from './packages.repository.js';
import { route } from '../http/route.js';

export async function packagesRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/package/subscription/search',
    route({
      access: 'public',
      tags: ['subscriptions'],
      summary: 'Active subscription packages (monthly, yearly)',
      querystring: packageSearchQuery,
      response: { 200: listSchema(packageSchema), 400: apiErrorSchema },
    }),
    async (request) => {
      const { rows, total } = await listActivePackages(app.ctx.db, request.query);
      return {
        items: rows.map((p) => ({ _id: p.id, name: p.name, description: p.description, type: p.type, price: p.price, durationDays: p.durationDays, ordering: p.ordering })),
        total,
      };
    },
  );
}
