import { randomBytes } from 'node:crypto';
import type { Insertable, Transaction } from 'kysely';
import { newId, nowIso } from '../db/ids.js';
import type { Database, OrderItemsTable, PaymentItemsTable, PaymentsTable } from '../db/schema.js';
import { AppError, badRequest, notFound } from '../http/errors.js';
import type { SessionUser } from '../auth/auth.service.js';
import { couponMessages, validCoupon } from '../coupons/coupons.service.js';
import { reserveCouponUse, runningPromotions, type CouponRow } from '../coupons/coupons.repository.js';
import { insertOrder } from '../orders/orders.repository.js';
import { findVideoByKey } from '../videos/videos.repository.js';
import { findPostByKey } from '../posts/posts.repository.js';
import { findGalleryByKey } from '../galleries/galleries.repository.js';
import { findMessage, performerNameOf } from '../messages/messages.repository.js';
import type { Audience } from '../catalogue/catalogue.repository.js';
import {
  activePackages, ensureSubscriptionRow, everSubscribed, findPerformerForSale, findSubscription, holdSubscriptionRow, isLive,
} from '../subscriptions/subscriptions.repository.js';
import { listPrices, subscriptionPrice } from '../subscriptions/subscriptions.service.js';
import { assertNotBlocked } from '../blocks/blocks.service.js';
import { betterDiscount, firstPeriod, planTerms, type PlanTerms } from '../subscriptions/offers.js';
import type { BundleMonths } from '../../common/offers.js';
import type { Money } from './money.js';
import type { RecurringTerms } from './gateway.js';
import { hasEntitlement, performersNotSelling, productsForSale } from './fulfilment.repository.js';
import { insertPayment, setCheckout, unitsHeldByBuyer, type PaymentType } from './payments.repository.js';
import { priceLines, type Priced } from './pricing.js';
import { applyInternal, inTransaction, takeAllStock } from './settlement.service.js';
import { sweepExpiredCheckouts } from './maintenance.service.js';
import { assertSandboxEnabled } from './gateways.js';
import type { CheckoutResponse } from '../../common/schemas/money.js';
import type { PaymentItemObjectType, ProductType, SubscriptionType } from '../../common/enums.js';

/**
 * Checkout: validate and price what is bought, then in ONE transaction create the pending payment, its items,
 * the orders (products) or the subscription row, and TAKE THE STOCK of physical items (conditional UPDATE,
 * stock >= quantity, so two buyers of the last item cannot both get it). The reservation lasts until the payment
 * is paid (kept), fails or is cancelled (given back), or its checkout expires (given back by the sweep); see
 * server/payments/README.md. Only then the provider's hosted checkout is created (network, outside the transaction).
 */

type Trx = Transaction<Database>;

export interface DraftLine {
  objectType: PaymentItemObjectType;
  objectId: string;
  performerId: string;
  unitPrice: number;
  quantity: number;
  name: string;
  productType?: ProductType;
}

export interface Draft {
  type: PaymentType;
  performerId: string | null;
  targetId: string | null;
  description: string;
  lines: DraftLine[];
  couponCode?: string | null;
  shippingAddress?: string | null;
  details?: Record<string, unknown>;
  /** A subscription: the provider charges again every period until cancelled (renewals at the list price). */
  recurring?: RecurringTerms;
  /**
   * The discount chosen before the checkout (a subscription's: the fan's code or the performer's promotion, the
   * better one); its use is reserved like any coupon's. Wins over `couponCode`.
   */
  coupon?: CouponRow | null;
  /** `coupon` is the performer's promotion: running out answers 409 PROMOTION_ENDED rather than a coupon's message. */
  promotion?: boolean;
  /** A free trial: the checkout is for 0 (the buyer still goes through the provider, which bills the renewals). */
  free?: boolean;
  /** Checks in the checkout transaction, after the coupon's use is taken (lock order: coupon → subscription). */
  guard?: (trx: Trx, gateway: string) => Promise<void>;
  /** Extra writes in the checkout transaction. */
  extra?: (trx: Trx, paymentId: string, gateway: string) => Promise<void>;
}

