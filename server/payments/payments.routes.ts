import type { ApiApp } from '../http/types.js';
import { requireRole, requireUser } from '../http/auth.js';
import { apiErrorSchema, idParams, listSchema } from '../../common/schemas/http.js';
import { AppError, notFound } from '../http/errors.js';
import { limiter } from '../http/rate-limit.js';
import type { Money } from './money.js';
import { checkoutGallery, checkoutMessage, checkoutPost, checkoutProducts, checkoutSubscription, checkoutVideo } from './checkout.service.js';
import { visitorSiteUrl } from '../http/site-url.js';
import { buyersSandboxCheckout, paymentStatus, userTransactions } from './transactions.service.js';
import { audienceOf } from '../catalogue/catalogue.repository.js';
import {
  checkoutSchema, purchaseProductsBody, purchaseVideoBody, sandboxCompleteBody, sandboxCompleteSchema, sandboxReverseBody, sandboxReverseSchema,
  subscribeBody, tipBody, transactionQuery, transactionSchema,
} from '../../common/schemas/money.js';
import { checkoutTip } from '../tips/tips.service.js';
import { route } from '../http/route.js';

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema, 409: apiErrorSchema, 429: apiErrorSchema, 502: apiErrorSchema };
const tags = ['payments'];

/**
 * Checkouts (subscribe, buy a video or a post, buy the cart), the buyer's transactions, and the sandbox provider's hosted
 * page actions. A checkout answers 201 with the provider's page to send the buyer to; the payment changes only
 * when the provider's signed webhook arrives (server/payments/webhooks.routes.ts).
 */
