import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import { apiErrorSchema, listSchema, pageQuery } from '../../common/schemas/http.js';
import { listActivePackages } from './packages.repository.js';

export const packageSchema = z.object({
  _id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  type: z.string(),
  price: z.number().int(),
  durationDays: z.number().int(),
  ordering: z.number().int(),
});

export async function packagesRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/package/subscription/search',
    {
      config: { access: 'public' },
      schema: {
        tags: ['subscriptions'],
        summary: 'Active subscription packages (monthly, yearly)',
        querystring: pageQuery.extend({ type: z.enum(['monthly', 'yearly']).optional() }),
        response: { 200: listSchema(packageSchema), 400: apiErrorSchema },
      },
    },
    async (request) => {
      const { rows, total } = await listActivePackages(app.ctx.db, request.query);
      return {
        items: rows.map((p) => ({ _id: p.id, name: p.name, description: p.description, type: p.type, price: p.price, durationDays: p.durationDays, ordering: p.ordering })),
        total,
      };
    },
  );
}
