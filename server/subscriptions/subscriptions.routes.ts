import type { ApiApp } from '../http/types.js';
import { requireRole, requireUser } from '../http/auth.js';
import { apiErrorSchema, idParams, keyField, listSchema, pageQuery } from '../../common/schemas/http.js';
import { z } from 'zod';
import { cancelSubscriptionBody, subscriberStatsSchema, subscriptionListQuery, subscriptionSchema } from '../../common/schemas/money.js';
import { cancelSubscription, searchSubscriptions, subscriberStats } from './subscriptions.service.js';
import type { Money } from '../payments/money.js';
import { route } from '../http/route.js';

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema };
const cancelErrors = { ...errors, 502: apiErrorSchema };
const tags = ['subscriptions'];

export async function subscriptionsRoutes(app: ApiApp, opts: { money: Money }): Promise<void> {
  const { db } = app.ctx;
  const { money } = opts;

  app.get(
    '/subscriptions/current',
    route({
      access: 'session',
      tags,
      summary: "The signed-in user's live subscriptions (optionally: to one performer)",
      querystring: pageQuery.extend({ performerId: keyField.optional() }),
      response: { 200: listSchema(subscriptionSchema), ...errors },
    }),
    async (request) => {
      const user = requireUser(request);
      return searchSubscriptions(db, { userId: user.id, performerId: request.query.performerId, status: 'live', limit: request.query.limit, offset: request.query.offset });
    },
  );

  app.get(
    '/subscriptions/user/search',
    route({
      access: 'session',
      tags,
      summary: "The signed-in user's subscriptions",
      querystring: subscriptionListQuery.extend({ performerId: keyField.optional() }),
      response: { 200: listSchema(subscriptionSchema), ...errors },
    }),
    async (request) => searchSubscriptions(db, { ...request.query, userId: requireUser(request).id }),
  );

  app.get(
    '/subscriptions/performer/search',
    route({
      access: { roles: ['performer', 'admin'] },
      tags,
      summary: "A performer's subscribers (performers: their own; admins: any performerId)",
      querystring: subscriptionListQuery.extend({ performerId: keyField.optional() }),
      response: { 200: listSchema(subscriptionSchema), ...errors },
    }),
    async (request) => {
      const user = requireRole(request, 'performer', 'admin');
      const performerId = user.role === 'admin' && request.query.performerId ? request.query.performerId : user.id;
      return searchSubscriptions(db, { ...request.query, performerId });
    },
  );

  app.get(
    '/subscriptions/performer/stats',
    route({
      access: { roles: ['performer', 'admin'] },
      tags,
      summary: "A performer's subscribers by state: live, of them renewing and cancelled, and renewals in their grace period (admins: any performerId)",
      querystring: z.object({ performerId: keyField.optional() }),
      response: { 200: subscriberStatsSchema, ...errors },
    }),
    async (request) => {
      const user = requireRole(request, 'performer', 'admin');
      return subscriberStats(db, user.role === 'admin' && request.query.performerId ? request.query.performerId : user.id);
    },
  );

  app.post(
    '/subscriptions/cancel/:id',
    route({ access: 'session', tags, summary: 'Cancel a subscription at the end of its paid period', params: idParams, response: { 200: subscriptionSchema, ...cancelErrors } }),
    async (request) => cancelSubscription(money, requireUser(request), { id: request.params.id }),
  );

  app.post(
    '/subscriptions/cancel',
    route({
      access: 'session',
      tags,
      summary: 'Cancel a subscription at the end of its paid period, named by subscriptionId or performerId',
      body: cancelSubscriptionBody,
      response: { 200: subscriptionSchema, ...cancelErrors },
    }),
    async (request) => cancelSubscription(money, requireUser(request), { id: request.body.subscriptionId, performerId: request.body.performerId }),
  );
}
