import type { Kysely } from 'kysely';

/**
 * Subscriptions renew until cancelled (server/payments/README.md, "Recurring billing").
 *
 * subscriptions:
 *  - auto_renew: 1 while the provider keeps charging (gateway_subscription_id names its recurring billing); 0 once it
 *    is cancelled, ended at the provider, or lapsed after the grace period. Older rows (prepaid periods) are 0.
 *  - renewal_amount / renewal_currency / period_days: what each renewal charges, fixed when the subscription starts
 *    (a performer's later price change does not touch existing subscribers).
 *  - renewal_failed_at / grace_until: the last renewal failed; the provider retries until grace_until, then the
 *    subscription lapses. Cleared by the next successful renewal.
 * sandbox_subscriptions: the sandbox provider's own recurring billings (what a real provider keeps on its side).
 * sandbox_charges.renewal_of: the sandbox subscription a charge renewed (its payment_id is then the charge's own id:
 * the provider does not know our payment of a renewal; we create it when the renewal's event arrives).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscriptions').addColumn('auto_renew', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('subscriptions').addColumn('renewal_amount', 'integer').execute();
  await db.schema.alterTable('subscriptions').addColumn('renewal_currency', 'text').execute();
  await db.schema.alterTable('subscriptions').addColumn('period_days', 'integer').execute();
  await db.schema.alterTable('subscriptions').addColumn('renewal_failed_at', 'text').execute();
  await db.schema.alterTable('subscriptions').addColumn('grace_until', 'text').execute();
  // A provider's event names its recurring billing only: this finds the subscription (NULLs do not collide).
  await db.schema.createIndex('subscriptions_gateway_ref_uq').on('subscriptions').columns(['gateway', 'gateway_subscription_id']).unique().execute();
  // The lapse sweep reads renewing subscriptions by end.
  await db.schema.createIndex('subscriptions_renew_expires').on('subscriptions').columns(['auto_renew', 'expires_at']).execute();

  await db.schema
    .createTable('sandbox_subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('charge_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('period_days', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('period_end', 'text', (c) => c.notNull())
    .addColumn('next_charge_at', 'text', (c) => c.notNull())
    .addColumn('fail_renewals', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('renewals', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sandbox_subscriptions_due').on('sandbox_subscriptions').columns(['status', 'next_charge_at']).execute();
  await db.schema.alterTable('sandbox_charges').addColumn('recurring_days', 'integer').execute();
  await db.schema.alterTable('sandbox_charges').addColumn('renewal_amount', 'integer').execute();
  await db.schema.alterTable('sandbox_charges').addColumn('renewal_of', 'text').execute();
  // 1 once the charge's webhook was accepted; a renewal whose event did not get through is sent again.
  await db.schema.alterTable('sandbox_charges').addColumn('notified', 'integer', (c) => c.notNull().defaultTo(1)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['notified', 'renewal_of', 'renewal_amount', 'recurring_days']) await db.schema.alterTable('sandbox_charges').dropColumn(column).execute();
  await db.schema.dropTable('sandbox_subscriptions').execute();
  await db.schema.dropIndex('subscriptions_renew_expires').execute();
  await db.schema.dropIndex('subscriptions_gateway_ref_uq').execute();
  for (const column of ['grace_until', 'renewal_failed_at', 'period_days', 'renewal_currency', 'renewal_amount', 'auto_renew']) {
    await db.schema.alterTable('subscriptions').dropColumn(column).execute();
  }
}
