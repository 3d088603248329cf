import { createHmac } from 'node:crypto';
import type { Db } from '../db/database.js';
import { newId } from '../db/ids.js';
import { AppError, notFound } from '../http/errors.js';
import { checkAccess, videoSubject, type Viewer, mayFind } from '../access/access.service.js';
import { audienceOf } from '../catalogue/catalogue.repository.js';
import { findVideoByKey } from './videos.repository.js';
import { insertView, viewedSince } from './views.repository.js';

/**
 * Views of a video are real plays (docs/architecture.md, "Where the numbers come from"). The player reports the first
 * play of a page (`POST /user/assets/videos/{id}/views`); it counts when the caller may watch the full video (the
 * access rules: free, subscribed, bought), is not its performer or an admin (they are not its audience), and has not
 * been counted for this video within the hour (reloading and playing again is not a new viewer). A counted play is a
 * row in `video_views` plus one on the video's and the performer's `view_count`, in one transaction.
 */

/** A viewer's plays of one video within this window count once. */
export const VIEW_REPEAT_MS = 60 * 60_000;

export interface ViewResult {
  counted: boolean;
  /** The video's views after this call. */
  views: number;
}

/**
 * Who is viewing: the user, or for a guest a keyed hash of the IP (the IP itself is never stored, and the hash cannot
 * be reversed without APP_SECRET).
 */
export function viewerKey(viewer: Viewer, ip: string, secret: string): string {
  if (viewer) return `u:${viewer.id}`;
  return `g:${createHmac('sha256', secret).update(`video-view:${ip}`).digest('hex').slice(0, 32)}`;
}

export async function recordVideoView(
  deps: { db: Db; appSecret: string },
  viewer: Viewer,
  key: string,
  from: { country: string | null; ip: string },
  now = new Date(),
): Promise<ViewResult> {
  const { db } = deps;
  const row = await findVideoByKey(db, key, audienceOf(viewer, from.country, now.toISOString()));
  if (!row || !mayFind(viewer, row.visible, row.performerId)) throw notFound('Video');
  const decision = await checkAccess(db, viewer, videoSubject(row), now);
  if (!decision.open) {
    throw new AppError(403, 'LOCKED', decision.needs === 'subscription' ? 'Subscribe to watch this video' : 'Buy this video to watch it');
  }
  if (decision.reason === 'owner' || decision.reason === 'admin') return { counted: false, views: Number(row.viewCount) };
  const who = viewerKey(viewer, from.ip, deps.appSecret);
  return db.transaction().execute(async (trx) => {
    if (await viewedSince(trx, row.id, who, new Date(now.getTime() - VIEW_REPEAT_MS).toISOString())) return { counted: false, views: Number(row.viewCount) };
    const views = await insertView(trx, { id: newId(now.getTime()), videoId: row.id, performerId: row.performerId, viewer: who, createdAt: now.toISOString() });
    // Deleted between the read and the write: nothing was viewed.
    if (views === undefined) throw notFound('Video');
    return { counted: true, views };
  });
}
