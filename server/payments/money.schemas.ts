import { z } from 'zod';
import { pageQuery, keyField } from '../../common/schemas/http.js';
import { performerSummarySchema } from '../../common/schemas/catalogue.js';

/** zod schemas of the money API (requests and answers), shared by the payments, subscriptions, orders, coupons and earnings routes. */

export { keyField };
export const idParams = z.object({ id: keyField });
export const userSummarySchema = z.object({ _id: z.string(), username: z.string(), name: z.string(), avatar: z.string() });
const money = z.number().int();
const iso = z.string().datetime({ offset: true });

export const couponCodeField = z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'Letters, digits, "-" and "_" only');
export const paymentStatusSchema = z.enum(['pending', 'success', 'failed', 'cancelled', 'refunded', 'chargeback']);
export const paymentTypeSchema = z.enum(['subscription_monthly', 'subscription_yearly', 'video', 'products', 'gallery', 'post']);
export const deliveryStatusSchema = z.enum(['created', 'processing', 'shipping', 'delivered', 'cancelled']);
export const orderStatusSchema = z.enum(['pending', 'paid', 'cancelled', 'refunded']);

export const checkoutSchema = z.object({
  paymentId: z.string(),
  status: z.literal('pending'),
  gateway: z.enum(['sandbox', 'stripe']),
  redirectUrl: z.string(),
  originalPrice: money,
  discount: money,
  amount: money,
  currency: z.string(),
  expiresAt: z.string(),
  orderIds: z.array(z.string()),
});

export const subscribeBody = z.object({
  performerId: keyField,
  type: z.enum(['monthly', 'yearly']),
  couponCode: couponCodeField.optional(),
});

export const purchaseVideoBody = z.object({ couponCode: couponCodeField.optional() }).default({});

const cartLine = z
  .object({
    _id: keyField.optional(),
    productId: keyField.optional(),
    quantity: z.number().int().min(1).max(100).default(1),
  })
  .refine((l) => !!(l._id ?? l.productId), { message: 'Each item needs the product id (_id)', path: ['_id'] });

export const purchaseProductsBody = z.object({
  items: z.array(cartLine).min(1, 'The cart is empty').max(50, 'At most 50 different products per order'),
  shippingAddress: z.string().trim().min(5, 'Enter a full shipping address').max(500).optional(),
  couponCode: couponCodeField.optional(),
});

export const transactionSchema = z.object({
  _id: z.string(),
  type: paymentTypeSchema,
  status: paymentStatusSchema,
  gateway: z.string(),
  description: z.string(),
  originalPrice: money,
  discount: money,
  amount: money,
  currency: z.string(),
  couponCode: z.string().nullable(),
  performer: performerSummarySchema.nullable(),
  targetId: z.string().nullable(),
  checkoutUrl: z.string().nullable(),
  expiresAt: z.string().nullable(),
  paidAt: z.string().nullable(),
  createdAt: z.string(),
});

export const transactionQuery = pageQuery.extend({
  type: z.enum(['subscription', 'subscription_monthly', 'subscription_yearly', 'video', 'products', 'gallery', 'post']).optional(),
  status: paymentStatusSchema.optional(),
  from: iso.optional(),
  to: iso.optional(),
});

export const subscriptionSchema = z.object({
  _id: z.string(),
  userId: z.string(),
  performerId: z.string(),
  user: userSummarySchema.nullable(),
  performer: performerSummarySchema.nullable(),
  type: z.enum(['monthly', 'yearly']),
  status: z.enum(['pending', 'active', 'cancelled', 'expired']),
  isLive: z.boolean(),
  cancelAtPeriodEnd: z.boolean(),
  startedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  cancelledAt: z.string().nullable(),
  createdAt: z.string(),
});

export const subscriptionListQuery = pageQuery.extend({
  status: z.enum(['live', 'active', 'cancelled', 'expired', 'all']).default('all'),
});

export const orderLineSchema = z.object({
  _id: z.string(),
  productId: z.string(),
  name: z.string(),
  productType: z.enum(['physical', 'digital']),
  quantity: z.number().int(),
  unitPrice: money,
  totalPrice: money,
});

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

export const orderLineViewSchema = orderLineSchema.extend({
  orderId: z.string(),
  orderNumber: z.string(),
  status: orderStatusSchema,
  deliveryStatus: deliveryStatusSchema,
  performer: performerSummarySchema.nullable(),
  createdAt: z.string(),
});

export const orderListQuery = pageQuery.extend({
  status: orderStatusSchema.optional(),
  deliveryStatus: deliveryStatusSchema.optional(),
  q: z.string().trim().min(1).max(40).optional(),
});

export const updateOrderBody = z
  .object({
    deliveryStatus: deliveryStatusSchema.optional(),
    trackingCode: z.string().trim().max(100).nullable().optional(),
  })
  .refine((b) => b.deliveryStatus !== undefined || b.trackingCode !== undefined, { message: 'Send deliveryStatus or trackingCode' });

export const earningSchema = z.object({
  _id: z.string(),
  paymentId: z.string(),
  performerId: z.string(),
  user: userSummarySchema.nullable(),
  sourceType: z.string(),
  entry: z.enum(['credit', 'reversal']),
  gross: money,
  commission: money,
  net: money,
  commissionBps: z.number().int(),
  isPaid: z.boolean(),
  test: z.boolean(),
  createdAt: z.string(),
});

export const earningQuery = pageQuery.extend({
  sourceType: z.enum(['subscription', 'video', 'product', 'gallery', 'post']).optional(),
  entry: z.enum(['credit', 'reversal']).optional(),
  from: iso.optional(),
  to: iso.optional(),
  performerId: keyField.optional(),
});

const totals = z.object({ gross: money, commission: money, net: money, count: z.number().int() });
export const earningStatsSchema = z.object({
  currency: z.string(),
  from: z.string(),
  to: z.string(),
  totals: totals.extend({ paid: money, unpaid: money, test: money }),
  bySource: z.array(totals.extend({ sourceType: z.string() })),
  series: z.array(totals.extend({ date: z.string() })),
});

export const couponViewSchema = z.object({
  _id: z.string(),
  code: z.string(),
  name: z.string(),
  valueBps: z.number().int(),
  value: z.number(),
  expiresAt: z.string().nullable(),
  usesLeft: z.number().int(),
});
