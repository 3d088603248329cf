import { sql } from 'kysely';
import type { DbOrTrx } from '../db/database.js';

/**
 * SQL of video views (migration 0013): one row per counted play, and the two counters that are those rows counted
 * (`videos.view_count`, `performers.view_count`). Call `insertView` inside the transaction that decided the play
 * counts; it moves both counters with the row, so they never drift from it.
 */

export interface ViewRow {
  id: string;
  videoId: string;
  performerId: string;
  viewer: string;
  createdAt: string;
}

/** The viewer's latest counted play of the video at or after `since`, if any (the repeat window). */
export async function viewedSince(db: DbOrTrx, videoId: string, viewer: string, since: string): Promise<boolean> {
  const row = await db
    .selectFrom('videoViews')
    .select('id')
    .where('videoId', '=', videoId)
    .where('viewer', '=', viewer)
    .where('createdAt', '>=', since)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Records one view and adds it to the video's and the performer's `view_count`; answers the video's new count
 * (undefined when the video is gone: the caller rolls back).
 */
export async function insertView(db: DbOrTrx, view: ViewRow): Promise<number | undefined> {
  await db.insertInto('videoViews').values(view).execute();
  const video = await db
    .updateTable('videos')
    .set({ viewCount: sql<number>`view_count + 1` })
    .where('id', '=', view.videoId)
    .returning('viewCount')
    .executeTakeFirst();
  await db.updateTable('performers').set({ viewCount: sql<number>`view_count + 1` }).where('id', '=', view.performerId).execute();
  return video ? Number(video.viewCount) : undefined;
}

/**
 * Many views at once (the demo seed's simulated audience), in batches, then every video's and performer's
 * `view_count` set to its rows counted: the counters are the rows, as `insertView` keeps them one at a time.
 */
export async function insertViewsAndRecount(db: DbOrTrx, views: ViewRow[]): Promise<void> {
  for (let i = 0; i < views.length; i += 200) await db.insertInto('videoViews').values(views.slice(i, i + 200)).execute();
  await db.updateTable('videos').set({ viewCount: sql<number>`(select count(*) from video_views w where w.video_id = videos.id)` }).execute();
  await db.updateTable('performers').set({ viewCount: sql<number>`(select count(*) from video_views w where w.performer_id = performers.id)` }).execute();
}

/** For tests and checks: the real number of views of a video. */
export async function countViews(db: DbOrTrx, videoId: string): Promise<number> {
  const row = await db.selectFrom('videoViews').select((eb) => eb.fn.countAll<number>().as('n')).where('videoId', '=', videoId).executeTakeFirst();
  return Number(row?.n ?? 0);
}
