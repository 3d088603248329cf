import type { FastifyRequest } from 'fastify';
import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { ApiApp } from '../http/types.js';
import { listSchema } from '../../common/schemas/http.js';
import { adminPayoutRequestSchema, idParams, payoutDetailsFullSchema, payoutRequestsQuery, payPayoutBody, rejectPayoutBody } from '../../common/schemas/admin.js';
import { adminTx, errors } from './admin.http.js';
import { adminPayoutOf, announcePayoutChange, approvePayout, payoutQueue, payPayout, rejectPayout, revealPayoutDetails, type PayoutChange } from '../payouts/payouts.service.js';

/**
 * The console's payout queue (server/payments/README.md, "Payouts"): performers' requests by status, and the admin's
 * approve, reject (with a reason; the earnings are released) and paid (with the transfer's reference). The list shows
 * the details masked; the full details of an open payout are one audited action away (reveal), for the admin who
 * makes the transfer. Every change runs in adminTx with its audit entry; the performer hears of it through
 * announcePayoutChange after the commit.
 */
export async function adminPayoutRoutes(app: ApiApp): Promise<void> {
  const { ctx } = app;
  const { db } = ctx;
  const tags = ['admin'];
  /**
   * One step of the admin on a payout: the change and its audit entry in one transaction, the console's view of the
   * payout as it now is, and the performer told after the commit.
   */
  const step = async <C extends PayoutChange>(
    request: FastifyRequest,
    action: string,
    change: (trx: Transaction<Database>, adminId: string) => Promise<C>,
    extra: (change: C) => Record<string, unknown> = () => ({}),
  ) => {
    const { done, view } = await adminTx(db, request, async (trx, audit) => {
      const done = await change(trx, request.user!.id);
      const { payout, previous } = done;
      await audit(action, 'performer', payout.performerId, { payoutId: payout._id, amount: payout.amount, currency: payout.currency, from: previous, to: payout.status, ...extra(done) });
      return { done, view: (await adminPayoutOf(trx, payout._id))! };
    });
    await announcePayoutChange(ctx, done);
    return view;
  };

  app.get(
    '/admin/payout-requests',
    {
      schema: {
        tags,
        summary: "Performers' payouts: status=open (requested or approved, oldest first) is the queue; any status, or none, for the rest, newest first",
        querystring: payoutRequestsQuery,
        response: { 200: listSchema(adminPayoutRequestSchema), ...errors },
      },
    },
    async (request) => payoutQueue(db, request.query),
  );

  app.post(
    '/admin/payout-requests/:id/approve',
    { schema: { tags, summary: 'Approve a requested payout (409 once it is approved, paid or rejected)', params: idParams, response: { 200: adminPayoutRequestSchema, ...errors } } },
    (request) => step(request, 'payout.approve', (trx, adminId) => approvePayout(trx, request.params.id, adminId)),
  );

  app.post(
    '/admin/payout-requests/:id/reject',
    {
      schema: {
        tags,
        summary: 'Reject a requested or approved payout with a reason the performer reads; its earnings are available to a new request again',
        params: idParams,
        body: rejectPayoutBody,
        response: { 200: adminPayoutRequestSchema, ...errors },
      },
    },
    (request) =>
      step(request, 'payout.reject', (trx, adminId) => rejectPayout(trx, request.params.id, adminId, request.body.reason), (change) => ({ reason: request.body.reason, released: change.released })),
  );

  app.post(
    '/admin/payout-requests/:id/paid',
    {
      schema: {
        tags,
        summary: "Mark a requested or approved payout paid, with the transfer's reference; its earnings become paid",
        params: idParams,
        body: payPayoutBody,
        response: { 200: adminPayoutRequestSchema, ...errors },
      },
    },
    (request) => step(request, 'payout.pay', (trx, adminId) => payPayout(trx, request.params.id, adminId, request.body.reference), () => ({ reference: request.body.reference })),
  );

  app.post(
    '/admin/payout-requests/:id/reveal',
    {
      schema: {
        tags,
        summary: 'The full payout details of an open payout, to make the transfer; each look is written to the audit log (409 once paid or rejected: the full copy is erased)',
        params: idParams,
        response: { 200: payoutDetailsFullSchema, ...errors },
      },
    },
    async (request) =>
      adminTx(db, request, async (trx, audit) => {
        const { performerId, ...full } = await revealPayoutDetails(trx, ctx.config.appSecret, request.params.id);
        // What was looked at, never the details themselves.
        await audit('payout.details.reveal', 'performer', performerId, { payoutId: full.payoutId, method: full.method });
        return full;
      }),
  );
}
