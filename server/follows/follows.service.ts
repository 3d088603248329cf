import type { Db, DbOrTrx } from '../db/database.js';
import { nowIso } from '../db/ids.js';
import { AppError, notFound } from '../http/errors.js';
import type { Cursor } from '../http/pagination.js';
import type { Viewer } from '../access/access.service.js';
import { audienceOf } from '../catalogue/audience.js';
import { extend } from '../catalogue/item-mapper.js';
import { toCard } from '../performers/performers.repository.js';
import type { FollowedPerformer, FollowState } from '../../common/schemas/feed.js';
import type { ListResult } from '../../common/schemas/http.js';
import { addFollow, findFollowTarget, followerCountOf, isFollowing, listFollowedPerformers, removeFollow } from './follows.repository.js';

/**
 * Following (docs/product.md, Follows and the feed): any signed-in account follows a performer for free, not
 * themself, and only a performer it may see (active, approved, not blocking its country); anything else is 404, so a
 * follow reveals nothing about accounts that are not public performers. Following and unfollowing are idempotent, and
 * the follower counter moves in the transaction of the row, only when a row was really inserted or deleted.
 */

type Follower = NonNullable<Viewer>;

const cannotFollowSelf = () => new AppError(400, 'CANNOT_FOLLOW_SELF', 'You cannot follow yourself');

/** The performer `key` names (id or username), refusing oneself; `needVisible`: 404 unless public to the caller. */
async function target(db: DbOrTrx, user: Follower, key: string, country: string | null, needVisible: boolean): Promise<string> {
  const row = await findFollowTarget(db, key, audienceOf(user, country));
  if (row && row.id === user.id) throw cannotFollowSelf();
  if (!row || (needVisible && Number(row.visible) !== 1)) throw notFound('Performer');
  return row.id;
}

export async function followPerformer(db: Db, user: Follower, key: string, country: string | null): Promise<FollowState> {
  const performerId = await target(db, user, key, country, true);
  return db.transaction().execute(async (trx) => {
    const changed = await addFollow(trx, user.id, performerId, nowIso());
    return { performerId, following: true, followerCount: await followerCountOf(trx, performerId), changed };
  });
}

/**
 * Unfollowing works even once the performer is no longer public (a fan can always leave); for a performer the caller
 * may not see and does not follow, it is 404 like any unknown id.
 */
export async function unfollowPerformer(db: Db, user: Follower, key: string, country: string | null): Promise<FollowState> {
  const performerId = await target(db, user, key, country, false);
  const state = await db.transaction().execute(async (trx) => {
    const changed = await removeFollow(trx, user.id, performerId);
    return { performerId, following: false, followerCount: await followerCountOf(trx, performerId), changed };
  });
  if (!state.changed) await target(db, user, key, country, true);
  return state;
}

/** Whether the viewer follows the performer (false for guests): the performer page's viewer state. */
export function viewerFollows(db: DbOrTrx, viewer: Viewer, performerId: string): Promise<boolean> {
  return viewer ? isFollowing(db, viewer.id, performerId) : Promise.resolve(false);
}

/** The performers the user follows, newest follow first, keyset paged; performers no longer public are left out. */
export async function listFollowing(db: DbOrTrx, user: Follower, country: string | null, p: { limit: number; cursor?: Cursor }): Promise<ListResult<FollowedPerformer>> {
  const { rows, total, nextCursor } = await listFollowedPerformers(db, user.id, audienceOf(user, country), p);
  return { items: rows.map((r) => extend(toCard(r), { followedAt: r.createdAt })), total, nextCursor };
}

/** Ends every follow of a user in the caller's transaction (an account deletion), each counter with its row. */
export async function unfollowAll(trx: DbOrTrx, userId: string, performerIds: readonly string[]): Promise<number> {
  let removed = 0;
  for (const performerId of performerIds) if (await removeFollow(trx, userId, performerId)) removed++;
  return removed;
}
