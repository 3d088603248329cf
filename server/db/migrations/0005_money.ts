import type { Kysely } from 'kysely';

/**
 * Money: payments, webhooks, entitlements, orders, coupons and earnings. The tables exist since 0001;
 * this adds what the settlement state machine needs and the unique keys that make idempotency structural
 * (server/payments/README.md):
 *
 *  - webhook_events (gateway, event_id)            primary key since 0001: a replayed event is a duplicate key
 *  - payments (gateway, gateway_ref)               unique since 0001: one payment per provider checkout
 *  - payments (gateway, gateway_intent_ref)        unique: one payment per provider charge (Stripe PaymentIntent)
 *  - entitlements (user_id, object_type, object_id) primary key since 0001: one entitlement per user and object
 *  - earnings (payment_item_id, entry)             unique: one credit and at most one reversal per payment item
 *  - orders (payment_id, performer_id)             unique: one order per performer per payment
 *  - sandbox_charges (payment_id)                  unique: the sandbox provider's own record of a checkout
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Payments: when an unpaid checkout (and the stock it holds) expires, the provider's hosted page, the provider's
  // charge id, whether the payment currently holds stock, and a refund/chargeback that arrived before the payment
  // was paid (applied as soon as it is).
  await db.schema.alterTable('payments').addColumn('expires_at', 'text').execute();
  await db.schema.alterTable('payments').addColumn('checkout_url', 'text').execute();
  await db.schema.alterTable('payments').addColumn('gateway_intent_ref', 'text').execute();
  await db.schema.alterTable('payments').addColumn('stock_held', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('payments').addColumn('deferred_reversal', 'text').execute();
  await db.schema.alterTable('payments').addColumn('reversed_at', 'text').execute();
  await db.schema.createIndex('payments_gateway_intent_uq').on('payments').columns(['gateway', 'gateway_intent_ref']).unique().execute();
  // Sweeps of expired checkouts and the reconciliation command read pending payments by age.
  await db.schema.createIndex('payments_status_expires').on('payments').columns(['status', 'expires_at']).execute();
  await db.schema.createIndex('payments_user_type_created').on('payments').columns(['user_id', 'type', 'created_at']).execute();

  // A line's share of the coupon discount, so that the sum of the lines' earnings equals the amount paid.
  await db.schema.alterTable('payment_items').addColumn('discount', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.createIndex('payment_items_object').on('payment_items').columns(['object_type', 'object_id']).execute();

  await db.schema.createIndex('webhook_events_payment').on('webhook_events').columns(['payment_id', 'received_at']).execute();
  await db.schema.createIndex('entitlements_payment').on('entitlements').column('payment_id').execute();
  await db.schema.createIndex('subscriptions_user_created').on('subscriptions').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('subscriptions_status_expires').on('subscriptions').columns(['status', 'expires_at']).execute();

  // Earnings are per payment item: a credit when paid, a negative reversal when refunded or charged back.
  await db.schema.alterTable('earnings').addColumn('payment_item_id', 'text').execute();
  await db.schema.alterTable('earnings').addColumn('entry', 'text', (c) => c.notNull().defaultTo('credit')).execute();
  await db.schema.dropIndex('earnings_payment_performer_uq').execute();
  await db.schema.createIndex('earnings_item_entry_uq').on('earnings').columns(['payment_item_id', 'entry']).unique().execute();
  await db.schema.createIndex('earnings_payment').on('earnings').column('payment_id').execute();
  await db.schema.createIndex('earnings_performer_source_created').on('earnings').columns(['performer_id', 'source_type', 'created_at']).execute();

  await db.schema.createIndex('orders_payment_performer_uq').on('orders').columns(['payment_id', 'performer_id']).unique().execute();
  await db.schema.createIndex('order_items_product').on('order_items').column('product_id').execute();

  // The built-in sandbox gateway's own state (what a real provider keeps on its side), read by reconciliation.
  await db.schema
    .createTable('sandbox_charges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('payment_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('return_url', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sandbox_charges_payment_uq').on('sandbox_charges').column('payment_id').unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sandbox_charges').ifExists().execute();
  for (const name of [
    'order_items_product', 'orders_payment_performer_uq', 'earnings_performer_source_created', 'earnings_payment', 'earnings_item_entry_uq',
    'subscriptions_status_expires', 'subscriptions_user_created', 'entitlements_payment', 'webhook_events_payment', 'payment_items_object',
    'payments_user_type_created', 'payments_status_expires', 'payments_gateway_intent_uq',
  ]) {
    await db.schema.dropIndex(name).ifExists().execute();
  }
  await db.schema.alterTable('earnings').dropColumn('entry').execute();
  await db.schema.alterTable('earnings').dropColumn('payment_item_id').execute();
  await db.schema.createIndex('earnings_payment_performer_uq').on('earnings').columns(['payment_id', 'performer_id']).unique().execute();
  await db.schema.alterTable('payment_items').dropColumn('discount').execute();
  for (const column of ['reversed_at', 'deferred_reversal', 'stock_held', 'gateway_intent_ref', 'checkout_url', 'expires_at']) {
    await db.schema.alterTable('payments').dropColumn(column).execute();
  }
}
