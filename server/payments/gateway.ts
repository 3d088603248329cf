import type { IncomingHttpHeaders } from 'node:http';
import { gatewaySchema, type GatewayName } from '../../common/enums.js';

/**
 * The one interface every payment provider implements (server/payments/README.md). Checkout is always hosted by
 * the provider: we create a pending payment, the provider gives a page to send the buyer to, and the result comes
 * back as a signed webhook. Nothing here touches our tables except the sandbox's own provider-side records.
 */

export type { GatewayName };
export const gatewayNames: readonly GatewayName[] = gatewaySchema.options;

/** What a provider event means for our payment, whatever the provider calls it. */
export type SettlementAction = 'paid' | 'failed' | 'cancelled' | 'refunded' | 'chargeback';

/**
 * What a provider event means for a recurring subscription (named by `subscriptionRef`), whatever the provider calls
 * it: a period charged (`renewed`: a new payment, `gatewayRef` = that charge's id, `amount`/`currency` what it took),
 * a charge that failed (`renewal_failed`: the grace period opens; the provider may retry), the provider ended the
 * recurring billing (`subscription_ended`: cancelled at the provider or retries given up; no further renewals).
 */
export type SubscriptionAction = 'renewed' | 'renewal_failed' | 'subscription_ended';

export type GatewayAction = SettlementAction | SubscriptionAction;

export const subscriptionActions: readonly SubscriptionAction[] = ['renewed', 'renewal_failed', 'subscription_ended'];

export function isSubscriptionAction(action: GatewayAction | null | undefined): action is SubscriptionAction {
  return !!action && (subscriptionActions as readonly string[]).includes(action);
}

/** A checkout that starts recurring billing: the provider charges `renewalAmount` every `periodDays` until cancelled. */
export interface RecurringTerms {
  periodDays: number;
  /** Minor units charged at each renewal (the list price the subscriber keeps; a coupon only discounts the first period). */
  renewalAmount: number;
  /**
   * A free trial: the first period lasts this many days instead of `periodDays`, and the checkout's `amount` is 0. The
   * buyer still goes through the provider (they give their payment details, which the first renewal charges), so the
   * provider must start its clock with this period, not with `periodDays`. Absent: the first period is `periodDays`.
   */
  firstPeriodDays?: number;
}

export interface CheckoutRequest {
  /** Our payment id; providers echo it back in their events (metadata / client reference). */
  paymentId: string;
  /** Minor units, what the buyer pays (after any coupon). */
  amount: number;
  /** ISO 4217, upper case. */
  currency: string;
  description: string;
  /**
   * The site's address as this buyer reached it (server/http/site-url.ts): a provider page we host ourselves (the
   * sandbox's) lives there, so the buyer keeps their session on the way.
   */
  siteUrl: string;
  /** Where the provider sends the buyer when done (our result page). */
  returnUrl: string;
  /** Where the provider sends the buyer who gives up. */
  cancelUrl: string;
  /** The provider must refuse to take the payment after this (ISO time); our stock reservation ends then. */
  expiresAt: string;
  customerEmail?: string;
  /** Present for a subscription: the provider keeps charging until it is cancelled (cancelSubscription). */
  recurring?: RecurringTerms;
}

export interface CheckoutSession {
  /** The provider's id of this checkout (unique per gateway: payments_gateway_ref_uq). */
  gatewayRef: string;
  /** The provider's hosted page. */
  redirectUrl: string;
}

