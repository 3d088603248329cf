import type { Kysely } from 'kysely';

/**
 * Views are rows. Until now `videos.view_count` and `performers.view_count` were only ever
 * written by the demo seed, so every number of views the site showed was made up. A view is now one row, written when
 * someone who may watch a video starts playing it (`POST /user/assets/videos/{id}/views`, sent by the player), in the
 * same transaction that adds one to the video's and its performer's `view_count`: the counters are the number of
 * rows. `viewer` is `u:<user id>` or, for a guest, `g:<keyed hash of the IP>` (never the IP itself); a viewer's
 * repeated plays within the hour count once. No foreign keys: the views of a deleted video stay in its performer's
 * total, which counts the rows by `performer_id`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('video_views')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('video_id', 'text', (c) => c.notNull())
    .addColumn('performer_id', 'text', (c) => c.notNull())
    .addColumn('viewer', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // "Has this viewer played this video within the hour?" and counting a video's views.
  await db.schema.createIndex('video_views_video_viewer').on('video_views').columns(['video_id', 'viewer', 'created_at']).execute();
  // Counting a performer's views when counters are checked.
  await db.schema.createIndex('video_views_performer').on('video_views').columns(['performer_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('video_views').ifExists().execute();
}
