import type { FastifyRequest } from 'fastify';
import type { ApiApp } from '../http/types.js';
import { requireUser } from '../http/auth.js';
import { limiter } from '../http/rate-limit.js';
import { route } from '../http/route.js';
import { apiErrorSchema } from '../../common/schemas/http.js';
import { createReportBody, reportSchema } from '../../common/schemas/reports.js';
import { createReport } from './reports.service.js';

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema, 409: apiErrorSchema, 429: apiErrorSchema };

/** Reporting (docs/product.md, Reports); the console's queue and actions are server/reports/reports.admin.routes.ts. */
export async function reportsRoutes(app: ApiApp): Promise<void> {
  // Per account: a report costs an admin's time, so a flood is stopped early (RATE_LIMIT_REPORTS).
  const perUser = limiter(app, 'report', app.ctx.config.reportLimit, (request: FastifyRequest) => request.user?.id, 'Too many reports, please try again later');
  app.post(
    '/reports',
    {
      ...route({
        access: 'session',
        tags: ['reports'],
        summary:
          'Report a performer, an item or a comment the caller can see, with a reason. 404 for anything they cannot see, 409 ALREADY_REPORTED while their report of it is open, 400 CANNOT_REPORT_OWN for their own',
        body: createReportBody,
        response: { 201: reportSchema, ...errors },
      }),
      onRequest: [perUser],
    },
    async (request, reply) => {
      const report = await createReport(app.ctx.db, requireUser(request), request.country, request.body);
      return reply.code(201).send(report);
    },
  );
}
