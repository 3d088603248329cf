import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import { listSchema } from '../../common/schemas/http.js';
import { errors } from './admin.http.js';
import { auditQuery, dashboardQuery, personRef } from './admin.schemas.js';
import { dashboard, listAuditNamed } from './admin.repository.js';

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
  /** Who, by name (null: the system or a deleted account). */
  actor: personRef,
  /** What it was done to, by name; `exists` false when it has been deleted since (the name is the one recorded). */
  target: z.object({ type: z.string(), _id: z.string().nullable(), name: z.string().nullable(), username: z.string().nullable(), parentId: z.string().nullable(), exists: z.boolean() }).nullable(),
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
    { schema: { tags: ['admin'], summary: 'The audit log: every admin action, newest first, with the names of who did it and of what it was done to', querystring: auditQuery, response: { 200: listSchema(auditSchema), ...errors } } },
    async (request) => listAuditNamed(db, request.query),
  );
}
