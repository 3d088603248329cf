import type { Kysely } from 'kysely';

/**
 * Notifications shown and mailed (server/notifications/README.md).
 *
 * notifications: `thread` groups rows that are about one thing (a conversation's messages) so their mails can be
 * batched; `emailed_at` is when its mail went out (claimed by a conditional update, so a retried job mails once);
 * `pushed_at` is when it went to the user's sockets as `notification/created` (claimed the same way, so it goes out
 * once whichever instance pushes). Rows written before this migration count as pushed. `notifications_user_created`
 * walks a user's list newest first, a page at a time.
 * notification_preferences: one row per (user, type) the user has set; no row means the default (email on).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('notifications').addColumn('thread', 'text').execute();
  await db.schema.alterTable('notifications').addColumn('emailed_at', 'text').execute();
  await db.schema.alterTable('notifications').addColumn('pushed_at', 'text').execute();
  await db.updateTable('notifications').set((eb) => ({ pushed_at: eb.ref('created_at') })).execute();
  await db.schema.createIndex('notifications_user_created').on('notifications').columns(['user_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('notifications_user_thread').on('notifications').columns(['user_id', 'thread']).execute();
  await db.schema
    .createTable('notification_preferences')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('email', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('notification_preferences_pk', ['user_id', 'type'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('notification_preferences').ifExists().execute();
  await db.schema.dropIndex('notifications_user_thread').ifExists().execute();
  await db.schema.dropIndex('notifications_user_created').ifExists().execute();
  await db.schema.alterTable('notifications').dropColumn('pushed_at').execute();
  await db.schema.alterTable('notifications').dropColumn('emailed_at').execute();
  await db.schema.alterTable('notifications').dropColumn('thread').execute();
}
