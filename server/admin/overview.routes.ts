import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import { listSchema } from '../http/pagination.js';
import { listAudit } from '../audit/audit.repository.js';
import { errors } from './admin.http.js';
import { auditQuery, dashboardQuery } from './admin.schemas.js';
import { dashboard } from './admin.repository.js';

/** The dashboard's numbers and series, and the audit log. */

const point = z.object({ date: z.string(), value: z.number() });
const dashboardSchema = z.object({
  counts: z.object({
    users: z.number(), performers: z.number(), pendingPerformers: z.number(), suspendedUsers: z.number(), activeSubscriptions: z.number(), videos: z.number(),
    successfulPayments: z.number(), revenue: z.number(), unpaidEarnings: z.number(),
  }),
  series: z.object({ signups: z.array(point), revenue: z.array(point), activeSubscriptions: z.array(point) }),
});
const auditSchema = z.object({
  _id: z.string(), actorId: z.string().nullable(), actorUsername: z.string().nullable(), action: z.string(), targetType: z.string().nullable(), targetId: z.string().nullable(),
  details: z.record(z.string(), z.unknown()), ip: z.string().nullable(), createdAt: z.string(),
});

export async function adminOverviewRoutes(app: ApiApp): Promise<void> {
  const { db } = app.ctx;
  app.get(
    '/admin/dashboard',
    { schema: { tags: ['admin'], summary: 'Counts, and sign-ups, revenue (minor units) and live subscriptions per day over the last `days` days', querystring: dashboardQuery, response: { 200: dashboardSchema, ...errors } } },
    async (request) => dashboard(db, request.query.days),
  );
  app.get(
    '/admin/audit',
    { schema: { tags: ['admin'], summary: 'The audit log: every admin action, newest first', querystring: auditQuery, response: { 200: listSchema(auditSchema), ...errors } } },
    async (request) => listAudit(db, request.query),
  );
}
