import type { Kysely } from 'kysely';

/**
 * Admin console: payouts (a batch of earnings marked paid at once) and the indexes the console's
 * lists read by: the audit log by actor and by target, unpaid earnings per performer.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('payouts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('performer_id', 'text', (c) => c.notNull().references('performers.id'))
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('earnings_count', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('actor_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payouts_performer_created').on('payouts').columns(['performer_id', 'created_at']).execute();
  await db.schema.createIndex('earnings_performer_paid').on('earnings').columns(['performer_id', 'is_paid']).execute();
  await db.schema.createIndex('audit_log_actor_created').on('audit_log').columns(['actor_id', 'created_at']).execute();
  await db.schema.createIndex('audit_log_target').on('audit_log').columns(['target_type', 'target_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_log_target').execute();
  await db.schema.dropIndex('audit_log_actor_created').execute();
  await db.schema.dropIndex('earnings_performer_paid').execute();
  await db.schema.dropIndex('payouts_performer_created').execute();
  await db.schema.dropTable('payouts').execute();
}