export const MAX_CART_LINES = 50;
export const MAX_QUANTITY = 100;

function orderNumber(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const bytes = randomBytes(10);
  let out = '';
  for (const b of bytes) out += alphabet[b % alphabet.length];
  return `ORD-${out}`;
}

/**
 * The pending payment and its items as a checkout writes them. Also how the demo seed writes its demo fans' payments
 * (server/seed/audience.ts), so they are the rows a real checkout leaves.
 */
export function checkoutRows(p: {
  paymentId: string;
  userId: string;
  draft: Draft;
  priced: Priced<DraftLine>;
  gateway: string;
  currency: string;
  coupon: { id: string; code: string } | null;
  now: string;
  expiresAt: string;
  /** The checkout took the stock of physical items (payments.stock_held). */
  holdsStock: boolean;
}): { payment: Insertable<PaymentsTable>; items: Array<Insertable<PaymentItemsTable>> } {
  const { paymentId, draft, priced, coupon, now } = p;
  const items: Array<Insertable<PaymentItemsTable>> = priced.lines.map((l) => ({
    id: newId(), paymentId, objectType: l.line.objectType, objectId: l.line.objectId, performerId: l.line.performerId,
    quantity: l.line.quantity, unitPrice: l.line.unitPrice, discount: l.discount,
  }));
  const payment: Insertable<PaymentsTable> = {
    id: paymentId, userId: p.userId, performerId: draft.performerId, type: draft.type, status: 'pending', gateway: p.gateway, gatewayRef: null,
    targetId: draft.targetId, originalPrice: priced.originalPrice, discount: priced.discount, amount: priced.amount, currency: p.currency,
    couponId: coupon?.id ?? null, shippingAddress: draft.shippingAddress ?? null,
    details: JSON.stringify({ description: draft.description, couponCode: coupon?.code ?? null, ...draft.details }),
    paidAt: null, expiresAt: p.expiresAt, checkoutUrl: null, gatewayIntentRef: null, stockHeld: p.holdsStock ? 1 : 0, couponHeld: coupon ? 1 : 0,
    deferredReversal: null, reversedAt: null, createdAt: now, updatedAt: now,
  };
  return { payment, items };
}

/**
 * `siteUrl`: the site's address as this buyer reached it (server/http/site-url.ts: PUBLIC_URL when set, else the
 * visitor's host when it names this machine). The provider sends the buyer back there, so they arrive on the origin
 * their session cookie belongs to.
 */