/** A verified provider event, normalised. */
export interface GatewayEvent {
  /** The provider's event id: the idempotency key (webhook_events primary key with the gateway). */
  id: string;
  /** The provider's own type, stored as received. */
  type: string;
  /** What it means for the payment (or, for a SubscriptionAction, the subscription); null for events we record but do not act on. */
  action: GatewayAction | null;
  /** The provider's id of the recurring billing: on the first payment of a subscription and on every SubscriptionAction. */
  subscriptionRef?: string | null;
  /** When it happened at the provider (ISO); renewals and failures are dated by it. Absent: when we receive it. */
  occurredAt?: string | null;
  /** Our payment id when the provider echoes it. */
  paymentId?: string | null;
  gatewayRef?: string | null;
  /** The provider's charge id (Stripe PaymentIntent), for refunds and disputes that name only the charge. */
  intentRef?: string | null;
  amount?: number | null;
  currency?: string | null;
  /**
   * On a refund event: minor units refunded of that charge SO FAR, all refunds together (not this refund alone), so
   * a replayed or reordered event never counts twice and the largest seen is the truth. With `action: 'refunded'`, a
   * total below the payment's amount is a partial refund (the payment stays paid); absent, the whole payment is.
   */
  refundedAmount?: number | null;
  /**
   * On a refund event of a provider that reports each refund by itself rather than a running total (CCBill): minor
   * units of this refund alone. Only for a provider whose event id differs for every refund and repeats for every
   * delivery of one (so a redelivery is a duplicate and never counted twice); settlement adds it to what the payment
   * has refunded so far. Settled as `refundedAmount` when both are given.
   */
  refundAmount?: number | null;
  /**
   * What of the provider's body we keep in webhook_events, when it is not the body itself: a provider whose events
   * carry the buyer's personal or card data (CCBill sends names, addresses, card BIN and last digits, even a password)
   * gives a copy with only the fields the settlement reads. Absent: the raw body is kept.
   */
  storedPayload?: string;
}

/**
 * What the webhook route knows of the request besides its body and headers. Providers that sign their events (the
 * sandbox, Stripe) need neither; one that signs nothing (CCBill) checks where the request came from and reads the
 * event type from the query string.
 */
export interface WebhookRequest {
  /** The client's address as Fastify's trusted-proxy handling gives it (`request.ip`, TRUST_PROXY), never a raw header. */
  clientIp: string;
  /** The query string's parameters, as the route validated them. */
  query: Readonly<Record<string, string | undefined>>;
}

/** What the provider says about a checkout now (reconciliation). */
export interface GatewayStatus {
  state: 'pending' | SettlementAction;
  intentRef?: string | null;
  /** The recurring billing the checkout started, when it was a subscription's (see GatewayEvent.subscriptionRef). */
  subscriptionRef?: string | null;
  amount?: number | null;
  currency?: string | null;
}

export interface PaymentGateway {
  readonly name: GatewayName;
  /** Creates the provider-side checkout for a pending payment. */
  createCheckout(request: CheckoutRequest): Promise<CheckoutSession>;
  /**
   * Verifies the signature over the RAW body (with a timestamp tolerance) and parses the event. Throws
   * WebhookSignatureError (server/payments/signature.ts) when unsigned, mis-signed, stale or malformed. `request`
   * carries the client address and the query string for a provider whose events are not signed.
   */
  parseWebhook(rawBody: Buffer, headers: IncomingHttpHeaders, request?: WebhookRequest): Promise<GatewayEvent>;
  /** Re-reads a checkout from the provider (the reconciliation command). */
  retrieve(gatewayRef: string): Promise<GatewayStatus>;
  /** Closes an open checkout at the provider (our reservation expired): its hosted page stops taking payments. Best effort. */
  expireCheckout(gatewayRef: string): Promise<void>;
  /** Asks the provider to give the money back (a late payment we cannot fulfil). The result arrives as a webhook. */
  /** Asks the provider to give back `amount` (all of the payment or part of it); its webhook confirms. */
  refund(payment: { gatewayRef: string | null; intentRef: string | null; amount: number }): Promise<void>;
  /**
   * Stops the recurring billing `subscriptionRef` at the provider (the subscriber cancelled, or the grace period
   * ended): no further charge is taken. Already cancelled is not an error. Throws GatewayError when the provider
   * cannot be reached, so the caller changes nothing and the subscriber can try again.
   */
  cancelSubscription(subscriptionRef: string): Promise<void>;
}

export class GatewayError extends Error {
  constructor(
    readonly gateway: GatewayName,
    message: string,
    readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

export function isGatewayName(value: unknown): value is GatewayName {
  return typeof value === 'string' && (gatewayNames as readonly string[]).includes(value);
}
