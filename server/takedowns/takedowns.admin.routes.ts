import type { ApiApp } from '../http/types.js';
import { adminTx, errors } from '../admin/admin.http.js';
import { adminTakedownListSchema, adminTakedownQuery, resolveTakedownBody, resolveTakedownResultSchema, takedownCaseParams } from '../../common/schemas/takedowns.js';
import { listTakedownQueue, resolveTakedownCase } from './takedowns.service.js';
import { takedownDeps } from './takedowns.routes.js';

/** The console's takedown queue and its actions, in the admin group (admins only, every change audited: adminTx). */
export async function adminTakedownsRoutes(app: ApiApp): Promise<void> {
  const { ctx } = app;
  const tags = ['admin'];
  const deps = takedownDeps(app);
  app.get(
    '/admin/takedowns',
    { schema: { tags, summary: 'Takedown cases (one per item, with every request and requester): open ones oldest first, overdue after 48 hours; or upheld / restored ones', querystring: adminTakedownQuery, response: { 200: adminTakedownListSchema, ...errors } } },
    async (request) => listTakedownQueue(ctx.db, request.query),
  );
  app.post(
    '/admin/takedowns/:targetType/:targetId/resolve',
    {
      schema: {
        tags,
        summary: "Resolve an item's open takedown case: uphold (it stays hidden) or restore (back to the status it had before); every requester is mailed the outcome. 404 when it has no open case",
        params: takedownCaseParams,
        body: resolveTakedownBody,
        response: { 200: resolveTakedownResultSchema, ...errors },
      },
    },
    async (request) => {
      const { targetType, targetId } = request.params;
      const done = await adminTx(ctx.db, request, (trx, audit) => resolveTakedownCase(trx, audit, deps, request.user!.id, targetType, targetId, request.body.action, request.body.note ?? null));
      await done.after();
      return done.result;
    },
  );
}