export async function checkout(money: Money, user: SessionUser, draft: Draft, siteUrl: string): Promise<CheckoutResponse> {
  const { db, settings, config } = money.ctx;
  const gatewayName = await money.activeGatewayName();
  // A buyer must not be able to approve their own payment on a live site: refused before anything is written.
  if (gatewayName === 'sandbox') assertSandboxEnabled(config);

  const coupon = draft.coupon !== undefined ? draft.coupon : draft.couponCode ? await validCoupon(db, draft.couponCode) : null;
  const priced = priceLines(draft.lines, coupon?.valueBps ?? 0);
  if (priced.amount < 1 && !(draft.free && priced.amount === 0)) throw new AppError(400, 'AMOUNT_TOO_LOW', 'Nothing to pay: the total after the coupon must be at least one cent');
  const currency = String(await settings.get('currency')).toUpperCase();
  const minutes = Math.max(1, Number(await settings.get('checkoutExpiryMinutes')) || 30);
  const holdCap = Math.max(1, Number(await settings.get('stockHoldMaxPerBuyer')) || 10);
  const paymentId = newId();
  const now = nowIso();
  // The hold time: the stock taken below comes back when this passes unpaid (sweepExpiredCheckouts).
  const expiresAt = new Date(Date.parse(now) + minutes * 60_000).toISOString();

  const physical = draft.lines
    .filter((l) => l.productType === 'physical')
    .map((l) => ({ productId: l.objectId, quantity: l.quantity }))
    .sort((a, b) => (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0));
  const rows = checkoutRows({ paymentId, userId: user.id, draft, priced, gateway: gatewayName, currency, coupon, now, expiresAt, holdsStock: physical.length > 0 });
  const orderIds: string[] = [];

  await inTransaction(db, async (trx) => {
    if (physical.length) {
      const taken = await takeAllStock(trx, physical);
      if (!taken.ok) {
        const name = draft.lines.find((l) => l.objectId === taken.productId)?.name ?? 'An item';
        throw new AppError(409, 'OUT_OF_STOCK', `${name} is out of stock (or fewer are left than you asked for)`, { productId: taken.productId });
      }
      // One buyer cannot hoard the shelf with checkouts they never pay: at most `holdCap` units of a product held at
      // once. Counted after the stock update locked the product row; over the cap the transaction rolls back (stock too).
      for (const line of physical) {
        const held = await unitsHeldByBuyer(trx, user.id, line.productId, now);
        if (held + line.quantity > holdCap) {
          const name = draft.lines.find((l) => l.objectId === line.productId)?.name ?? 'this item';
          throw new AppError(
            409,
            'HOLD_LIMIT',
            held > 0
              ? `You already hold ${held} of ${name} in unpaid checkouts: pay or cancel them first (at most ${holdCap} per product)`
              : `At most ${holdCap} of ${name} per buyer at a time`,
            { productId: line.productId, held, max: holdCap },
          );
        }
      }
    }
    // The coupon's use is taken now (products → coupon, the lock order of every transition), so maxUses holds
    // however many checkouts race for the last use; an unpaid end gives it back (settlement.service.ts).
    if (coupon && !(await reserveCouponUse(trx, coupon.id, now))) {
      if (draft.promotion) throw new AppError(409, 'PROMOTION_ENDED', 'This promotion has just ended or run out: the price is the regular one now, please try again');
      throw new AppError(400, 'COUPON_USED_UP', couponMessages.usedUp);
    }
    await draft.guard?.(trx, gatewayName);
    await insertPayment(trx, rows.payment, rows.items);
    if (draft.type === 'products') {
      const byPerformer = new Map<string, typeof priced.lines>();
      for (const p of priced.lines) byPerformer.set(p.line.performerId, [...(byPerformer.get(p.line.performerId) ?? []), p]);
      for (const [performerId, lines] of byPerformer) {
        const orderId = newId();
        orderIds.push(orderId);
        const orderItems: Array<Insertable<OrderItemsTable>> = lines.map((p) => ({
          id: newId(), orderId, productId: p.line.objectId, name: p.line.name, productType: p.line.productType ?? 'physical',
          quantity: p.line.quantity, unitPrice: p.line.unitPrice, totalPrice: p.amount,
        }));
        await insertOrder(
          trx,
          {
            id: orderId, orderNumber: orderNumber(), paymentId, buyerId: user.id, performerId, status: 'pending', deliveryStatus: 'created',
            shippingAddress: lines.some((p) => p.line.productType === 'physical') ? (draft.shippingAddress ?? null) : null, trackingCode: null,
            totalPrice: lines.reduce((n, p) => n + p.amount, 0), createdAt: now, updatedAt: now,
          },
          orderItems,
        );
      }
    }
    await draft.extra?.(trx, paymentId, gatewayName);
  });

  let session;
  try {
    const gateway = await money.gateway(gatewayName);
    session = await gateway.createCheckout({
      paymentId, amount: priced.amount, currency, description: draft.description, expiresAt, customerEmail: user.email, siteUrl,
      returnUrl: `${siteUrl}/payments/result/${paymentId}`,
      cancelUrl: `${siteUrl}/payments/result/${paymentId}?cancelled=1`,
      ...(draft.recurring ? { recurring: draft.recurring } : {}),
    });
  } catch (err) {
    money.ctx.logger.error({ err, paymentId, gateway: gatewayName }, 'checkout could not be created at the gateway');
    const undone = await applyInternal(money.settlement, paymentId, 'cancelled', 'gateway_error');
    await money.afterCommit(undone.effects);
    throw new AppError(502, 'GATEWAY_ERROR', 'The payment provider is not available, please try again later');
  }
  await setCheckout(db, paymentId, session.gatewayRef, session.redirectUrl);
  return {
    paymentId, status: 'pending', gateway: gatewayName, redirectUrl: session.redirectUrl, originalPrice: priced.originalPrice, discount: priced.discount,
    amount: priced.amount, currency, expiresAt, orderIds,
    ...(draft.recurring ? { trialDays: draft.recurring.firstPeriodDays ?? null, promotionId: draft.promotion ? (coupon?.id ?? null) : null } : {}),
  };
}

