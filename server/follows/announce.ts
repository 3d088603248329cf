import type { Logger } from 'pino';
import type { Db, DbOrTrx } from '../db/database.js';
import { nowIso } from '../db/ids.js';
import type { JobQueue } from '../jobs/queue.js';
import { everyone } from '../catalogue/audience.js';
import type { RealtimeEmitter } from '../realtime/hub.js';
import type { FeedKind } from '../../common/schemas/feed.js';
import { audiencePage, findAnnounceable, insertAnnouncement } from './follows.repository.js';

/**
 * `content/new`: when a post, video or gallery becomes public, its performer's followers and live subscribers are
 * told over socket.io (server/realtime/README.md), on every instance through the Redis adapter.
 *
 * An item becomes public in several ways: published from the studio (posts and galleries at once), a video's
 * processing finishing, a scheduled time coming. Each of these enqueues `content.announce` in its own transaction
 * (at the scheduled time when there is one), and the job decides: the item is public now, was published within
 * ANNOUNCE_WINDOW_MS (an old item edited or put back is not news), and was never announced (content_announcements:
 * one row per item, so repeated or concurrent jobs announce it once). A job that finds the item not yet public does
 * nothing: whatever makes it public later enqueues again.
 *
 * The payload is ids and the time only (common/realtime.ts `NewContent`): the browser asks its feed over HTTP, which
 * applies the access and country rules, so nothing a locked card would not show ever rides on the socket.
 */

export const JOB_ANNOUNCE = 'content.announce';

export interface AnnounceJob {
  objectType: FeedKind;
  objectId: string;
}

/** How recent an item's publication must be to be announced when it becomes public. */
export const ANNOUNCE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Users per emit: one adapter message carries a batch of user rooms. */
const FAN_OUT_BATCH = 500;

/**
 * In the transaction that may have made an item public: its announcement, when it would be public (`publicAt`, its
 * publication or scheduled time; now when that is past). Call `jobs.wake()` after the commit.
 */
export async function enqueueAnnouncement(jobs: JobQueue, trx: DbOrTrx, item: AnnounceJob & { publicAt: string | null }): Promise<void> {
  const at = item.publicAt && item.publicAt > nowIso() ? new Date(item.publicAt) : undefined;
  await jobs.enqueue<AnnounceJob>(trx, JOB_ANNOUNCE, { objectType: item.objectType, objectId: item.objectId }, { subject: `announce:${item.objectType}:${item.objectId}`, ...(at ? { runAt: at } : {}) });
}

export interface AnnounceDeps {
  db: Db;
  realtime: RealtimeEmitter;
  logger: Logger;
}

/** Announces the item if it is public, recent and not announced yet; answers how many users were addressed (null: not announced). */
export async function announce(deps: AnnounceDeps, job: AnnounceJob, now = new Date()): Promise<number | null> {
  const item = await findAnnounceable(deps.db, job.objectType, job.objectId, everyone(nowIso(now)));
  if (!item?.visible) return null;
  if (Date.parse(item.publishedAt) < now.getTime() - ANNOUNCE_WINDOW_MS) return null;
  if (!(await insertAnnouncement(deps.db, { ...job, performerId: item.performerId, announcedAt: nowIso(now) }))) return null;
  const payload = { ...job, performerId: item.performerId, publishedAt: item.publishedAt };
  let after = '';
  let addressed = 0;
  for (;;) {
    const ids = await audiencePage(deps.db, item.performerId, nowIso(now), after, FAN_OUT_BATCH);
    if (!ids.length) break;
    deps.realtime.emitToUsers(ids, 'content/new', payload);
    addressed += ids.length;
    after = ids.at(-1)!;
    if (ids.length < FAN_OUT_BATCH) break;
  }
  deps.logger.debug({ ...payload, addressed }, 'content announced');
  return addressed;
}

export function registerAnnounceJob(queue: JobQueue, deps: AnnounceDeps): void {
  queue.register<AnnounceJob>(JOB_ANNOUNCE, {
    async run(payload) {
      await announce(deps, payload);
    },
  });
}
