import type { DbOrTrx } from '../db/database.js';
import { newId, nowIso } from '../db/ids.js';
import { AppError, notFound } from '../http/errors.js';
import { PROMOTION_UNLIMITED } from '../../common/offers.js';
import type { Promotion, PromotionInput } from '../../common/schemas/money.js';
import { endPromotion, findPromotion, insertCoupon, promotionsOf, type CouponRow } from './coupons.repository.js';

/**
 * A performer's promotions (server/payments/README.md, "Offers"): a discount of new subscribers' first period between
 * two times, optionally for at most N of them. Each is a coupon scoped to the performer that the checkout applies by
 * itself (auto_apply), so its count is held by the coupons' reservation: taken at checkout, given back when the
 * checkout fails or expires.
 */

/** How many promotions a performer may have scheduled or running at once (the best running one applies). */
export const MAX_OPEN_PROMOTIONS = 10;

export function promotionView(c: CouponRow, now = nowIso()): Promotion {
  const limited = c.maxUses < PROMOTION_UNLIMITED;
  const ended = c.status !== 'active' || (!!c.expiresAt && c.expiresAt <= now) || c.usedCount >= c.maxUses;
  return {
    _id: c.id, valueBps: c.valueBps, startsAt: c.startsAt, endsAt: c.expiresAt, maxUses: limited ? c.maxUses : null, usedCount: c.usedCount,
    state: ended ? 'ended' : c.startsAt && c.startsAt > now ? 'scheduled' : 'running', createdAt: c.createdAt,
  };
}

export async function listPromotions(db: DbOrTrx, performerId: string): Promise<Promotion[]> {
  const now = nowIso();
  return (await promotionsOf(db, performerId)).map((c) => promotionView(c, now));
}

export async function createPromotion(db: DbOrTrx, performerId: string, input: PromotionInput): Promise<Promotion> {
  const now = nowIso();
  const startsAt = new Date(input.startsAt).toISOString();
  const endsAt = new Date(input.endsAt).toISOString();
  if (endsAt <= now) throw new AppError(400, 'VALIDATION_FAILED', 'The end has already passed', [{ path: 'body.endsAt', message: 'Must be in the future' }]);
  const open = (await promotionsOf(db, performerId)).filter((c) => promotionView(c, now).state !== 'ended').length;
  if (open >= MAX_OPEN_PROMOTIONS) throw new AppError(409, 'TOO_MANY_PROMOTIONS', `At most ${MAX_OPEN_PROMOTIONS} promotions can be scheduled or running at once: end one first`);
  const id = newId();
  await insertCoupon(db, {
    id, name: 'Promotion', code: `PROMO-${id}`, valueBps: input.valueBps, startsAt, expiresAt: endsAt, maxUses: input.maxUses ?? PROMOTION_UNLIMITED, usedCount: 0,
    status: 'active', performerId, autoApply: 1, newSubscribersOnly: 1, createdAt: now, updatedAt: now,
  });
  return promotionView((await findPromotion(db, id, performerId))!, now);
}

/** Ends a promotion now (another performer's is a 404). Checkouts already holding a use keep their price. */
export async function endPromotionNow(db: DbOrTrx, performerId: string, id: string): Promise<Promotion> {
  if (!(await findPromotion(db, id, performerId))) throw notFound('Promotion');
  await endPromotion(db, id, performerId);
  return promotionView((await findPromotion(db, id, performerId))!);
}