// -----------------------------------------------------------------------------------------------------------------

/**
 * First step of every checkout: the sandbox gate (nothing written when it is closed), then expired holds go back
 * on the shelf, before anything is checked against the stock (a hold ends with its hold time, not when the next
 * sweep happens to run).
 */
export async function beforeCheckout(money: Money): Promise<void> {
  if ((await money.activeGatewayName()) === 'sandbox') assertSandboxEnabled(money.ctx.config);
  await sweepExpiredCheckouts(money, { limit: 50 }).catch((err) => money.ctx.logger.warn({ err: (err as Error).message }, 'checkout sweep failed'));
}

/**
 * Only performers an admin approved earn: their subscription, videos and products cannot be bought before (403
 * PERFORMER_NOT_APPROVED, checked before anything is written). The catalogue hides their items too, so this mostly
 * answers a buyer who kept a link, clearly rather than with a 404.
 */
function notApproved(): AppError {
  return new AppError(403, 'PERFORMER_NOT_APPROVED', 'This performer is not approved yet: nothing of theirs can be bought');
}

async function assertSellersApproved(money: Money, performerIds: readonly string[]): Promise<void> {
  if ((await performersNotSelling(money.ctx.db, [...new Set(performerIds)])).length) throw notApproved();
}

/**
 * POST /payment/subscribe: monthly, yearly or a bundle of monthly periods, for a performer, with the performer's
 * offers to new subscribers (server/subscriptions/offers.ts): the free trial on the monthly plan, else a running
 * promotion on the first period, unless the fan's own code is the better discount (they never stack).
 */
export async function checkoutSubscription(
  money: Money,
  user: SessionUser,
  buyer: Audience,
  input: { performerId: string; type: SubscriptionType; bundleMonths?: BundleMonths | null; couponCode?: string | null },
  siteUrl: string,
) {
  const { db } = money.ctx;
  await beforeCheckout(money);
  const performer = await findPerformerForSale(db, input.performerId, buyer);
  // A performer who blocks the buyer's country does not exist for them, here as in the catalogue.
  if (!performer || performer.status !== 'active' || Number(performer.openToBuyer) !== 1) throw notFound('Performer');
  if (performer.approved !== 1) throw notApproved();
  if (performer.id === user.id) throw badRequest('You cannot subscribe to yourself');
  // A fan the performer blocked starts no new subscription; one already running is left alone.
  await assertNotBlocked(db, performer.id, user.id, 'subscribe');
  const current = await findSubscription(db, user.id, performer.id);
  if (current && isLive(current)) {
    throw new AppError(409, 'ALREADY_SUBSCRIBED', `You are already subscribed until ${current.expiresAt!.slice(0, 10)}`, { subscriptionId: current.id });
  }
  const packages = await activePackages(db);
  const pkg = packages[input.type];
  const terms = planTerms(performer, { type: input.type, bundleMonths: input.bundleMonths }, listPrices(performer, packages));
  if (!terms) {
    if (input.bundleMonths) throw new AppError(400, 'BUNDLE_NOT_OFFERED', `This performer does not offer a ${input.bundleMonths}-month bundle`);
    throw new AppError(400, 'NOT_FOR_SALE', 'This performer has no subscription price yet');
  }
  const isNew = !(await everSubscribed(db, user.id, performer.id));
  const first = firstPeriod(terms, { trialDays: performer.trialDays, isNew, promotion: (await runningPromotions(db, performer.id))[0] });
  const typed = input.couponCode ? await validCoupon(db, input.couponCode) : null;
  if (first.trialDays && typed) {
    throw new AppError(400, 'COUPON_NOT_NEEDED', `Your first ${first.trialDays} days are a free trial: there is nothing for a coupon to lower. Subscribe without the code.`);
  }
  const coupon = betterDiscount(typed, first.promotion);
  const draft = subscriptionDraft(performer, user.id, input.type, pkg, coupon?.code ?? null, { terms, trialDays: first.trialDays });
  draft.coupon = coupon;
  draft.promotion = !!coupon && coupon === first.promotion;
  if (first.trialDays || draft.promotion) {
    // Offers for new subscribers are decided again under the (user, performer) row's lock: of two checkouts of one
    // fan racing for a trial, the second sees the first's payment and is refused, writing nothing (its promotion use
    // is rolled back with it).
    // Only `trx` inside: on SQLite the transaction holds the one connection.
    draft.guard = async (trx, gateway) => {
      await holdSubscriptionRow(trx, user.id, performer.id, input.type, gateway);
      if (await everSubscribed(trx, user.id, performer.id)) {
        throw new AppError(409, 'OFFER_TAKEN', 'This offer is for new subscribers only, and you have subscribed before (or have a checkout open): please try again for the regular price');
      }
    };
  }
  return checkout(money, user, draft, siteUrl);
}

