import { sql, type Kysely } from 'kysely';

/**
 * Takedown requests (docs/product.md, Takedown requests): anyone depicted in content, or representing them, or owning
 * its copyright, asks for its removal through the public form, without an account.
 *
 * takedown_requests: one row per request, so every requester is on record. target_type / target_id: the item the
 * address resolved to (server/takedowns/target-url.ts); url: the address as typed. The first open request of an item
 * is its lead (is_lead 1): it hid the item and keeps the status the item had before (previous_status), which a
 * restore puts back. Later requests of the same item while it is open are followers (is_lead 0): they change nothing
 * but are resolved, and their requesters told, with the lead. status: open, then upheld (the item stays hidden) or
 * restored; resolved_at / resolved_by (the admin).
 * takedown_requests_one_lead_uq: one open lead per item. Two first requests at once both pass the service's read; the
 * second insert fails here and is filed again as a follower, so an item is hidden once and its previous status is
 * never recorded as `hidden` by the takedown's own hide.
 * takedown_requests_status_created: the console's queue, oldest first, and the open / overdue counts.
 * takedown_requests_target: every request of one item, which one admin action resolves together.
 * reference: what the requester's mails quote (unique).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('takedown_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('reference', 'text', (c) => c.notNull().unique())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('requester_name', 'text', (c) => c.notNull())
    .addColumn('requester_email', 'text', (c) => c.notNull())
    .addColumn('relationship', 'text', (c) => c.notNull())
    .addColumn('statement', 'text', (c) => c.notNull())
    .addColumn('declared_at', 'text', (c) => c.notNull())
    .addColumn('is_lead', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('previous_status', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('resolved_at', 'text')
    .addColumn('resolved_by', 'text')
    .execute();
  // Literal predicate: a partial index's predicate cannot take bound parameters on PostgreSQL.
  await sql`create unique index takedown_requests_one_lead_uq on takedown_requests (target_type, target_id) where status = 'open' and is_lead = 1`.execute(db);
  await db.schema.createIndex('takedown_requests_status_created').on('takedown_requests').columns(['status', 'created_at', 'id']).execute();
  await db.schema.createIndex('takedown_requests_target').on('takedown_requests').columns(['target_type', 'target_id', 'status']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('takedown_requests').ifExists().execute();
}
