import type { ApiApp } from '../http/types.js';
import { requireUser } from '../http/auth.js';
import { apiErrorSchema } from '../../common/schemas/http.js';
import { limiter } from '../http/rate-limit.js';
import { applyCouponBody, applyCouponSchema, couponParams } from '../../common/schemas/money.js';
import { productsForSale } from '../payments/fulfilment.repository.js';
import { priceLines, discountedPrice } from '../payments/pricing.js';
import { nowIso } from '../db/ids.js';
import { AppError } from '../http/errors.js';
import { couponView, validCoupon } from './coupons.service.js';
import { audienceOf } from '../catalogue/catalogue.repository.js';
import { route } from '../http/route.js';

export async function couponsRoutes(app: ApiApp): Promise<void> {
  const { db } = app.ctx;
  // Codes are guessable in principle: a bound per user and per IP.
  const perUser = limiter(app, 'coupon-user', { max: 30, windowSec: 60 }, (r) => r.user?.id, 'Too many coupon attempts, please wait a minute');
  const perIp = limiter(app, 'coupon-ip', { max: 60, windowSec: 60 }, (r) => r.ip, 'Too many coupon attempts, please wait a minute');

  app.post(
    '/coupons/:id/apply-coupon',
    {
      ...route({
        access: 'session',
        tags: ['payments'],
        summary: 'Check a coupon code (valid, active, not expired, uses left) and price the cart or an amount with it',
        description: 'price = original × (1 − value), the discount rounded down to the cent on each line. Nothing is taken here: a checkout with the coupon takes one use, given back if it ends unpaid.',
        params: couponParams,
        body: applyCouponBody,
        response: {
          200: applyCouponSchema,
          400: apiErrorSchema, 401: apiErrorSchema, 404: apiErrorSchema, 429: apiErrorSchema,
        },
      }),
      preHandler: [perIp, perUser],
    },
    async (request) => {
      requireUser(request);
      const coupon = await validCoupon(db, request.params.id);
      const body = request.body ?? {};
      if (body.items?.length) {
        const products = new Map((await productsForSale(db, body.items.map((i) => i._id), audienceOf(request.user, request.country))).map((p) => [p.id, p]));
        const missing = body.items.filter((i) => Number(products.get(i._id)?.visible) !== 1).map((i) => i._id);
        if (missing.length) throw new AppError(404, 'NOT_FOUND', 'Some products are not available', { productIds: missing });
        const priced = priceLines(body.items.map((i) => ({ unitPrice: products.get(i._id)!.price, quantity: i.quantity })), coupon.valueBps);
        return { coupon: couponView(coupon), originalPrice: priced.originalPrice, discount: priced.discount, price: priced.amount };
      }
      if (body.amount !== undefined) {
        const price = discountedPrice(body.amount, coupon.valueBps);
        return { coupon: couponView(coupon), originalPrice: body.amount, discount: body.amount - price, price };
      }
      return { coupon: couponView(coupon) };
    },
  );
}
