import { countries } from 'countries-list';
import { z } from 'zod';
import {
  deliveryStatusSchema, earningEntrySchema, earningSourceSchema, gatewaySchema, orderStatusSchema, paymentStatusSchema, paymentTypeSchema,
  payoutMethodSchema, payoutStatusSchema, productTypeSchema, subscriptionStatusSchema, subscriptionTypeSchema, tipContextTypeSchema,
} from '../enums.js';
import { TIP_NOTE_MAX } from '../tips.js';
import { bankDetailsProblems, compactAccount } from '../payout-details.js';
import { emailField } from './auth.js';
import { keyField, pageQuery } from './http.js';
import { performerSummarySchema } from './catalogue.js';
import { MAX_PROMOTION_DAYS } from '../offers.js';
import { DAY_MS } from '../time.js';

/**
 * Money: checkouts, subscriptions, coupons, orders, transactions, earnings, packages, and the payment
 * providers' webhooks and sandbox (server/payments, subscriptions, orders, coupons, earnings, packages). Amounts are
 * integer minor units (cents) in `currency`; rates are basis points (10 000 = 100 %).
 */

const money = z.number().int();
const iso = z.string().datetime({ offset: true });

/** A user as shown on a performer's subscriber list, an order or an earning. */
export const userSummarySchema = z.object({ _id: z.string(), username: z.string(), name: z.string(), avatar: z.string() });
export type UserSummary = z.output<typeof userSummarySchema>;

export const couponCodeField = z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'Letters, digits, "-" and "_" only');

// ---------------------------------------------------------------------------------------------------------------
// Checkouts

/** The answer of every checkout (`POST /payment/subscribe`, `/payment/purchase-video/{id}`, `/payment/purchase-products`): go to `redirectUrl`. */
export const checkoutSchema = z.object({
  paymentId: z.string(),
  status: z.literal('pending'),
  gateway: gatewaySchema,
  /** The provider's hosted payment page. */
  redirectUrl: z.string(),
  originalPrice: money,
  discount: money,
  amount: money,
  currency: z.string(),
  /** Unpaid after this, the checkout (and the stock it holds) expires. */
  expiresAt: z.string(),
  /** Product purchases: one order per performer. */
  orderIds: z.array(z.string()),
  /** A subscription: its first period is a free trial of this many days (amount 0), then the list price. */
  trialDays: z.number().int().nullable().optional(),
  /** A subscription: the performer's promotion that lowered its first period (instead of a typed coupon). */
  promotionId: z.string().nullable().optional(),
});
export type CheckoutResponse = z.output<typeof checkoutSchema>;

export const subscribeBody = z
  .object({
    performerId: keyField,
    type: subscriptionTypeSchema,
    /** A bundle of 3, 6 or 12 monthly periods at the performer's bundle discount (with type monthly). */
    bundleMonths: z.union([z.literal(3), z.literal(6), z.literal(12)]).optional(),
    couponCode: couponCodeField.optional(),
  })
  .refine((b) => !b.bundleMonths || b.type === 'monthly', { message: 'A bundle is made of monthly periods: type must be monthly', path: ['bundleMonths'] });
export type SubscribeRequest = z.input<typeof subscribeBody>;

/** `POST /payment/purchase-video/{id}`, `-gallery/{id}`, `-post/{id}` */
export const purchaseVideoBody = z.object({ couponCode: couponCodeField.optional() }).default({});
export type PurchaseRequest = z.input<typeof purchaseVideoBody>;

/**
 * `POST /payment/tip`: an amount of the fan's choosing (whole minor units; the site's limits are checked by the
 * server), an optional note, and where it was given (default: the performer's page). The context is a type and an
 * id so that a tip in a message or a conversation is one more type.
 */
