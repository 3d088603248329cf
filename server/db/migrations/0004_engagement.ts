import type { Kysely } from 'kysely';

/**
 * Engagement: comments and reactions.
 *
 * 0001 already has the `comments` and `reactions` tables, the unique key of a reaction
 * (`reactions_unique` on user_id, object_type, action, object_id: one of each kind per user and object) and
 * the like/favourite/comment counters of videos, galleries, photos and products. This adds the counters that
 * performers and posts lack, so every object a user may react to or comment on carries exact counts, and the
 * indexes behind "a user's reactions to these objects" and "the comments of a user".
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('performers').addColumn('favourite_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('performers').addColumn('comment_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('posts').addColumn('favourite_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // GET /reactions/search?objectIds=…: the user's reactions to the objects shown on a page.
  await db.schema.createIndex('reactions_user_object').on('reactions').columns(['user_id', 'object_id']).execute();
  // Cleaning up after an object is deleted, and counting reactions per object when counters are checked.
  await db.schema.createIndex('reactions_object').on('reactions').columns(['object_id', 'action']).execute();
  await db.schema.createIndex('comments_user_created').on('comments').columns(['user_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('comments_user_created').ifExists().execute();
  await db.schema.dropIndex('reactions_object').ifExists().execute();
  await db.schema.dropIndex('reactions_user_object').ifExists().execute();
  await db.schema.alterTable('posts').dropColumn('favourite_count').execute();
  await db.schema.alterTable('performers').dropColumn('comment_count').execute();
  await db.schema.alterTable('performers').dropColumn('favourite_count').execute();
}
