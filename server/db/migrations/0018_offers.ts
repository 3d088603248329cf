import type { Kysely } from 'kysely';

/**
 * Offers a performer makes to subscribers (server/payments/README.md, "Offers").
 *
 * performers:
 *  - trial_days: a new subscriber's first monthly period is free for this many days (0: no trial);
 *  - bundle3_bps / bundle6_bps / bundle12_bps: the discount of a 3, 6 or 12-month bundle (0: not offered).
 * coupons: a performer's promotion is a coupon the checkout applies by itself, so its count is held exactly as a
 * coupon's use is (taken at checkout by a conditional update, given back when the checkout ends unpaid):
 *  - performer_id: whose subscriptions it discounts (NULL: a site coupon, any purchase);
 *  - auto_apply: 1 for a promotion (no code to type; its code is internal and never accepted from a buyer);
 *  - new_subscribers_only: 1 when only a fan who never paid this performer's subscription gets it;
 *  - starts_at: not before this time (NULL: at once).
 * sandbox_charges.first_period_days: the sandbox provider's record of a free trial (its billing's first period).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('performers').addColumn('trial_days', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  for (const months of [3, 6, 12]) {
    await db.schema.alterTable('performers').addColumn(`bundle${months}_bps`, 'integer', (c) => c.notNull().defaultTo(0)).execute();
  }
  await db.schema.alterTable('coupons').addColumn('performer_id', 'text').execute();
  await db.schema.alterTable('coupons').addColumn('auto_apply', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('coupons').addColumn('new_subscribers_only', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('coupons').addColumn('starts_at', 'text').execute();
  // The checkout and the paywall look up a performer's running promotions.
  await db.schema.alterTable('sandbox_charges').addColumn('first_period_days', 'integer').execute();
  await db.schema.createIndex('coupons_performer_auto').on('coupons').columns(['performer_id', 'auto_apply', 'status']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('coupons_performer_auto').execute();
  await db.schema.alterTable('sandbox_charges').dropColumn('first_period_days').execute();
  for (const column of ['starts_at', 'new_subscribers_only', 'auto_apply', 'performer_id']) await db.schema.alterTable('coupons').dropColumn(column).execute();
  for (const months of [12, 6, 3]) await db.schema.alterTable('performers').dropColumn(`bundle${months}_bps`).execute();
  await db.schema.alterTable('performers').dropColumn('trial_days').execute();
}
