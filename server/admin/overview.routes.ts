import type { ApiApp } from '../http/types.js';
import { listSchema } from '../../common/schemas/http.js';
import { errors } from './admin.http.js';
import { auditQuery, auditSchema, dashboardQuery, dashboardSchema } from '../../common/schemas/admin.js';
import { dashboard, listAuditNamed } from './admin.repository.js';

/** The dashboard's numbers and series, and the audit log. */

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
