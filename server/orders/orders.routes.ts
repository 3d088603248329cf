import type { ApiApp } from '../http/types.js';
import { requireRole, requireUser } from '../http/auth.js';
import { apiErrorSchema, idParams, keyField, listSchema } from '../../common/schemas/http.js';
import { orderLineListQuery, orderLineViewSchema, orderListQuery, orderSchema, updateOrderBody } from '../../common/schemas/money.js';
import { getOrder, searchBuyerOrderLines, searchOrders, updateOrderDelivery } from './orders.service.js';
import { sendMoneyMails } from '../payments/money-mail.js';
import { route } from '../http/route.js';
import { pushNotificationCount } from '../notifications/notifications.service.js';

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema, 409: apiErrorSchema };
const tags = ['orders'];

export async function ordersRoutes(app: ApiApp): Promise<void> {
  const { db } = app.ctx;

  app.get(
    '/orders/details/search',
    route({
      access: { roles: ['performer', 'admin'] },
      tags,
      summary: "Orders of the performer's products (admins: any, or one performerId)",
      querystring: orderListQuery.extend({ performerId: keyField.optional() }),
      response: { 200: listSchema(orderSchema), ...errors },
    }),
    async (request) => {
      const user = requireRole(request, 'performer', 'admin');
      const performerId = user.role === 'admin' ? request.query.performerId : user.id;
      return searchOrders(db, { ...request.query, performerId });
    },
  );

  app.get(
    '/orders/users/search',
    route({ access: 'session', tags, summary: "The signed-in buyer's orders", querystring: orderListQuery, response: { 200: listSchema(orderSchema), ...errors } }),
    async (request) => searchOrders(db, { ...request.query, buyerId: requireUser(request).id }),
  );

  app.get(
    '/orders/users/details/search',
    route({
      access: 'session',
      tags,
      summary: "The signed-in buyer's order lines across orders",
      querystring: orderLineListQuery,
      response: { 200: listSchema(orderLineViewSchema), ...errors },
    }),
    async (request) => searchBuyerOrderLines(db, requireUser(request).id, request.query),
  );

  app.get(
    '/orders/details/:id',
    route({ access: 'session', tags, summary: 'One order (its buyer, its performer, admins)', params: idParams, response: { 200: orderSchema, ...errors } }),
    async (request) => getOrder(db, requireUser(request), request.params.id),
  );

  app.put(
    '/orders/:id/update',
    route({
      access: { roles: ['performer', 'admin'] },
      tags,
      summary: 'The performer updates delivery status and tracking code of a paid order',
      params: idParams,
      body: updateOrderBody,
      response: { 200: orderSchema, ...errors },
    }),
    async (request) => {
      const viewer = requireRole(request, 'performer', 'admin');
      const { order, mails, notified } = await db.transaction().execute((trx) => updateOrderDelivery(trx, viewer, request.params.id, request.body));
      // The buyer hears that it shipped once the change is committed.
      if (notified) await pushNotificationCount(db, app.ctx.realtime, notified);
      await sendMoneyMails(app.ctx, mails);
      return order;
    },
  );
}
