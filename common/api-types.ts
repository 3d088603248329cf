/**
 * Types shared by the browser and the server. The server's zod schemas are the source of truth for
 * validation; these are the shapes the browser reads.
 */
import type { GalleryItem, PerformerSummary, VideoItem } from './schemas/catalogue.js';
import type { PublicSettings } from './schemas/site.js';
import type { ListResult } from './schemas/http.js';

// ---------------------------------------------------------------------------------------------------------------
// Engagement (issue #6): comments, reactions and realtime events.

/** What may be commented on and reacted to. */
export type EngagementObjectType = 'video' | 'gallery' | 'product' | 'post' | 'performer';
export const ENGAGEMENT_OBJECT_TYPES: readonly EngagementObjectType[] = ['video', 'gallery', 'product', 'post', 'performer'];

/** The author shown next to a comment. */
export interface CommentAuthor {
  _id: string;
  name: string;
  username: string;
  avatar: string;
}

/** One comment: `_id`, `objectId` (the commented object). `content` is plain text: render it as text, never as HTML. */
export interface CommentItem {
  _id: string;
  objectType: EngagementObjectType;
  objectId: string;
  content: string;
  /** Public URL of the attached picture (`PUT /comments/{id}` multipart), or null. */
  image: string | null;
  userId: string;
  user: CommentAuthor;
  createdAt: string;
  updatedAt: string;
}

/** `GET /comments/search`: newest first. `canModerate`: the viewer may delete anyone's comment here (the object's performer, an admin). */
export interface CommentSearchResult extends ListResult<CommentItem> {
  canModerate: boolean;
}

/**
 * The discussion of a locked item, for a viewer without access: comments are read and written by whoever may
 * open the item (subscribers, buyers, its performer, admins); everyone else gets the public count and what
 * would open it. `GET /comments/search` answers it as a 403 `LOCKED` error's `details`.
 */
export interface LockedDiscussion {
  needs: 'subscription' | 'purchase';
  commentCount: number;
}

/** `POST /comments`. `content` is trimmed, 1..2000 characters. */
export interface CreateCommentRequest {
  objectType: EngagementObjectType;
  objectId: string;
  content: string;
}

/** `DELETE /comments/{id}` */
export interface DeleteCommentResponse {
  _id: string;
  objectType: EngagementObjectType;
  objectId: string;
  /** The object's comment count after the delete. */
  commentCount: number;
}


/**
 * Reaction kinds. The API also accepts `favorite` for `favourite` and `watch-later` / `watchLater` /
 * `watchlater` for `watch_later`; answers always use these spellings. `watch_later` is for videos and
 * galleries only; `like` and `favourite` for every EngagementObjectType.
 */
export type ReactionAction = 'like' | 'favourite' | 'watch_later';
export const REACTION_ACTIONS: readonly ReactionAction[] = ['like', 'favourite', 'watch_later'];

/** `POST /reactions` and `DELETE /reactions` (JSON body; DELETE also takes the same fields as query parameters). */
export interface ReactionRequest {
  objectType: EngagementObjectType;
  objectId: string;
  action: ReactionAction | 'favorite' | 'watch-later' | 'watchLater';
}

/** Answer of `POST /reactions` and `DELETE /reactions`: both are idempotent. */
export interface ReactionResult {
  objectType: EngagementObjectType;
  objectId: string;
  action: ReactionAction;
  /** Whether the user has this reaction now. */
  reacted: boolean;
  /** Whether this call changed anything (false: it was already so). */
  changed: boolean;
  /** The object's counter for the action after the call (likes or favourites); null for watch_later. */
  count: number | null;
}

/** `GET /reactions/search`: the signed-in user's reactions. */
export interface ReactionItem {
  _id: string;
  objectType: EngagementObjectType;
  objectId: string;
  action: ReactionAction;
  createdAt: string;
}

/** `GET /reactions/videos` and `GET /reactions/galleries`: the user's favourites or watch-later list, newest first. */
export interface ReactedVideo {
  _id: string;
  action: ReactionAction;
  createdAt: string;
  objectId: string;
  video: VideoItem;
}
export interface ReactedGallery {
  _id: string;
  action: ReactionAction;
  createdAt: string;
  objectId: string;
  gallery: GalleryItem;
}

/** The realtime client's status (docs/product.md, Realtime). */
export type RealtimeStatus = 'initialized' | 'connected' | 'disconnected' | 'reconnecting' | 'failed';

/** Rooms: `user:<userId>` (joined when the socket is authenticated), `object:<type>:<id>` (joined by `object/watch`). */
export interface ObjectRef {
  objectType: EngagementObjectType;
  objectId: string;
}

/**
 * Events the server sends (socket.io). Emitted through `ctx.realtime` (server/realtime/README.md):
 * to an object room: comment/*, reaction/count; to a user room: notification/count, payment/success,
 * subscription/success, content/new.
 */
export interface ServerToClientEvents {
  'comment/created': (payload: { comment: CommentItem; commentCount: number }) => void;
  'comment/updated': (payload: { comment: CommentItem }) => void;
  'comment/deleted': (payload: ObjectRef & { _id: string; commentCount: number }) => void;
  'reaction/count': (payload: ObjectRef & { action: ReactionAction; count: number }) => void;
  'notification/count': (payload: { count: number }) => void;
  'payment/success': (payload: { paymentId: string; type: string; targetId?: string | null; [key: string]: unknown }) => void;
  'subscription/success': (payload: { subscriptionId: string; performerId: string; [key: string]: unknown }) => void;
  'content/new': (payload: ObjectRef & { performerId: string; title?: string; [key: string]: unknown }) => void;
}

/** Acknowledgement of the client's events. */
export interface RealtimeAck {
  ok: boolean;
  /** After auth/login: the user the socket now belongs to, null for a guest. */
  userId?: string | null;
  message?: string;
  /** Why an `object/watch` was refused: `NOT_FOUND`, or `LOCKED` (the viewer may not read its comments). */
  code?: string;
}

/** Events the client sends. */
export interface ClientToServerEvents {
  /** Sent after connect and reconnect (docs/product.md, Realtime). Without a token the session cookie of the handshake is used. */
  'auth/login': (payload: { token?: string } | undefined, ack?: (res: RealtimeAck) => void) => void;
  'auth/logout': (payload: unknown, ack?: (res: RealtimeAck) => void) => void;
  'object/watch': (payload: ObjectRef, ack?: (res: RealtimeAck) => void) => void;
  'object/unwatch': (payload: ObjectRef, ack?: (res: RealtimeAck) => void) => void;
}

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
