import type { ApiApp } from '../http/types.js';
import { AppError } from '../http/errors.js';
import { apiErrorSchema } from '../../common/schemas/http.js';
import { webhookParams, webhookQuery, webhookResultSchema } from '../../common/schemas/money.js';
import type { Money } from './money.js';
import { applyGatewayEvent } from './settlement.service.js';
import { WebhookSignatureError } from './signature.js';
import { route } from '../http/route.js';

export const WEBHOOK_BODY_LIMIT = 256 * 1024;

/**
 * POST /payment/webhooks/{gateway}: the providers' signed events (server/payments/README.md).
 *
 *  1. the body is kept as the raw bytes (this plugin's own content-type parser; the rest of the API parses JSON);
 *  2. the gateway verifies the signature over those bytes, with a timestamp tolerance: unsigned, mis-signed, stale
 *     or malformed → 400 INVALID_SIGNATURE and nothing is written. A provider that signs nothing (CCBill) is judged
 *     by the client address (`request.ip`: Fastify's trusted-proxy handling, TRUST_PROXY) and reads its event type
 *     from the query string, both handed to the gateway;
 *  3. the event id is recorded under its unique key and the event applied in ONE transaction (settlement.service.ts,
 *     which dispatches by event type through its transition table); a duplicate answers 200 and changes nothing;
 *  4. after the commit, the buyer's browsers are told (payment/success, subscription/success).
 */
export async function webhookRoutes(app: ApiApp, opts: { money: Money }): Promise<void> {
  const { money } = opts;
  // Scoped to this plugin: whatever the content type, the handler gets the exact bytes that were signed.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body));

  app.post(
    '/payment/webhooks/:gateway',
    {
      ...route({
        access: 'signed',
        tags: ['payments'],
        summary: 'Payment provider webhooks (sandbox, stripe, ccbill): verified over the raw body (ccbill: by sender address and sale digest), idempotent by event id',
        // Any content type is read (the parser above), so no 415: the OpenAPI document reads this (server/http/openapi.ts).
        consumes: ['*/*'],
        params: webhookParams,
        querystring: webhookQuery,
        response: { 200: webhookResultSchema, 400: apiErrorSchema, 409: apiErrorSchema, 413: apiErrorSchema },
      }),
      bodyLimit: WEBHOOK_BODY_LIMIT,
    },
    async (request) => {
      const raw = request.body;
      if (!Buffer.isBuffer(raw) || raw.length === 0) throw new AppError(400, 'INVALID_SIGNATURE', 'Empty webhook body');
      const name = request.params.gateway;
      const gateway = await money.gateway(name);
      let event;
      try {
        event = await gateway.parseWebhook(raw, request.headers, { clientIp: request.ip, query: request.query });
      } catch (err) {
        if (err instanceof WebhookSignatureError) {
          request.log.warn({ gateway: name, reason: err.message }, 'webhook rejected');
          throw new AppError(400, 'INVALID_SIGNATURE', err.message);
        }
        throw err;
      }
      const result = await applyGatewayEvent(money.settlement, name, event, event.storedPayload ?? raw.toString('utf8'));
      await money.afterCommit(result.effects);
      request.log.info({ gateway: name, eventId: event.id, type: event.type, outcome: result.outcome, paymentId: result.paymentId }, 'webhook handled');
      return { received: true as const, outcome: result.outcome };
    },
  );
}
