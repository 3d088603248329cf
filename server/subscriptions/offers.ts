import { bundlePrice, discountedPrice } from '../payments/pricing.js';
import type { SubscriptionType } from '../../common/enums.js';
import { BUNDLE_MONTHS, MONTH_DAYS, PROMOTION_UNLIMITED, type BundleMonths } from '../../common/offers.js';

/**
 * The offers a performer makes (server/payments/README.md, "Offers"), as pure rules: the checkout charges by them and
 * the paywall shows them (subscriptionOffer), so a button's price is the price paid.
 *
 *  - a plan is monthly, yearly, or a bundle of 3, 6 or 12 monthly periods at the performer's discount; its list price
 *    is what every period costs, the first and each renewal alike;
 *  - a new subscriber (never subscribed to this performer: `everSubscribed`) gets the free trial on the monthly plan
 *    when the performer offers one, else the performer's running promotion on the first period of any plan;
 *  - a coupon code the fan types and a promotion do not stack: the larger discount applies (the code on a tie), and a
 *    trial, being free, takes no code.
 */

export { BUNDLE_MONTHS, type BundleMonths };

export interface OfferPerformer {
  monthlyPrice: number;
  yearlyPrice: number;
  trialDays?: number;
  bundle3Bps?: number;
  bundle6Bps?: number;
  bundle12Bps?: number;
}

export interface Plan {
  type: SubscriptionType;
  /** A bundle of monthly periods (type monthly). */
  bundleMonths?: BundleMonths | null;
}

export interface PlanTerms {
  type: SubscriptionType;
  bundleMonths: BundleMonths | null;
  /** Minor units of every period, the first and each renewal (before a first-period discount). */
  price: number;
  periodDays: number;
  /** A bundle's discount against as many months, basis points. */
  discountBps: number | null;
}

export function bundleBps(performer: OfferPerformer, months: BundleMonths): number {
  return (months === 3 ? performer.bundle3Bps : months === 6 ? performer.bundle6Bps : performer.bundle12Bps) ?? 0;
}

/**
 * The list terms of a plan, or null when it is not offered (no price; a bundle without a discount). `monthly` and
 * `yearly` are the prices `subscriptionPrice` gives (the performer's, else the site package's) and `monthlyDays` /
 * `yearlyDays` the packages' lengths; a bundle is months × 30 days at round(months × monthly × (1 − discount)).
 */
export function planTerms(
  performer: OfferPerformer,
  plan: Plan,
  list: { monthly: number; yearly: number; monthlyDays: number; yearlyDays: number },
): PlanTerms | null {
  if (plan.bundleMonths) {
    const bps = bundleBps(performer, plan.bundleMonths);
    if (plan.type !== 'monthly' || bps <= 0 || list.monthly < 1) return null;
    return { type: 'monthly', bundleMonths: plan.bundleMonths, price: bundlePrice(list.monthly, plan.bundleMonths, bps), periodDays: plan.bundleMonths * MONTH_DAYS, discountBps: bps };
  }
  const price = plan.type === 'monthly' ? list.monthly : list.yearly;
  if (price < 1) return null;
  return { type: plan.type, bundleMonths: null, price, periodDays: plan.type === 'monthly' ? list.monthlyDays : list.yearlyDays, discountBps: null };
}

export interface PromotionLike {
  id: string;
  valueBps: number;
  newSubscribersOnly: number;
  expiresAt: string | null;
  maxUses: number;
  usedCount: number;
}

/** What a fan's first period of a plan is: a free trial of `trialDays`, or the list price lowered by `promotion`, or neither. */
export function firstPeriod<P extends PromotionLike>(
  terms: PlanTerms,
  o: { trialDays: number; isNew: boolean; promotion: P | null | undefined },
): { trialDays: number | null; promotion: P | null } {
  if (o.isNew && o.trialDays > 0 && terms.type === 'monthly' && !terms.bundleMonths) return { trialDays: o.trialDays, promotion: null };
  const promotion = o.promotion && (o.isNew || o.promotion.newSubscribersOnly !== 1) ? o.promotion : null;
  return { trialDays: null, promotion };
}

/** A typed code and a promotion do not stack: the larger discount, the code on a tie. */
export function betterDiscount<C extends { valueBps: number }>(coupon: C | null, promotion: C | null): C | null {
  if (!coupon) return promotion;
  if (!promotion) return coupon;
  return promotion.valueBps > coupon.valueBps ? promotion : coupon;
}

/** What the first period costs with a promotion (the checkout prices one line the same way: pricing.ts). */
export function promotionPrice(terms: PlanTerms, promotion: { valueBps: number }): number {
  return discountedPrice(terms.price, promotion.valueBps);
}

/** Uses left of a promotion, null when it has no limit. */
export function promotionLeft(p: { maxUses: number; usedCount: number }): number | null {
  return p.maxUses >= PROMOTION_UNLIMITED ? null : Math.max(0, p.maxUses - p.usedCount);
}
