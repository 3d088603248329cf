import type { Kysely } from 'kysely';

/**
 * Follows and the feed (docs/product.md, Follows and the feed).
 *
 * follows: one row per (fan, performer) the fan follows for free. Its primary key (user_id, performer_id) makes a
 * repeated follow a no-op and answers "does this fan follow this performer"; `follows_user_created` walks "whom do I
 * follow, newest first" a page at a time; `follows_performer` finds a performer's followers (the realtime fan-out,
 * and counting them when counters are checked).
 * performers.follower_count: those rows counted; moved by ±1 in the transaction that really inserted or deleted one.
 * content_announcements: one row per item whose `content/new` went out, so an item is announced once whichever way it
 * became public (published, processed, its scheduled time reached) and however often the job runs.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('follows')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('performer_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('follows_pk', ['user_id', 'performer_id'])
    .execute();
  await db.schema.createIndex('follows_user_created').on('follows').columns(['user_id', 'created_at', 'performer_id']).execute();
  await db.schema.createIndex('follows_performer').on('follows').columns(['performer_id', 'user_id']).execute();
  await db.schema.alterTable('performers').addColumn('follower_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema
    .createTable('content_announcements')
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('performer_id', 'text', (c) => c.notNull())
    .addColumn('announced_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('content_announcements_pk', ['object_type', 'object_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('content_announcements').ifExists().execute();
  await db.schema.alterTable('performers').dropColumn('follower_count').execute();
  await db.schema.dropTable('follows').ifExists().execute();
}