export const tipBody = z
  .object({
    performerId: keyField,
    amount: z.number().int('A tip is a whole number of cents').positive('A tip is more than nothing'),
    note: z.string().trim().max(TIP_NOTE_MAX, `At most ${TIP_NOTE_MAX} characters`).optional(),
    context: z.object({ type: tipContextTypeSchema, id: keyField }).strict().optional(),
  })
  .strict();
export type TipRequest = z.input<typeof tipBody>;

const cartLine = z
  .object({
    /** The product id (`productId` is accepted too). */
    _id: keyField.optional(),
    productId: keyField.optional(),
    quantity: z.number().int().min(1).max(100).default(1),
  })
  .refine((l) => !!(l._id ?? l.productId), { message: 'Each item needs the product id (_id)', path: ['_id'] });
export type CartLineRequest = z.input<typeof cartLine>;

export const purchaseProductsBody = z.object({
  items: z.array(cartLine).min(1, 'The cart is empty').max(50, 'At most 50 different products per order'),
  /** Required when a physical product is in the cart. */
  shippingAddress: z.string().trim().min(5, 'Enter a full shipping address').max(500).optional(),
  couponCode: couponCodeField.optional(),
});
export type PurchaseProductsRequest = z.input<typeof purchaseProductsBody>;

/** `GET /payment/transactions`, `GET /transactions/user/search`, `GET /payment/status/{id}` */
export const transactionSchema = z.object({
  _id: z.string(),
  type: paymentTypeSchema,
  status: paymentStatusSchema,
  gateway: z.string(),
  description: z.string(),
  originalPrice: money,
  discount: money,
  amount: money,
  /** Given back of a payment that stays paid (a partial refund); 0 when none. */
  refundedAmount: money,
  currency: z.string(),
  couponCode: z.string().nullable(),
  performer: performerSummarySchema.nullable(),
  targetId: z.string().nullable(),
  /** The hosted page, while the payment is pending and its checkout open. */
  checkoutUrl: z.string().nullable(),
  expiresAt: z.string().nullable(),
  paidAt: z.string().nullable(),
  createdAt: z.string(),
});
export type TransactionItem = z.output<typeof transactionSchema>;

export const transactionQuery = pageQuery.extend({
  type: z.enum(['subscription', ...paymentTypeSchema.options]).optional(),
  status: paymentStatusSchema.optional(),
  from: iso.optional(),
  to: iso.optional(),
});

/** The sandbox provider's hosted page: the buyer's choice, and where to go next. */
export const sandboxCompleteBody = z.object({ outcome: z.enum(['approve', 'decline', 'cancel']) });
export type SandboxOutcome = z.output<typeof sandboxCompleteBody>['outcome'];
export const sandboxCompleteSchema = z.object({ status: z.string(), delivered: z.boolean(), redirectUrl: z.string() });
export type SandboxCompleteResponse = z.output<typeof sandboxCompleteSchema>;
/** The sandbox provider's back office (admins). */
export const sandboxReverseBody = z.object({ kind: z.enum(['refunded', 'chargeback']) });
export const sandboxReverseSchema = z.object({ delivered: z.boolean() });

/** `POST /payment/webhooks/{gateway}` */
export const webhookParams = z.object({ gateway: gatewaySchema });
/** CCBill names the event in the query string (`?eventType=NewSaleSuccess`); the other providers send none. */
export const webhookQuery = z.object({ eventType: z.string().trim().max(64).optional() });
export const webhookResultSchema = z.object({ received: z.literal(true), outcome: z.string() });

// ---------------------------------------------------------------------------------------------------------------
// Subscriptions and packages