export async function paymentsRoutes(app: ApiApp, opts: { money: Money }): Promise<void> {
  const { money } = opts;
  const { db } = app.ctx;
  // A checkout writes rows and may call the provider: a bound per user keeps a script from filling the tables.
  // Where the provider sends this buyer back: PUBLIC_URL, else the host they are on when it names this machine.
  const siteUrl = (request: { protocol: string; host: string }) => visitorSiteUrl(request, app.ctx.config);
  const perUser = limiter(app, 'checkout-user', { max: 30, windowSec: 60 }, (r) => r.user?.id, 'Too many checkouts, please wait a minute');

  app.post(
    '/payment/subscribe',
    {
      ...route({
        access: 'session',
        tags,
        summary: 'Subscribe to a performer (monthly or yearly): creates a pending payment and the hosted checkout',
        body: subscribeBody,
        response: { 201: checkoutSchema, ...errors },
      }),
      preHandler: perUser,
    },
    async (request, reply) => {
      const result = await checkoutSubscription(money, requireUser(request), audienceOf(request.user, request.country), request.body, siteUrl(request));
      return reply.status(201).send(result);
    },
  );

  app.post(
    '/payment/purchase-video/:id',
    {
      ...route({ access: 'session', tags, summary: 'Buy a video that is for sale', params: idParams, body: purchaseVideoBody, response: { 201: checkoutSchema, ...errors } }),
      preHandler: perUser,
    },
    async (request, reply) => {
      const result = await checkoutVideo(money, requireUser(request), audienceOf(request.user, request.country), request.params.id, request.body ?? {}, siteUrl(request));
      return reply.status(201).send(result);
    },
  );

  app.post(
    '/payment/purchase-gallery/:id',
    {
      ...route({
        access: 'session',
        tags,
        summary: 'Buy a gallery that is for sale: its photos open in full once paid',
        params: idParams,
        body: purchaseVideoBody,
        response: { 201: checkoutSchema, ...errors },
      }),
      preHandler: perUser,
    },
    async (request, reply) => {
      const result = await checkoutGallery(money, requireUser(request), audienceOf(request.user, request.country), request.params.id, request.body ?? {}, siteUrl(request));
      return reply.status(201).send(result);
    },
  );

  app.post(
    '/payment/purchase-post/:id',
    {
      ...route({
        access: 'session',
        tags,
        summary: "Buy a performer's pay-per-view post (its pictures and video open when paid)",
        params: idParams,
        body: purchaseVideoBody,
        response: { 201: checkoutSchema, ...errors },
      }),
      preHandler: perUser,
    },
    async (request, reply) => {
      const result = await checkoutPost(money, requireUser(request), audienceOf(request.user, request.country), request.params.id, request.body ?? {}, siteUrl(request));
      return reply.status(201).send(result);
    },
  );

  app.post(
    '/payment/purchase-message/:id',
    {
      ...route({
        access: 'session',
        tags,
        summary: 'Unlock a paid direct message you received: its pictures and videos open when paid',
        description:
          '404 for anyone but the two participants of its conversation, 400 for its sender or a message without a price, 409 ALREADY_PURCHASED ' +
          'when bought already, 403 PERFORMER_NOT_APPROVED. Settled like any sale (server/payments/README.md).',
        params: idParams,
        body: purchaseVideoBody,
        response: { 201: checkoutSchema, ...errors },
      }),
      preHandler: perUser,
    },
    async (request, reply) => {
      const result = await checkoutMessage(money, requireUser(request), request.params.id, request.body ?? {}, siteUrl(request));
      return reply.status(201).send(result);
    },
  );

  app.post(
    '/payment/purchase-products',
    {
      ...route({
        access: 'session',
        tags,
        summary: 'Buy the cart: products with quantities, a shipping address when a physical product is in it; stock is held until paid or expired',
        body: purchaseProductsBody,
        response: { 201: checkoutSchema, ...errors },
      }),
      preHandler: perUser,
    },
    async (request, reply) => {
      const body = request.body;
      const result = await checkoutProducts(money, requireUser(request), audienceOf(request.user, request.country), {
        items: body.items.map((i) => ({ productId: (i._id ?? i.productId)!, quantity: i.quantity })),
        shippingAddress: body.shippingAddress,
        couponCode: body.couponCode,
      }, siteUrl(request));
      return reply.status(201).send(result);
    },
  );

  app.post(
    '/payment/tip',
    {
      ...route({
        access: 'session',
        tags,
        summary: 'Tip a performer an amount within the site\'s limits, with an optional note, on their page, a post or a video: creates a pending payment and the hosted checkout',
        description:
          'The amount is whole minor units between the settings tipMinimum and tipMaximum (400 TIP_TOO_SMALL / TIP_TOO_LARGE). 400 CANNOT_TIP_SELF for oneself, 404 for a performer or a context the caller cannot see, 403 PERFORMER_NOT_APPROVED, 403 BLOCKED_BY_PERFORMER when the performer blocked the caller, 400 TIP_CONTEXT_MISMATCH for a post or video of another performer. Settled like any payment (server/payments/README.md, "Tips").',
        body: tipBody,
        response: { 201: checkoutSchema, ...errors },
      }),
      preHandler: perUser,
    },
    async (request, reply) => {
      const result = await checkoutTip(money, requireUser(request), audienceOf(request.user, request.country), request.body, siteUrl(request));
      return reply.status(201).send(result);
    },
  );

  for (const path of ['/payment/transactions', '/transactions/user/search']) {
    app.get(
      path,
      route({
        access: 'session',
        tags,
        summary: path === '/payment/transactions' ? "The signed-in user's payments, newest first" : "Search the signed-in user's payments (type, status, from, to)",
        querystring: transactionQuery,
        response: { 200: listSchema(transactionSchema), ...errors },
      }),
      async (request) => userTransactions(db, requireUser(request).id, request.query),
    );
  }

  app.get(
    '/payment/status/:id',
    route({ access: 'session', tags, summary: 'One payment of the signed-in user (the result page polls it)', params: idParams, response: { 200: transactionSchema, ...errors } }),
    async (request) => paymentStatus(db, requireUser(request), request.params.id),
  );

  // -- the sandbox provider's hosted page and back office ------------------------------------------------------------

  app.post(
    '/payment/sandbox/:id/complete',
    route({
      access: 'session',
      tags,
      summary: "Sandbox provider: the buyer approves, declines or cancels on the hosted page; the provider then posts a signed webhook",
      params: idParams,
      body: sandboxCompleteBody,
      response: { 200: sandboxCompleteSchema, ...errors },
    }),
    async (request) => {
      const user = requireUser(request);
      const sandbox = money.sandbox();
      const checkout = await buyersSandboxCheckout(db, sandbox, request.params.id, user.id);
      if (!checkout) throw notFound('Checkout');
      const { charge } = checkout;
      const result = await sandbox.complete(charge.id, request.body.outcome);
      if (!result.changed) {
        if (result.charge.status === 'pending') throw new AppError(409, 'CHECKOUT_EXPIRED', 'This checkout has expired', { redirectUrl: charge.returnUrl });
        throw new AppError(409, 'CHECKOUT_COMPLETED', 'This checkout is already completed', { redirectUrl: charge.returnUrl });
      }
      const redirectUrl = request.body.outcome === 'cancel' ? `${charge.returnUrl}?cancelled=1` : charge.returnUrl;
      return { status: result.charge.status, delivered: result.delivered, redirectUrl };
    },
  );

  app.post(
    '/payment/sandbox/:id/reverse',
    route({
      access: { roles: ['admin'] },
      tags,
      summary: "Sandbox provider's back office (admins): refund or charge back a paid charge; the provider posts the webhook",
      params: idParams,
      body: sandboxReverseBody,
      response: { 200: sandboxReverseSchema, ...errors },
    }),
    async (request) => {
      requireRole(request, 'admin');
      const sandbox = money.sandbox();
      const charge = await sandbox.charge(request.params.id);
      if (!charge) throw notFound('Charge');
      const moved = await sandbox.reverse(charge.id, request.body.kind);
      if (!moved && (await sandbox.charge(charge.id))?.status !== request.body.kind) {
        throw new AppError(409, 'NOT_REVERSIBLE', `A ${charge.status} charge cannot be ${request.body.kind === 'refunded' ? 'refunded' : 'charged back'}`);
      }
      return { delivered: moved };
    },
  );
}
