import type { Kysely } from 'kysely';

/**
 * Tips (server/payments/README.md, "Tips"): a fan gives a performer an amount of their choosing, paid through the
 * ordinary checkout and settlement. The money is a payment of type 'tip' with one payment item of object type 'tip'
 * pointing at the row here; its earning, refunds and chargebacks are the settlement's, as for any item.
 *
 * tips: what the payment tables do not say. `context_type` / `context_id` name where the tip was given (the
 * performer's page, one of their posts or videos; later a message or a conversation), `note` the fan's words. One
 * tip per payment (`tips_payment_uq`), so the settlement finds the tip of the payment it marks paid.
 * `tips_performer_created` lists a performer's tips newest first; `tips_user_created` a fan's.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tips')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('payment_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('performer_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('context_type', 'text')
    .addColumn('context_id', 'text')
    .addColumn('note', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tips_payment_uq').on('tips').column('payment_id').unique().execute();
  await db.schema.createIndex('tips_performer_created').on('tips').columns(['performer_id', 'created_at']).execute();
  await db.schema.createIndex('tips_user_created').on('tips').columns(['user_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('tips').ifExists().execute();
}
