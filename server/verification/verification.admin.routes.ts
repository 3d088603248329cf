import type { ApiApp } from '../http/types.js';
import { adminTx, errors } from '../admin/admin.http.js';
import { listSchema } from '../../common/schemas/http.js';
import {
  adminVerificationDetailSchema, adminVerificationQuery, adminVerificationSchema, rejectVerificationBody, verificationParams,
} from '../../common/schemas/verification.js';
import { decideVerification, listVerificationQueue, verificationDetail } from './verification.service.js';

/** The console's verification queue and its decisions, in the admin group (admins only, every decision audited: adminTx). */
export async function adminVerificationRoutes(app: ApiApp): Promise<void> {
  const { ctx } = app;
  const tags = ['admin'];
  app.get(
    '/admin/verifications',
    { schema: { tags, summary: 'Performers\' identity verifications: pending first, oldest first; filter by status', querystring: adminVerificationQuery, response: { 200: listSchema(adminVerificationSchema), ...errors } } },
    async (request) => listVerificationQueue(ctx.db, request.query),
  );
  app.get(
    '/admin/verifications/:id',
    {
      schema: {
        tags,
        summary: 'One verification with its pictures as URLs signed for the asking admin, valid 5 minutes (none once deleted after the retention time)',
        params: verificationParams,
        response: { 200: adminVerificationDetailSchema, ...errors },
      },
    },
    async (request) => verificationDetail(ctx, request.user!.id, request.params.id),
  );
  app.post(
    '/admin/verifications/:id/approve',
    {
      schema: {
        tags,
        summary: 'Approve a pending verification: the performer is approved (publishing and selling open) and mailed. 409 ALREADY_DECIDED',
        params: verificationParams,
        response: { 200: adminVerificationSchema, ...errors },
      },
    },
    async (request) => {
      const done = await adminTx(ctx.db, request, (trx, audit) => decideVerification(trx, audit, ctx, request.user!.id, request.params.id, { approve: true }));
      await done.after();
      return done.result;
    },
  );
  app.post(
    '/admin/verifications/:id/reject',
    {
      schema: {
        tags,
        summary: 'Reject a pending verification with a reason the performer reads (mailed); they may send a new one. 409 ALREADY_DECIDED',
        params: verificationParams,
        body: rejectVerificationBody,
        response: { 200: adminVerificationSchema, ...errors },
      },
    },
    async (request) => {
      const done = await adminTx(ctx.db, request, (trx, audit) =>
        decideVerification(trx, audit, ctx, request.user!.id, request.params.id, { approve: false, reason: request.body.reason }),
      );
      await done.after();
      return done.result;
    },
  );
}
