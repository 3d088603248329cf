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
  const audited = (action: string, change: PayoutChange, extra: Record<string, unknown> = {}) => ({
    action,
    details: { payoutId: change.payout._id, amount: change.payout.amount, currency: change.payout.currency, from: change.previous, to: change.payout.status, ...extra },
  });

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
    async (request) => {
      const { change, view } = await adminTx(db, request, async (trx, audit) => {
        const change = await approvePayout(trx, request.params.id, request.user!.id);
        const a = audited('payout.approve', change);
        await audit(a.action, 'performer', change.payout.performerId, a.details);
        return { change, view: (await adminPayoutOf(trx, change.payout._id))! };
      });
      await announcePayoutChange(ctx, change);
      return view;
    },
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
    async (request) => {
      const { change, view } = await adminTx(db, request, async (trx, audit) => {
        const change = await rejectPayout(trx, request.params.id, request.user!.id, request.body.reason);
        const a = audited('payout.reject', change, { reason: request.body.reason, released: change.released });
        await audit(a.action, 'performer', change.payout.performerId, a.details);
        return { change, view: (await adminPayoutOf(trx, change.payout._id))! };
      });
      await announcePayoutChange(ctx, change);
      return view;
    },
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
    async (request) => {
      const { change, view } = await adminTx(db, request, async (trx, audit) => {
        const change = await payPayout(trx, request.params.id, request.user!.id, request.body.reference);
        const a = audited('payout.pay', change, { reference: request.body.reference });
        await audit(a.action, 'performer', change.payout.performerId, a.details);
        return { change, view: (await adminPayoutOf(trx, change.payout._id))! };
      });
      await announcePayoutChange(ctx, change);
      return view;
    },
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
