/**
 * Limits of the offers a performer makes (server/payments/README.md, "Offers"), for the studio's forms and the
 * schemas alike (no zod here: a page may load it).
 */

/** Bundles of monthly periods a performer may offer. */
export const BUNDLE_MONTHS = [3, 6, 12] as const;
export type BundleMonths = (typeof BUNDLE_MONTHS)[number];

/** A bundle's month is 30 days, as the monthly plan's period: 3, 6 and 12 months are 90, 180 and 360 days. */
export const MONTH_DAYS = 30;

/** The longest free trial. */
export const MAX_TRIAL_DAYS = 30;

/** The largest discount of a bundle or a promotion (90 %): a plan is never given away but through a trial. */
export const MAX_OFFER_BPS = 9000;

/** A promotion without a maximum count is stored with this many uses (coupons.max_uses is a number). */
export const PROMOTION_UNLIMITED = 1_000_000_000;

/** The longest a promotion may run. */
export const MAX_PROMOTION_DAYS = 366;