/**
 * What a subscription checkout buys: one line at the plan's price for its days (by default the monthly or yearly
 * plan: the performer's price, else the package's), or a free trial's line of 0 for its days, renewed at the list
 * price every period. The demo seed buys its demo fans' subscriptions with the same draft.
 */
export function subscriptionDraft(
  performer: { id: string; displayName: string; monthlyPrice: number; yearlyPrice: number },
  userId: string,
  type: SubscriptionType,
  pkg: { price: number; durationDays: number } | null | undefined,
  couponCode?: string | null,
  offer: { terms?: PlanTerms; trialDays?: number | null } = {},
): Draft {
  const price = offer.terms?.price ?? subscriptionPrice(performer, type, pkg);
  const periodDays = offer.terms?.periodDays ?? pkg?.durationDays ?? (type === 'monthly' ? 30 : 365);
  const bundleMonths = offer.terms?.bundleMonths ?? null;
  const trialDays = offer.trialDays ?? null;
  const plan = bundleMonths ? `${bundleMonths}-month` : type;
  const what = trialDays ? `${trialDays}-day free trial, then ${type}` : `${plan} subscription`;
  return {
    type: type === 'monthly' ? 'subscription_monthly' : 'subscription_yearly',
    performerId: performer.id,
    targetId: performer.id,
    description: `${performer.displayName}: ${what}`,
    // A trial's line is 0: nothing is paid, nothing is earned, until the first renewal.
    lines: [{ objectType: 'performer', objectId: performer.id, performerId: performer.id, unitPrice: trialDays ? 0 : price, quantity: 1, name: `${performer.displayName} (${trialDays ? 'trial' : plan})` }],
    couponCode,
    free: !!trialDays,
    // Renewals charge the list price of today (a coupon or a promotion discounts the first period only): the
    // subscriber keeps it when the performer later changes their price. `durationDays` is what this payment's period
    // adds (paidPeriods); a trial's renewals have another period, `periodDays`.
    details: {
      durationDays: trialDays ?? periodDays, subscriptionType: type, renewalAmount: price,
      ...(bundleMonths ? { bundleMonths } : {}), ...(trialDays ? { trial: true, trialDays, periodDays } : {}),
    },
    recurring: { periodDays, renewalAmount: price, ...(trialDays ? { firstPeriodDays: trialDays } : {}) },
    extra: (trx, _paymentId, gateway) => ensureSubscriptionRow(trx, userId, performer.id, type, gateway),
  };
}

/**
 * The checkout of one item (a video, a gallery, a performer's post), once the caller found it: its performer must be
 * approved; it must be public to the buyer (else 404, as if it did not exist) and for sale (`forSale`, at 1 or more);
 * refused to its own performer and to a buyer who owns it already; one line at its price.
 */
