import type { ApiApp } from '../http/types.js';
import { requireRole } from '../http/auth.js';
import { isUniqueViolation } from '../http/errors.js';
import { apiErrorSchema, listSchema } from '../../common/schemas/http.js';
import { ownPayoutsQuery, payoutBalanceSchema, payoutDetailsAnswer, payoutDetailsBody, payoutDetailsView, payoutRequestSchema } from '../../common/schemas/money.js';
import { inTransaction } from '../payments/settlement.service.js';
import {
  announcePayoutChange, getPayoutDetails, listOwnPayouts, payoutBalanceOf, payoutOpen, payoutRules, requestPayout, savePayoutDetails,
} from './payouts.service.js';
import { route } from '../http/route.js';

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema };
const tags = ['earnings'];
/** A performer's own money: no other role, admins included (they have the console's queue). */
const performerOnly = { roles: ['performer'] } as const;

/**
 * The performer's side of payouts (server/payments/README.md, "Payouts"): payout details, the balance, requests.
 * Everything here is the signed-in performer's own; nothing takes another performer's id.
 */
export async function payoutsRoutes(app: ApiApp): Promise<void> {
  const { ctx } = app;
  const { db } = ctx;
  const appSecret = ctx.config.appSecret;

  app.get(
    '/performer/payout-details',
    route({ access: performerOnly, tags, summary: 'Your payout details, masked (the last 4 characters of the account), or null', response: { 200: payoutDetailsAnswer, ...errors } }),
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return getPayoutDetails(db, appSecret, requireRole(request, 'performer').id);
    },
  );

  app.put(
    '/performer/payout-details',
    route({
      access: performerOnly,
      tags,
      summary: 'Set how you are paid: a bank transfer (holder, IBAN or account number, SWIFT/BIC or routing number, country) or PayPal (email); stored encrypted',
      description:
        'The IBAN\'s check digits, the SWIFT/BIC\'s shape and a US routing number\'s check digit are verified, and an IBAN or BIC must name the bank country. Answered masked. A payout already requested keeps the details it was requested with.',
      body: payoutDetailsBody,
      response: { 200: payoutDetailsView, ...errors },
    }),
    async (request) => savePayoutDetails(db, appSecret, requireRole(request, 'performer').id, request.body),
  );

  app.get(
    '/performer/payouts/balance',
    route({
      access: performerOnly,
      tags,
      summary: 'Your balance: pending (in the hold period), available, requested, paid and test money; the minimum, and why a payout cannot be requested now',
      response: { 200: payoutBalanceSchema, ...errors },
    }),
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return payoutBalanceOf(db, appSecret, await payoutRules(ctx.settings), requireRole(request, 'performer').id);
    },
  );

  app.get(
    '/performer/payouts',
    route({
      access: performerOnly,
      tags,
      summary: 'Your payouts, requested and paid, newest first',
      querystring: ownPayoutsQuery,
      response: { 200: listSchema(payoutRequestSchema), ...errors },
    }),
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return listOwnPayouts(db, requireRole(request, 'performer').id, request.query);
    },
  );

  app.post(
    '/performer/payouts',
    route({
      access: performerOnly,
      tags,
      summary: 'Request a payout of your whole available balance, claimed in one transaction',
      description:
        'Available: real earnings past the hold period (setting payoutHoldDays) in no other payout, less refunds. 409 PAYOUT_DETAILS_MISSING without payout details, 409 PAYOUT_OPEN while another request is open, 400 BELOW_MINIMUM under the minimum (setting payoutMinimum). Test money is never requested.',
      response: { 201: payoutRequestSchema, 409: apiErrorSchema, ...errors },
    }),
    async (request, reply) => {
      const performerId = requireRole(request, 'performer').id;
      const rules = await payoutRules(ctx.settings);
      let change;
      try {
        change = await inTransaction(db, (trx) => requestPayout(trx, appSecret, rules, performerId));
      } catch (err) {
        // A concurrent request won the one open slot (payouts_one_open_uq).
        if (isUniqueViolation(err)) throw payoutOpen();
        throw err;
      }
      await announcePayoutChange(ctx, change);
      reply.code(201);
      return change.payout;
    },
  );
}