/** `GET /subscriptions/current`, `/subscriptions/user/search`, `/subscriptions/performer/search` */
export const subscriptionSchema = z.object({
  _id: z.string(),
  userId: z.string(),
  performerId: z.string(),
  user: userSummarySchema.nullable(),
  performer: performerSummarySchema.nullable(),
  type: subscriptionTypeSchema,
  /** A bundle of this many monthly periods paid at once (3, 6 or 12), renewing as one; null for a plain plan. */
  bundleMonths: z.number().int().nullable(),
  /** 'active' while it opens content (also after a cancellation, until `expiresAt`). */
  status: subscriptionStatusSchema,
  /** True while it opens the performer's subscriber content. */
  isLive: z.boolean(),
  cancelAtPeriodEnd: z.boolean(),
  startedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  cancelledAt: z.string().nullable(),
  createdAt: z.string(),
  /** The provider charges the next period at `expiresAt` (false: prepaid, cancelled, or lapsed). */
  autoRenew: z.boolean(),
  /** When and how much the next renewal charges (null when it will not renew). */
  nextBillingAt: z.string().nullable(),
  renewalAmount: z.number().int().nullable(),
  renewalCurrency: z.string().nullable(),
  /** The last renewal failed: the provider retries until `graceUntil`, then the subscription lapses. */
  renewalFailedAt: z.string().nullable(),
  graceUntil: z.string().nullable(),
});
export type SubscriptionItem = z.output<typeof subscriptionSchema>;

/** A performer's subscribers by state (the studio's subscribers page). */
export const subscriberStatsSchema = z.object({
  /** Subscriptions open now. */
  live: z.number().int(),
  /** Of the live ones: renewing at the end of their period. */
  renewing: z.number().int(),
  /** Of the live ones: cancelled, open until their period ends. */
  cancelled: z.number().int(),
  /** Renewal failed, retried within the grace period (closed meanwhile). */
  inGrace: z.number().int(),
});
export type SubscriberStats = z.output<typeof subscriberStatsSchema>;

export const subscriptionListQuery = pageQuery.extend({
  status: z.enum(['live', 'active', 'cancelled', 'expired', 'all']).default('all'),
});

/** `POST /subscriptions/cancel` */
export const cancelSubscriptionBody = z.object({ subscriptionId: keyField.optional(), performerId: keyField.optional() }).refine((b) => !!(b.subscriptionId || b.performerId), {
  message: 'Send subscriptionId or performerId',
});

/** `GET /package/subscription/search` */
export const packageSchema = z.object({
  _id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  type: z.string(),
  price: z.number().int(),
  durationDays: z.number().int(),
  ordering: z.number().int(),
});
export type SubscriptionPackageItem = z.output<typeof packageSchema>;
export const packageSearchQuery = pageQuery.extend({ type: subscriptionTypeSchema.optional() });

// ---------------------------------------------------------------------------------------------------------------
// Coupons

/** `POST /coupons/{code}/apply-coupon` */
export const couponViewSchema = z.object({
  _id: z.string(),
  code: z.string(),
  name: z.string(),
  valueBps: z.number().int(),
  /** The same rate as a fraction: price = original × (1 − value). */
  value: z.number(),
  expiresAt: z.string().nullable(),
  usesLeft: z.number().int(),
});
export type CouponView = z.output<typeof couponViewSchema>;

export const couponParams = z.object({ id: couponCodeField });
export const applyCouponBody = z
  .object({
    items: z.array(z.object({ _id: keyField, quantity: z.number().int().min(1).max(100).default(1) })).max(50).optional(),
    amount: z.number().int().min(0).max(100_000_000).optional(),
  })
  .optional();
export type ApplyCouponRequest = z.input<typeof applyCouponBody>;
/** `originalPrice`, `discount` and `price` are there when items or an amount were sent. */
export const applyCouponSchema = z.object({ coupon: couponViewSchema, originalPrice: z.number().int().optional(), discount: z.number().int().optional(), price: z.number().int().optional() });
export type ApplyCouponResponse = z.output<typeof applyCouponSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Orders

export const orderLineSchema = z.object({
  _id: z.string(),
  productId: z.string(),
  name: z.string(),
  productType: productTypeSchema,
  quantity: z.number().int(),
  unitPrice: money,
  /** After the coupon. */
  totalPrice: money,
});
export type OrderLine = z.output<typeof orderLineSchema>;

