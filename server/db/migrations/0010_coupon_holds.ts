import type { Kysely } from 'kysely';

/**
 * Coupon uses are taken at checkout, not at settlement: `payments.coupon_held = 1` while an unpaid checkout holds
 * one use of its coupon (`coupons.used_count` already counts it). The use is given back when that checkout fails,
 * is cancelled or expires, and kept when it is paid. Checkouts made before this migration hold nothing (0) and take
 * their use when paid, as they always did.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').addColumn('coupon_held', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').dropColumn('coupon_held').execute();
}
