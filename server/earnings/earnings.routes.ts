import type { ApiApp } from '../http/types.js';
import { requireRole } from '../http/auth.js';
import { apiErrorSchema, listSchema } from '../../common/schemas/http.js';
import { badRequest } from '../http/errors.js';
import { earningQuery, earningSchema, earningStatsSchema } from '../../common/schemas/money.js';
import { performerEarningStats, searchEarnings } from './earnings.service.js';
import { route } from '../http/route.js';

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema };
const tags = ['earnings'];

export async function earningsRoutes(app: ApiApp): Promise<void> {
  const { db, settings } = app.ctx;
  const performerOf = (user: { id: string; role: string }, asked?: string) => (user.role === 'admin' && asked ? asked : user.id);

  app.get(
    '/earning/performer/search',
    route({
      access: { roles: ['performer', 'admin'] },
      tags,
      summary: "The performer's earnings, newest first (admins: any performerId)",
      querystring: earningQuery,
      response: { 200: listSchema(earningSchema), ...errors },
    }),
    async (request) => {
      const user = requireRole(request, 'performer', 'admin');
      return searchEarnings(db, { ...request.query, performerId: performerOf(user, request.query.performerId) });
    },
  );

  app.get(
    '/earning/performer/stats',
    route({
      access: { roles: ['performer', 'admin'] },
      tags,
      summary: "The performer's totals (gross, commission, net, paid out, unpaid), per source and per day; default: the last 30 days",
      querystring: earningQuery.omit({ limit: true, offset: true, cursor: true }),
      response: { 200: earningStatsSchema, ...errors },
    }),
    async (request) => {
      const user = requireRole(request, 'performer', 'admin');
      const q = request.query;
      if (q.from && q.to && Date.parse(q.from) >= Date.parse(q.to)) throw badRequest('"from" must be before "to"');
      const from = q.from ? new Date(q.from).toISOString() : undefined;
      const to = q.to ? new Date(q.to).toISOString() : undefined;
      return performerEarningStats(db, { ...q, from, to, performerId: performerOf(user, q.performerId) }, String(await settings.get('currency')));
    },
  );
}
