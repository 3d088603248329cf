import type { ApiApp } from '../http/types.js';
import { adminTx, errors } from '../admin/admin.http.js';
import { adminReportListSchema, adminReportQuery, reportTargetParams, resolveReportsBody, resolveReportsResultSchema } from '../../common/schemas/reports.js';
import { listReportQueue, resolveTargetReports } from './reports.service.js';

/** The console's reports queue and its actions, in the admin group (admins only, every change audited: adminTx). */
export async function adminReportsRoutes(app: ApiApp): Promise<void> {
  const { ctx } = app;
  const tags = ['admin'];
  app.get(
    '/admin/reports',
    { schema: { tags, summary: 'Reported targets with their reports: open ones oldest first (overdue after 7 days), or resolved ones; with the open and overdue counts', querystring: adminReportQuery, response: { 200: adminReportListSchema, ...errors } } },
    async (request) => listReportQueue(ctx.db, request.query),
  );
  app.post(
    '/admin/reports/:targetType/:targetId/resolve',
    {
      schema: {
        tags,
        summary:
          "Resolve every open report of a target: remove it (hide an item, delete a comment), suspend the account behind it, or dismiss; each reporter is notified. 404 when it has no open report, 400 ACTION_NOT_ALLOWED for an action its kind does not take",
        params: reportTargetParams,
        body: resolveReportsBody,
        response: { 200: resolveReportsResultSchema, ...errors },
      },
    },
    async (request) => {
      const { targetType, targetId } = request.params;
      const done = await adminTx(ctx.db, request, (trx, audit) =>
        resolveTargetReports(trx, audit, ctx, request.user!.id, targetType, targetId, request.body.action, request.body.note ?? null),
      );
      await done.after();
      return done.result;
    },
  );
}
