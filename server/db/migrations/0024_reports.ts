import { sql, type Kysely } from 'kysely';

/**
 * Reports (docs/product.md, Reports): a signed-in user reports a performer, an item or a comment to the admins.
 *
 * reports: one row per report. target_type / target_id name what was reported (server/reports/targets.ts resolves
 * them); reason is one of a fixed list, details the reporter's optional words. status is open until an admin acts on
 * the target, then resolved with the outcome (removed, suspended, dismissed), resolved_at and resolved_by (the admin).
 * reports_one_open_uq: at most one open report per reporter and target. Two reports racing both pass the service's
 * read; the second insert then fails on this index and is answered 409, like a repeat.
 * reports_status_created: the console's queue by status, oldest first, and the dashboard's open / overdue counts.
 * reports_target_status: every open report of one target, which one admin action resolves together.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('reports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('reporter_id', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('details', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('outcome', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('resolved_at', 'text')
    .addColumn('resolved_by', 'text')
    .execute();
  // Literal status: a partial index's predicate cannot take bound parameters on PostgreSQL.
  await sql`create unique index reports_one_open_uq on reports (reporter_id, target_type, target_id) where status = 'open'`.execute(db);
  await db.schema.createIndex('reports_status_created').on('reports').columns(['status', 'created_at', 'id']).execute();
  await db.schema.createIndex('reports_target_status').on('reports').columns(['target_type', 'target_id', 'status']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('reports').ifExists().execute();
}
