/**
 * Types shared by the browser and the server. The server's zod schemas are the source of truth for
 * validation; these are the shapes the browser reads.
 */
import type { GalleryItem, PerformerSummary, VideoItem } from './schemas/catalogue.js';
import type { PublicSettings } from './schemas/site.js';
import type { ListResult } from './schemas/http.js';

// ---------------------------------------------------------------------------------------------------------------
// Money (issue #5): subscriptions, purchases, coupons, orders, transactions, earnings. Amounts are integer minor
// units (cents) in `currency`; rates are basis points (10 000 = 100 %).

/** A user as shown on a performer's subscriber list, an order or an earning. */
export interface UserSummary {
  _id: string;
  username: string;
  name: string;
  avatar: string;
}

/** `GET /package/subscription/search` */
export interface SubscriptionPackageItem {
  _id: string;
  name: string;
  description: string | null;
  type: 'monthly' | 'yearly' | string;
  price: number;
  durationDays: number;
  ordering: number;
}

export type SubscriptionType = 'monthly' | 'yearly';

/** The answer of every checkout (`POST /payment/subscribe`, `/payment/purchase-video/{id}`, `/payment/purchase-products`): go to `redirectUrl`. */
export interface CheckoutResponse {
  paymentId: string;
  status: 'pending';
  gateway: 'sandbox' | 'stripe';
  /** The provider's hosted payment page. */
  redirectUrl: string;
  originalPrice: number;
  discount: number;
  amount: number;
  currency: string;
  /** Unpaid after this, the checkout (and the stock it holds) expires. */
  expiresAt: string;
  /** Product purchases: one order per performer. */
  orderIds: string[];
}

export interface SubscribeRequest {
  performerId: string;
  type: SubscriptionType;
  couponCode?: string;
}

export interface CartLineRequest {
  /** The product id (`productId` is accepted too). */
  _id: string;
  quantity: number;
}

export interface PurchaseProductsRequest {
  items: CartLineRequest[];
  /** Required when a physical product is in the cart. */
  shippingAddress?: string;
  couponCode?: string;
}

/** `POST /coupons/{code}/apply-coupon` */
export interface CouponView {
  _id: string;
  code: string;
  name: string;
  valueBps: number;
  /** The same rate as a fraction: price = original × (1 − value). */
  value: number;
  expiresAt: string | null;
  usesLeft: number;
}

export interface ApplyCouponResponse {
  coupon: CouponView;
  /** Present when items or an amount were sent. */
  originalPrice?: number;
  discount?: number;
  price?: number;
}

export type PaymentStatusValue = 'pending' | 'success' | 'failed' | 'cancelled' | 'refunded' | 'chargeback';

/** `GET /payment/transactions`, `GET /transactions/user/search`, `GET /payment/status/{id}` */
export interface TransactionItem {
  _id: string;
  type: 'subscription_monthly' | 'subscription_yearly' | 'video' | 'products' | 'gallery' | 'post';
  status: PaymentStatusValue;
  gateway: string;
  description: string;
  originalPrice: number;
  discount: number;
  amount: number;
  currency: string;
  couponCode: string | null;
  performer: PerformerSummary | null;
  targetId: string | null;
  /** The hosted page, while the payment is pending and its checkout open. */
  checkoutUrl: string | null;
  expiresAt: string | null;
  paidAt: string | null;
  createdAt: string;
}

/** `GET /subscriptions/current`, `/subscriptions/user/search`, `/subscriptions/performer/search` */
export interface SubscriptionItem {
  _id: string;
  userId: string;
  performerId: string;
  user: UserSummary | null;
  performer: PerformerSummary | null;
  type: SubscriptionType;
  /** 'active' while it opens content (also after a cancellation, until `expiresAt`). */
  status: 'pending' | 'active' | 'cancelled' | 'expired';
  /** True while it opens the performer's subscriber content. */
  isLive: boolean;
  cancelAtPeriodEnd: boolean;
  startedAt: string | null;
  expiresAt: string | null;
  cancelledAt: string | null;
  createdAt: string;
}

export type DeliveryStatus = 'created' | 'processing' | 'shipping' | 'delivered' | 'cancelled';

export interface OrderLine {
  _id: string;
  productId: string;
  name: string;
  productType: 'physical' | 'digital';
  quantity: number;
  unitPrice: number;
  /** After the coupon. */
  totalPrice: number;
}

/** `GET /orders/users/search`, `/orders/details/search`, `/orders/details/{id}` */
export interface OrderView {
  _id: string;
  orderNumber: string;
  paymentId: string;
  buyer: UserSummary | null;
  performer: PerformerSummary | null;
  status: 'pending' | 'paid' | 'cancelled' | 'refunded';
  deliveryStatus: DeliveryStatus;
  shippingAddress: string | null;
  trackingCode: string | null;
  totalPrice: number;
  currency: string;
  items: OrderLine[];
  createdAt: string;
  updatedAt: string;
}

/** `GET /orders/users/details/search`: one line of one of the buyer's orders. */
export interface OrderLineView extends OrderLine {
  orderId: string;
  orderNumber: string;
  status: OrderView['status'];
  deliveryStatus: DeliveryStatus;
  performer: PerformerSummary | null;
  createdAt: string;
}

/** `PUT /orders/{id}/update` */
export interface UpdateOrderRequest {
  deliveryStatus?: DeliveryStatus;
  trackingCode?: string | null;
}

/** `GET /earning/performer/search` */
export interface EarningItem {
  _id: string;
  paymentId: string;
  performerId: string;
  user: UserSummary | null;
  sourceType: 'subscription' | 'video' | 'product' | 'gallery' | 'post' | string;
  /** 'reversal' rows are negative (refund, chargeback). */
  entry: 'credit' | 'reversal';
  gross: number;
  commission: number;
  net: number;
  commissionBps: number;
  isPaid: boolean;
  /** Credited by the sandbox gateway: test money, never paid out. */
  test: boolean;
  createdAt: string;
}

export interface EarningTotals {
  gross: number;
  commission: number;
  net: number;
  count: number;
}

/** `GET /earning/performer/stats` */
export interface EarningStats {
  currency: string;
  from: string;
  to: string;
  /** unpaid: what is still owed (real money only); test: net of sandbox earnings, never paid out. */
  totals: EarningTotals & { paid: number; unpaid: number; test: number };
  bySource: Array<EarningTotals & { sourceType: string }>;
  /** One point per day with earnings, oldest first (ISO date). */
  series: Array<EarningTotals & { date: string }>;
}

// ---------------------------------------------------------------------------------------------------------------
// Admin console (issue #7).

/** A stored secret as the API shows it: never the value, only whether one is set and where it comes from. */
export interface SecretState {
  configured: boolean;
  source: 'env' | 'settings' | null;
}

/** `GET /admin/settings` */
export interface AdminSettings extends Pick<PublicSettings, 'siteName' | 'logoUrl' | 'favicon' | 'loginPlaceholderImage' | 'menus' | 'footerContent' | 'currency' | 'currencySymbol' | 'maintenanceMode'> {
  commissionBps: number;
  payment: { paymentGateway: 'sandbox' | 'stripe'; checkoutExpiryMinutes: number; stripeSecretKey: SecretState; stripeWebhookSecret: SecretState };
}
