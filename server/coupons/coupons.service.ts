import type { DbOrTrx } from '../db/database.js';
import { nowIso } from '../db/ids.js';
import { AppError } from '../http/errors.js';
import { BPS } from '../payments/pricing.js';
import { findCouponByCode, type CouponRow } from './coupons.repository.js';

/**
 * Coupon rules: the code exists, is active, has not expired and has uses left. Its value is a rate in basis points
 * (`value_bps`, 1000 = 10 %): price = original × (1 − value), rounded as server/payments/pricing.ts does. A use is
 * taken by the checkout that applies the coupon (in its transaction) and given back if that checkout ends unpaid.
 */

export const couponMessages = {
  notFound: 'This coupon code does not exist',
  inactive: 'This coupon is not active',
  expired: 'This coupon has expired',
  usedUp: 'This coupon has no uses left',
} as const;

/** `code` comes trimmed from the request schemas (couponCodeField). */
export async function validCoupon(db: DbOrTrx, code: string, now = nowIso()): Promise<CouponRow> {
  const coupon = await findCouponByCode(db, code);
  if (!coupon) throw new AppError(404, 'COUPON_NOT_FOUND', couponMessages.notFound);
  if (coupon.status !== 'active' || coupon.valueBps <= 0 || coupon.valueBps > BPS) throw new AppError(400, 'COUPON_INACTIVE', couponMessages.inactive);
  if (coupon.expiresAt && coupon.expiresAt <= now) throw new AppError(400, 'COUPON_EXPIRED', couponMessages.expired);
  if (coupon.usedCount >= coupon.maxUses) throw new AppError(400, 'COUPON_USED_UP', couponMessages.usedUp);
  return coupon;
}

export function couponView(c: CouponRow) {
  return {
    _id: c.id,
    code: c.code,
    name: c.name,
    valueBps: c.valueBps,
    /** The same rate as a fraction (0.1 = 10 %), for display. */
    value: c.valueBps / BPS,
    expiresAt: c.expiresAt,
    usesLeft: Math.max(0, c.maxUses - c.usedCount),
  };
}
