import type { Kysely } from 'kysely';

/**
 * Watermarks (docs/product.md, Watermarks; server/media/watermark/README.md).
 *
 * files.watermark: what a stamped file carries ("<position>:<opacity>:<text>"), null for a clean one. A run compares it
 * with what the settings want and skips an item that already matches, so a repeated or overlapping run never stamps
 * the same item twice.
 * watermark_runs: one re-processing of the catalogue after the settings changed: the settings it applies, the item
 * count when it started, its page cursor (object type, last id) and when it ended. One run is `running` at a time; a
 * newer one supersedes it.
 * watermark_items: one row per item a run enqueued (unique per run), whose status is the run's progress.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('files').addColumn('watermark', 'text').execute();
  await db.schema
    .createTable('watermark_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('position', 'text', (c) => c.notNull())
    .addColumn('opacity', 'integer', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('cursor_type', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('cursor_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('paged', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('started_by', 'text')
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('watermark_runs_started').on('watermark_runs').columns(['started_at', 'id']).execute();
  await db.schema
    .createTable('watermark_items')
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('watermark_items_pk', ['run_id', 'object_type', 'object_id'])
    .execute();
  await db.schema.createIndex('watermark_items_status').on('watermark_items').columns(['run_id', 'status']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('watermark_items').execute();
  await db.schema.dropTable('watermark_runs').execute();
  await db.schema.alterTable('files').dropColumn('watermark').execute();
}
