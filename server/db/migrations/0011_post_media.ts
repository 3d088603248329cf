import type { Kysely } from 'kysely';

/**
 * Performers' posts as fans know them: text with up to ten pictures or one video, open to everyone, to subscribers,
 * or to buyers (pay-per-view), like videos and galleries.
 *
 * - `posts.access` / `posts.price`: the same levels as videos and galleries (server/access); site posts and pages
 *   stay `free`. A purchase of a post is an entitlement of object type 'post'.
 * - `post_media`: the pictures or the video of a post, in order. `file_id` is the upload (private); the processing job
 *   makes `preview_file_id` (public: a thumbnail, or the video's poster, blurred while the post is locked) and, for a
 *   picture, `display_file_id` (the picture shown in full: public for a free post, private behind signed URLs
 *   otherwise). A locked post's media also get `thumb_file_id`, a sharp thumbnail or poster (private) for the
 *   people it is open to; a free post's preview is sharp already.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('posts').addColumn('access', 'text', (c) => c.notNull().defaultTo('free')).execute();
  await db.schema.alterTable('posts').addColumn('price', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  await db.schema
    .createTable('post_media')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('post_id', 'text', (c) => c.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('file_id', 'text', (c) => c.notNull())
    .addColumn('display_file_id', 'text')
    .addColumn('preview_file_id', 'text')
    .addColumn('thumb_file_id', 'text')
    .addColumn('processing_status', 'text', (c) => c.notNull().defaultTo('processing'))
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('duration', 'real')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // A post's media in order, and the media of a page of posts (one range per post).
  await db.schema.createIndex('post_media_post').on('post_media').columns(['post_id', 'position', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('post_media').execute();
  await db.schema.alterTable('posts').dropColumn('price').execute();
  await db.schema.alterTable('posts').dropColumn('access').execute();
}