async function checkoutOneItem(
  money: Money,
  user: SessionUser,
  item: { type: 'video' | 'gallery' | 'post' | 'message'; label: string; id: string; performerId: string; title: string; price: number; visible: unknown; forSale: boolean },
  input: { couponCode?: string | null },
  siteUrl: string,
) {
  await assertSellersApproved(money, [item.performerId]);
  if (Number(item.visible) !== 1) throw notFound(item.label);
  if (!item.forSale || item.price < 1) throw new AppError(400, 'NOT_FOR_SALE', `This ${item.type} is not for sale`);
  if (item.performerId === user.id) throw badRequest(`You cannot buy your own ${item.type}`);
  if (await hasEntitlement(money.ctx.db, user.id, item.type, item.id)) throw new AppError(409, 'ALREADY_PURCHASED', `You already own this ${item.type}`);
  return checkout(money, user, {
    type: item.type,
    performerId: item.performerId,
    targetId: item.id,
    description: `${item.label}: ${item.title}`,
    lines: [{ objectType: item.type, objectId: item.id, performerId: item.performerId, unitPrice: item.price, quantity: 1, name: item.title }],
    couponCode: input.couponCode,
  }, siteUrl);
}

/** POST /payment/purchase-video/{id}: a video for sale, not already owned. */
export async function checkoutVideo(money: Money, user: SessionUser, buyer: Audience, videoKey: string, input: { couponCode?: string | null }, siteUrl: string) {
  const { db } = money.ctx;
  await beforeCheckout(money);
  const video = await findVideoByKey(db, videoKey, buyer);
  if (!video) throw notFound('Video');
  const item = { type: 'video', label: 'Video', id: video.id, performerId: video.performerId, title: video.title, price: video.price, visible: video.visible, forSale: Boolean(video.isSale) } as const;
  return checkoutOneItem(money, user, item, input, siteUrl);
}

/** POST /payment/purchase-gallery/{id}: a gallery for sale, not already owned; its photos open with it. */
export async function checkoutGallery(money: Money, user: SessionUser, buyer: Audience, galleryKey: string, input: { couponCode?: string | null }, siteUrl: string) {
  const { db } = money.ctx;
  await beforeCheckout(money);
  const gallery = await findGalleryByKey(db, galleryKey, buyer);
  if (!gallery) throw notFound('Gallery');
  const item = { type: 'gallery', label: 'Gallery', id: gallery.id, performerId: gallery.performerId, title: gallery.title, price: gallery.price, visible: gallery.visible, forSale: gallery.access === 'sale' } as const;
  return checkoutOneItem(money, user, item, input, siteUrl);
}

/**
 * POST /payment/purchase-post/{id}: a performer's pay-per-view post, not already owned. Bought like a video: one
 * line, an entitlement of object type 'post' when paid, the performer's earning through the same settlement.
 */
export async function checkoutPost(money: Money, user: SessionUser, buyer: Audience, postKey: string, input: { couponCode?: string | null }, siteUrl: string) {
  const { db } = money.ctx;
  await beforeCheckout(money);
  const post = await findPostByKey(db, postKey, buyer);
  if (!post || !post.performerId || post.type !== 'post') throw notFound('Post');
  const item = { type: 'post', label: 'Post', id: post.id, performerId: post.performerId, title: post.title, price: post.price, visible: post.visible, forSale: post.access === 'sale' } as const;
  return checkoutOneItem(money, user, item, input, siteUrl);
}

/**
 * POST /payment/purchase-message/{id}: a paid direct message, by its recipient (server/messages/README.md, "Paid
 * messages"). The message exists only for its two participants: anyone else (admins too: they read, they do not buy)
 * gets 404; its sender 400; a fan its sender blocked 403 BLOCKED_BY_PERFORMER; a message without a price 400 NOT_FOR_SALE; bought already 409. Bought like a post: one line,
 * an entitlement of object type 'message' on this copy when paid, the performer's earning through the same settlement.
 */