/** `GET /orders/users/search`, `/orders/details/search`, `/orders/details/{id}` */
export const orderSchema = z.object({
  _id: z.string(),
  orderNumber: z.string(),
  paymentId: z.string(),
  buyer: userSummarySchema.nullable(),
  performer: performerSummarySchema.nullable(),
  status: orderStatusSchema,
  deliveryStatus: deliveryStatusSchema,
  shippingAddress: z.string().nullable(),
  trackingCode: z.string().nullable(),
  totalPrice: money,
  currency: z.string(),
  items: z.array(orderLineSchema),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type OrderView = z.output<typeof orderSchema>;

/** `GET /orders/users/details/search`: one line of one of the buyer's orders. */
export const orderLineViewSchema = orderLineSchema.extend({
  orderId: z.string(),
  orderNumber: z.string(),
  status: orderStatusSchema,
  deliveryStatus: deliveryStatusSchema,
  performer: performerSummarySchema.nullable(),
  createdAt: z.string(),
});
export type OrderLineView = z.output<typeof orderLineViewSchema>;

export const orderListQuery = pageQuery.extend({
  status: orderStatusSchema.optional(),
  deliveryStatus: deliveryStatusSchema.optional(),
  q: z.string().trim().min(1).max(40).optional(),
});
export const orderLineListQuery = pageQuery.extend({ status: orderStatusSchema.optional(), productType: productTypeSchema.optional() });

/** `PUT /orders/{id}/update` */
export const updateOrderBody = z
  .object({
    deliveryStatus: deliveryStatusSchema.optional(),
    trackingCode: z.string().trim().max(100).nullable().optional(),
  })
  .refine((b) => b.deliveryStatus !== undefined || b.trackingCode !== undefined, { message: 'Send deliveryStatus or trackingCode' });
export type UpdateOrderRequest = z.input<typeof updateOrderBody>;

// ---------------------------------------------------------------------------------------------------------------
// Earnings

/** `GET /earning/performer/search` */
export const earningSchema = z.object({
  _id: z.string(),
  paymentId: z.string(),
  performerId: z.string(),
  user: userSummarySchema.nullable(),
  sourceType: z.string(),
  /** 'reversal' rows are negative (refund, chargeback). */
  entry: earningEntrySchema,
  gross: money,
  commission: money,
  net: money,
  commissionBps: z.number().int(),
  isPaid: z.boolean(),
  /** Credited by the sandbox gateway: test money, never paid out. */
  test: z.boolean(),
  /** A tip's earning: where it was given (its title and page when a post or a video) and the fan's note. */
  tip: z
    .object({ note: z.string().nullable(), contextType: tipContextTypeSchema.nullable(), contextId: z.string().nullable(), contextTitle: z.string().nullable(), contextUrl: z.string().nullable() })
    .nullable()
    .optional(),
  createdAt: z.string(),
});
export type EarningItem = z.output<typeof earningSchema>;

export const earningQuery = pageQuery.extend({
  sourceType: earningSourceSchema.optional(),
  entry: earningEntrySchema.optional(),
  from: iso.optional(),
  to: iso.optional(),
  performerId: keyField.optional(),
});

const totals = z.object({ gross: money, commission: money, net: money, count: z.number().int() });
export type EarningTotals = z.output<typeof totals>;
/** `GET /earning/performer/stats` */
export const earningStatsSchema = z.object({
  currency: z.string(),
  from: z.string(),
  to: z.string(),
  /** unpaid: what is still owed (real money only); test: net of sandbox earnings, never paid out. */
  totals: totals.extend({ paid: money, unpaid: money, test: money }),
  bySource: z.array(totals.extend({ sourceType: z.string() })),
  /** One point per day with earnings, oldest first (ISO date). */
  series: z.array(totals.extend({ date: z.string() })),
});
export type EarningStats = z.output<typeof earningStatsSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Payouts (server/payments/README.md, "Payouts")

const COUNTRY = 'Choose the bank\'s country (a two-letter code such as "DE" or "US")';

const bankDetailsBody = z
  .object({
    method: z.literal('bank'),
    accountHolder: z
      .string({ error: 'Enter the account holder\'s name' })
      .trim()
      .min(2, 'Enter the account holder\'s name as the bank knows it')
      .max(100, 'The account holder\'s name must be at most 100 characters')
      .refine((v) => /\p{L}/u.test(v) && !/[\p{Cc}<>]/u.test(v), 'Enter the account holder\'s name as the bank knows it'),
    /** An IBAN, or a domestic account number. Spaces and dashes are dropped. */
    accountNumber: z.string({ error: 'Enter the IBAN or account number' }).max(60, 'The account number is too long').transform(compactAccount),
    /** A SWIFT/BIC, or a routing number or sort code; may be left out with an IBAN. */
    bankCode: z
      .string()
      .max(20, 'The bank code is too long')
      .nullish()
      .transform((v) => (v ? compactAccount(v) || null : null)),
    bankCountry: z
      .string({ error: COUNTRY })
      .trim()
      .toUpperCase()
      .refine((c) => /^[A-Z]{2}$/.test(c) && Object.hasOwn(countries, c), COUNTRY),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (!/^[A-Z]{2}$/.test(b.bankCountry) || !Object.hasOwn(countries, b.bankCountry)) return;
    for (const [field, message] of Object.entries(bankDetailsProblems(b))) ctx.addIssue({ code: 'custom', path: [field], message });
  });

const paypalDetailsBody = z.object({ method: z.literal('paypal'), paypalEmail: emailField }).strict();

/** `PUT /performer/payout-details`: how the performer is paid, a bank transfer or PayPal. */
export const payoutDetailsBody = z.discriminatedUnion('method', [bankDetailsBody, paypalDetailsBody], { error: 'Choose "bank" or "paypal" as the method' });
export type PayoutDetailsInput = z.output<typeof payoutDetailsBody>;
export type PayoutDetailsChanges = z.input<typeof payoutDetailsBody>;

/** Payout details as shown back: the account's last 4 characters only, a PayPal address's domain and first letter. */
export const payoutAccountSchema = z.object({
  method: payoutMethodSchema,
  /** Bank: the account holder; PayPal: null. */
  accountHolder: z.string().nullable(),
  /** Bank: "•••• 3000" (IBAN or account number); PayPal: "m••••@example.com". */
  account: z.string(),
  /** Bank: the SWIFT/BIC, routing number or sort code (public numbers that name the bank, not the account). */
  bankCode: z.string().nullable(),
  bankCountry: z.string().nullable(),
});
export type PayoutAccount = z.output<typeof payoutAccountSchema>;
export const payoutDetailsView = payoutAccountSchema.extend({ updatedAt: z.string() });
export type PayoutDetailsView = z.output<typeof payoutDetailsView>;
/** `GET /performer/payout-details`: null until the performer saves some. */
export const payoutDetailsAnswer = z.object({ details: payoutDetailsView.nullable() });
export type PayoutDetailsAnswer = z.output<typeof payoutDetailsAnswer>;

/** A payout as its performer sees it. */
export const payoutRequestSchema = z.object({
  _id: z.string(),
  performerId: z.string(),
  status: payoutStatusSchema,
  amount: money,
  currency: z.string(),
  earningsCount: z.number().int(),
  /** Where it goes (masked), as the details were when it was requested; null for a payout an admin recorded directly. */
  account: payoutAccountSchema.nullable(),
  /** The transfer's reference, once paid. */
  reference: z.string().nullable(),
  /** Why it was rejected. */
  reason: z.string().nullable(),
  note: z.string().nullable(),
  createdAt: z.string(),
  approvedAt: z.string().nullable(),
  paidAt: z.string().nullable(),
  rejectedAt: z.string().nullable(),
});
export type PayoutRequest = z.output<typeof payoutRequestSchema>;

/** Why a payout cannot be requested now: no payout details, a request still open, or less available than the minimum. */
export const payoutBlockSchema = z.enum(['details', 'open', 'minimum']);
export type PayoutBlock = z.output<typeof payoutBlockSchema>;

/** `GET /performer/payouts/balance` */
export const payoutBalanceSchema = z.object({
  currency: z.string(),
  /** Real earnings still in their hold period. */
  pending: money,
  /** What a request would claim now: real earnings past the hold, less refunds; negative after a refund of paid money. */
  available: money,
  /** In the open request (requested or approved). */
  requested: money,
  paid: money,
  /** Sandbox earnings: test money, never paid out. */
  test: money,
  holdDays: z.number().int(),
  minimum: money,
  hasDetails: z.boolean(),
  openRequest: payoutRequestSchema.nullable(),
  /** Null when a request can be made now. */
  blocked: payoutBlockSchema.nullable(),
});
export type PayoutBalance = z.output<typeof payoutBalanceSchema>;

export const ownPayoutsQuery = pageQuery.omit({ cursor: true });

// Offers (server/payments/README.md, "Offers"): what the paywall shows, the performer's promotions.

const bundleMonthsSchema = z.literal([3, 6, 12]);

/** One plan on the paywall, as the checkout would charge it to the viewer. */
export const planOfferSchema = z.object({
  type: subscriptionTypeSchema,
  bundleMonths: bundleMonthsSchema.nullable(),
  /** Every period's price (the renewals'). */
  price: money,
  periodDays: z.number().int(),
  /** A bundle's saving against as many monthly periods, basis points. */
  discountBps: z.number().int().nullable(),
  /** What the checkout charges now: 0 for a trial, the promotion's price, else `price`. */
  firstPrice: money,
  trialDays: z.number().int().nullable(),
  promotion: z.object({ _id: z.string(), valueBps: z.number().int(), endsAt: z.string().nullable(), left: z.number().int().nullable() }).nullable(),
});
export type PlanOffer = z.output<typeof planOfferSchema>;

export const subscriptionOfferSchema = z.object({
  /** The monthly and yearly list prices (null: not for sale), as before the offers. */
  monthly: money.nullable(),
  yearly: money.nullable(),
  plans: z.array(planOfferSchema),
});
export type SubscriptionOffer = z.output<typeof subscriptionOfferSchema>;

const PROMOTION_MAX_BPS = 9000;
/** `POST /performer/promotions`: a time-limited discount of new subscribers' first period. */
export const promotionBody = z
  .object({
    valueBps: z.number().int().min(100, 'At least 1 %').max(PROMOTION_MAX_BPS, 'At most 90 %'),
    startsAt: iso,
    endsAt: iso,
    /** How many new subscribers may get it (none: no limit). */
    maxUses: z.number().int().min(1).max(100_000).nullable().optional(),
  })
  .refine((b) => Date.parse(b.endsAt) > Date.parse(b.startsAt), { message: 'The end must come after the start', path: ['endsAt'] })
  .refine((b) => Date.parse(b.endsAt) - Date.parse(b.startsAt) <= MAX_PROMOTION_DAYS * DAY_MS, { message: `A promotion runs at most ${MAX_PROMOTION_DAYS} days`, path: ['endsAt'] });
export type PromotionInput = z.input<typeof promotionBody>;

export const promotionSchema = z.object({
  _id: z.string(),
  valueBps: z.number().int(),
  startsAt: z.string().nullable(),
  endsAt: z.string().nullable(),
  maxUses: z.number().int().nullable(),
  usedCount: z.number().int(),
  /** scheduled (not started), running, ended (its end passed, used up, or ended by the performer). */
  state: z.enum(['scheduled', 'running', 'ended']),
  createdAt: z.string(),
});
export type Promotion = z.output<typeof promotionSchema>;
