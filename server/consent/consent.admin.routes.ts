import type { ApiApp } from '../http/types.js';
import { adminTx, errors } from '../admin/admin.http.js';
import { idParams } from '../../common/schemas/http.js';
import { adminConsentListSchema, adminConsentQuery } from '../../common/schemas/consent.js';
import { z } from 'zod';
import { adminConsentRecords, refuseConsentRecord } from './consent.service.js';

/** The console's consent records (admins only, in the admin group; a change is audited: adminTx). */
export async function adminConsentRoutes(app: ApiApp): Promise<void> {
  const { ctx } = app;
  const tags = ['admin'];
  app.get(
    '/admin/consent',
    {
      schema: {
        tags,
        summary: 'Consent records, newest first, or one item\'s (objectType, objectId): who, state, dates, and links to the release form and identity document signed for you for five minutes',
        querystring: adminConsentQuery,
        response: { 200: adminConsentListSchema, ...errors },
      },
    },
    async (request) => adminConsentRecords(ctx, request.user!.id, request.query),
  );
  app.post(
    '/admin/consent/:id/refuse',
    {
      schema: {
        tags,
        summary: 'Refuse a consent record (a release or identity document that does not hold): it counts as declined and its item goes back to draft; 409 when already declined',
        params: idParams,
        response: { 200: z.object({ objectType: z.string(), objectId: z.string(), unpublished: z.boolean() }), ...errors },
      },
    },
    async (request) =>
      adminTx(ctx.db, request, async (trx, audit) => {
        const done = await refuseConsentRecord(trx, request.params.id);
        await audit('consent.refuse', 'co_performer', request.params.id, done);
        return done;
      }),
  );
}