export async function checkoutMessage(money: Money, user: SessionUser, messageId: string, input: { couponCode?: string | null }, siteUrl: string) {
  const { db } = money.ctx;
  await beforeCheckout(money);
  const message = await findMessage(db, messageId);
  if (!message || (user.id !== message.senderId && user.id !== message.recipientId)) throw notFound('Message');
  // A fan the performer blocked keeps what they bought but cannot pay the performer again (as with tips).
  await assertNotBlocked(db, message.senderId, user.id, 'unlock');
  const name = (await performerNameOf(db, message.senderId)) ?? 'A performer';
  const item = {
    type: 'message', label: 'Message', id: message.id, performerId: message.senderId, title: `Paid message from ${name}`,
    price: Number(message.price), visible: 1, forSale: Number(message.price) > 0,
  } as const;
  return checkoutOneItem(money, user, item, input, siteUrl);
}

/** POST /payment/purchase-products: cart lines (same product twice is merged), a shipping address for physical items. */
export async function checkoutProducts(
  money: Money,
  user: SessionUser,
  buyer: Audience,
  input: { items: Array<{ productId: string; quantity: number }>; shippingAddress?: string | null; couponCode?: string | null },
  siteUrl: string,
) {
  const { db } = money.ctx;
  await beforeCheckout(money);
  const quantities = new Map<string, number>();
  for (const i of input.items) quantities.set(i.productId, (quantities.get(i.productId) ?? 0) + i.quantity);
  const products = await productsForSale(db, [...quantities.keys()], buyer);
  const byId = new Map(products.map((p) => [p.id, p]));
  await assertSellersApproved(money, products.map((p) => p.performerId));
  const missing = [...quantities.keys()].filter((id) => Number(byId.get(id)?.visible) !== 1);
  if (missing.length) throw new AppError(404, 'NOT_FOUND', 'Some products are not available', { productIds: missing });
  const lines: DraftLine[] = [];
  for (const [id, quantity] of quantities) {
    const p = byId.get(id)!;
    if (p.performerId === user.id) throw badRequest(`You cannot buy your own product (${p.name})`);
    if (quantity > MAX_QUANTITY) throw badRequest(`At most ${MAX_QUANTITY} of one product per order`);
    if (p.type === 'digital') {
      if (quantity !== 1) throw badRequest(`${p.name} is a download: buy it once (quantity 1)`);
      if (await hasEntitlement(db, user.id, 'product', p.id)) throw new AppError(409, 'ALREADY_PURCHASED', `You already own ${p.name}`, { productId: p.id });
    } else if (p.stock !== null && p.stock < quantity) {
      throw new AppError(409, 'OUT_OF_STOCK', p.stock === 0 ? `${p.name} is out of stock` : `Only ${p.stock} of ${p.name} left`, { productId: p.id, available: p.stock });
    }
    if (p.price < 1) throw new AppError(400, 'NOT_FOR_SALE', `${p.name} has no price`);
    lines.push({ objectType: 'product', objectId: p.id, performerId: p.performerId, unitPrice: p.price, quantity, name: p.name, productType: p.type });
  }
  const shippingAddress = input.shippingAddress?.trim() || null;
  if (lines.some((l) => l.productType === 'physical') && !shippingAddress) {
    throw new AppError(400, 'VALIDATION_FAILED', 'A shipping address is required for physical products', [{ path: 'body.shippingAddress', message: 'Required for physical products' }]);
  }
  const performers = new Set(lines.map((l) => l.performerId));
  const count = lines.reduce((n, l) => n + l.quantity, 0);
  return checkout(money, user, {
    type: 'products',
    performerId: performers.size === 1 ? lines[0]!.performerId : null,
    targetId: null,
    description: lines.length === 1 ? `${lines[0]!.name}${lines[0]!.quantity > 1 ? ` × ${lines[0]!.quantity}` : ''}` : `${count} items`,
    lines,
    couponCode: input.couponCode,
    shippingAddress: lines.some((l) => l.productType === 'physical') ? shippingAddress : null,
  }, siteUrl);
}
