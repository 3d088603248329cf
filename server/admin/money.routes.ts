import type { ApiApp } from '../http/types.js';
import { AppError, notFound } from '../http/errors.js';
import { listSchema } from '../../common/schemas/http.js';
import { findPayment } from '../payments/payments.repository.js';
import { createInProcessMoney, type Money } from '../payments/money.js';
import { GatewayError, isGatewayName } from '../payments/gateway.js';
import { findOrder } from '../orders/orders.repository.js';
import { updateOrderDelivery } from '../orders/orders.service.js';
import { sendMoneyMails } from '../payments/money-mail.js';
import { updateOrderBody } from '../../common/schemas/money.js';
import { adminTx, errors } from './admin.http.js';
import { earningRows, earningsByPerformer, listOrdersNamed, listPayouts, payoutView, searchPayments } from './admin.repository.js';
import { announcePayoutChange, payOutDirectly } from '../payouts/payouts.service.js';
import { findPerformerName } from '../performers/performers.repository.js';
import {
  earningRowsQuery, earningSchema, earningsQuery, idParams, orderListQuery, orderRowSchema, orderSchema, paymentListQuery, paymentListSchema,
  payoutBody, payoutListQuery, payoutSchema, performerEarningsSchema, refundBody, refundRequestSchema,
} from '../../common/schemas/admin.js';
import type { AppContext } from '../context.js';
import { pushNotificationCount } from '../notifications/notifications.service.js';

/** Money oversight: payments and transactions, orders, earnings by performer, payouts, refunds through the gateway. */

/**
 * The money use cases with a sandbox "provider" that delivers its webhooks in process: a refund asked of the
 * sandbox settles at once, exactly as its signed webhook would (Stripe's arrives later at the webhook endpoint).
 */
export function adminMoney(ctx: AppContext): Money {
  return createInProcessMoney(ctx);
}

export async function adminMoneyRoutes(app: ApiApp): Promise<void> {
  const { ctx } = app;
  const { db } = ctx;
  const tags = ['admin'];

  app.get(
    '/admin/payments',
    {
      schema: {
        tags,
        summary: 'Payments and transactions of every user: search by id, provider reference, email or username; filter by status, type, gateway, user, performer, time',
        querystring: paymentListQuery,
        response: { 200: paymentListSchema, ...errors },
      },
    },
    async (request) => searchPayments(db, request.query),
  );

  app.post(
    '/admin/payments/:id/refund',
    {
      schema: {
        tags,
        summary: 'Refund a successful payment, or part of it (amount), through its gateway; the provider confirms with a webhook: all of it turns the payment refunded, a part is recorded on it (refundedAmount)',
        params: idParams,
        body: refundBody,
        response: { 200: refundRequestSchema, ...errors },
      },
    },
    async (request) => {
      const { id } = request.params;
      const payment = await findPayment(db, id);
      if (!payment) throw notFound('Payment');
      if (payment.status !== 'success') throw new AppError(409, 'NOT_REFUNDABLE', `Only a successful payment can be refunded (this one is ${payment.status})`);
      const left = payment.amount - payment.refundedAmount;
      const amount = request.body?.amount ?? left;
      if (amount > left) throw new AppError(400, 'REFUND_TOO_LARGE', `At most ${left} (minor units) is left to refund of this payment`);
      const money = adminMoney(ctx);
      const gateway = await money.gateway(isGatewayName(payment.gateway) ? payment.gateway : 'sandbox');
      try {
        await gateway.refund({ gatewayRef: payment.gatewayRef, intentRef: payment.gatewayIntentRef, amount });
      } catch (err) {
        if (err instanceof GatewayError) throw new AppError(409, 'GATEWAY_REFUSED', `The payment provider refused the refund: ${err.message}`);
        throw err;
      }
      await adminTx(db, request, async (trx, audit) => {
        await audit('payment.refund', 'payment', id, { gateway: payment.gateway, amount, currency: payment.currency, ...(amount < left ? { partial: true } : {}) });
        void trx;
      });
      const after = await findPayment(db, id);
      return { _id: id, status: after?.status ?? payment.status, refundRequested: true as const };
    },
  );

  app.get(
    '/admin/orders',
    { schema: { tags, summary: "Orders of every buyer and performer (q: order number), with the buyer's, the performer's and the products' names", querystring: orderListQuery, response: { 200: listSchema(orderRowSchema), ...errors } } },
    async (request) => listOrdersNamed(db, request.query),
  );

  app.put(
    '/admin/orders/:id/delivery',
    {
      schema: {
        tags,
        summary: "Set a paid order's delivery status and/or tracking code (as its performer can), with an audit entry",
        params: idParams,
        body: updateOrderBody,
        response: { 200: orderSchema, ...errors },
      },
    },
    async (request) => {
      const { id } = request.params;
      const { o, mails, notified } = await adminTx(db, request, async (trx, audit) => {
        const { mails, notified } = await updateOrderDelivery(trx, request.user!, id, request.body);
        await audit('order.delivery', 'order', id, { ...request.body });
        return { o: (await findOrder(trx, id))!, mails, notified };
      });
      if (notified) await pushNotificationCount(db, ctx.realtime, notified);
      await sendMoneyMails(ctx, mails);
      return {
        _id: o.id, orderNumber: o.orderNumber, paymentId: o.paymentId, buyerId: o.buyerId, performerId: o.performerId, status: o.status, deliveryStatus: o.deliveryStatus,
        totalPrice: o.totalPrice, trackingCode: o.trackingCode, createdAt: o.createdAt,
      };
    },
  );

  app.get('/admin/earnings', { schema: { tags, summary: 'Earnings summed per performer: gross, commission, net, paid and still owed', querystring: earningsQuery, response: { 200: listSchema(performerEarningsSchema), ...errors } } }, async (request) =>
    earningsByPerformer(db, { ...request.query, unpaidOnly: request.query.unpaidOnly === '1' }),
  );

  app.get('/admin/earnings/search', { schema: { tags, summary: "One performer's earning rows", querystring: earningRowsQuery, response: { 200: listSchema(earningSchema), ...errors } } }, async (request) =>
    earningRows(db, request.query),
  );

  app.get('/admin/payouts', { schema: { tags, summary: 'Payouts made, newest first', querystring: payoutListQuery, response: { 200: listSchema(payoutSchema), ...errors } } }, async (request) => listPayouts(db, request.query));

  app.post(
    '/admin/earnings/payout',
    {
      schema: {
        tags,
        summary:
          "Record a payout of all of a performer's unpaid earnings outside an open payout request, as paid, in one transaction (400 when nothing is owed; test money is never paid out)",
        body: payoutBody,
        response: { 201: payoutSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { performerId, note } = request.body;
      const currency = await ctx.settings.get('currency');
      const { payout, change } = await adminTx(db, request, async (trx, audit) => {
        const performer = await findPerformerName(trx, performerId);
        if (!performer) throw notFound('Performer');
        const { row, change } = await payOutDirectly(trx, { performerId, actorId: request.user!.id, currency, note: note ?? null });
        await audit('earnings.payout', 'performer', performerId, { payoutId: row.id, amount: row.amount, currency, earnings: row.earningsCount, note: note ?? null });
        return { payout: payoutView({ ...row, username: performer.username, name: performer.displayName }), change };
      });
      await announcePayoutChange(ctx, change);
      reply.code(201);
      return payout;
    },
  );
}
