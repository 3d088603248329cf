import type { Kysely } from 'kysely';

/**
 * Partial refunds (server/payments/README.md, "Partial refunds").
 *
 * payments.refunded_amount: minor units given back of a payment that stays paid (its access and period are kept);
 * a whole refund turns the payment `refunded` instead. What the site took is amount − refunded_amount.
 *
 * earnings.refunded_to: on a `partial_refund` row, the payment's refunded_amount that row brought it to (0 on credits
 * and reversals). It joins the item's unique key, so each step of a payment's refunds is written once per item
 * however often the provider repeats it, while two different partial refunds of one item both stand.
 *
 * sandbox_charges.refunded_amount: the sandbox provider's own record of what it gave back, announced in its events
 * as the total so far, as real providers do.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').addColumn('refunded_amount', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('sandbox_charges').addColumn('refunded_amount', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('earnings').addColumn('refunded_to', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.dropIndex('earnings_item_entry_uq').execute();
  await db.schema.createIndex('earnings_item_entry_uq').on('earnings').columns(['payment_item_id', 'entry', 'refunded_to']).unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('earnings').where('entry', '=', 'partial_refund').execute();
  await db.schema.dropIndex('earnings_item_entry_uq').execute();
  await db.schema.createIndex('earnings_item_entry_uq').on('earnings').columns(['payment_item_id', 'entry']).unique().execute();
  await db.schema.alterTable('earnings').dropColumn('refunded_to').execute();
  await db.schema.alterTable('sandbox_charges').dropColumn('refunded_amount').execute();
  await db.schema.alterTable('payments').dropColumn('refunded_amount').execute();
}
