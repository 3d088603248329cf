import type { Expression } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import { liveSubscription } from '../access/access.repository.js';
import type { Cursor } from '../http/pagination.js';
import { checkCursor, countQuery, idElseAlt, galleryIsPublic, page, performerIsPublic, postIsPublic, runList, videoIsPublic, type Audience, type SortSpec } from '../catalogue/catalogue.repository.js';
import type { FeedKind } from '../../common/schemas/feed.js';

/**
 * SQL of follows (a fan follows a performer for free), the performer's follower counter, and the record of which
 * items were announced to their audience (`content/new`). Migration 0019.
 */

/**
 * The performers whose new content comes to a user's feed (docs/product.md, Follows and the feed): those they follow
 * (follows_pk) and those they subscribe to now (subscriptions_user_status_expires). Read on every feed page: compiled
 * once (server/db/prepared.ts).
 */
export async function feedPerformerIds(db: DbOrTrx, userId: string, now: string): Promise<string[]> {
  return (await feedPerformers(db, { userId, now })).map((r) => r.performerId);
}

const feedPerformers = prepared(['userId', 'now'], (db, { userId, now }) => feedPerformersQuery(db, userId, now));

/** The statement of feedPerformerIds (exported for the EXPLAIN test). */
export function feedPerformersQuery(db: DbOrTrx, userId: string, now: string) {
  return db
    .selectFrom('follows')
    .select('performerId')
    .where('userId', '=', userId)
    .union(db.selectFrom('subscriptions').select('performerId').where('userId', '=', userId).where(liveSubscription(now)));
}

/** Inserts the follow unless it exists (ON CONFLICT DO NOTHING on follows_pk, both engines): whether a row was inserted. */
export async function insertFollow(db: DbOrTrx, userId: string, performerId: string, createdAt: string): Promise<boolean> {
  const rows = await db
    .insertInto('follows')
    .values({ userId, performerId, createdAt })
    .onConflict((oc) => oc.columns(['userId', 'performerId']).doNothing())
    .returning('performerId')
    .execute();
  return rows.length > 0;
}

/** Deletes the follow: whether a row was deleted (false: there was none, or a concurrent request took it). */
export async function deleteFollow(db: DbOrTrx, userId: string, performerId: string): Promise<boolean> {
  const rows = await db.deleteFrom('follows').where('userId', '=', userId).where('performerId', '=', performerId).returning('performerId').execute();
  return rows.length > 0;
}

/** Moves the performer's follower counter by `by`, in the transaction that really inserted or deleted a row. */
export async function bumpFollowerCount(db: DbOrTrx, performerId: string, by: 1 | -1): Promise<void> {
  await db
    .updateTable('performers')
    .set((eb) => ({ followerCount: eb('followerCount', '+', by) }))
    .where('id', '=', performerId)
    .execute();
}

/**
 * The follow and its counter together, inside the caller's transaction: the counter moves only when a row was really
 * inserted (true) or deleted. Every writer of follows (the service, the demo seed) goes through these two.
 */
export async function addFollow(trx: DbOrTrx, userId: string, performerId: string, at: string): Promise<boolean> {
  const changed = await insertFollow(trx, userId, performerId, at);
  if (changed) await bumpFollowerCount(trx, performerId, 1);
  return changed;
}

export async function removeFollow(trx: DbOrTrx, userId: string, performerId: string): Promise<boolean> {
  const changed = await deleteFollow(trx, userId, performerId);
  if (changed) await bumpFollowerCount(trx, performerId, -1);
  return changed;
}

export async function followerCountOf(db: DbOrTrx, performerId: string): Promise<number> {
  const row = await db.selectFrom('performers').select('followerCount').where('id', '=', performerId).executeTakeFirst();
  return Number(row?.followerCount ?? 0);
}

export async function isFollowing(db: DbOrTrx, userId: string, performerId: string): Promise<boolean> {
  return Boolean(await followQuery(db, userId, performerId).executeTakeFirst());
}

/** The user's follow of the performer (follows_pk): a row or none. */
export function followQuery(db: DbOrTrx, userId: string, performerId: string | Expression<string>) {
  return db.selectFrom('follows').select('performerId').where('userId', '=', userId).where('performerId', '=', performerId);
}

/** A performer row by id or username with whether it is public to `a` (active, approved, not blocking the visitor's country). */
export function findFollowTarget(db: DbOrTrx, key: string, a: Audience) {
  return db
    .selectFrom('performers')
    .select(['performers.id', performerIsPublic(a).as('visible')])
    .where(idElseAlt('performers', 'username', key, key.toLowerCase()))
    .limit(1)
    .executeTakeFirst();
}

/** "Whom do I follow", newest follow first (follows_user_created), public performers only. */
const followedSort: SortSpec = { column: 'follows.createdAt', dir: 'desc', kind: 'string' };

export function followedPerformerQueries(db: DbOrTrx, userId: string, a: Audience, p: { limit: number; cursor?: Cursor }) {
  const base = db
    .selectFrom('follows')
    .innerJoin('performers', 'performers.id', 'follows.performerId')
    .where('follows.userId', '=', userId)
    .where(performerIsPublic(a));
  const select = base.innerJoin('users', 'users.id', 'performers.id').select([
    'performers.id', 'performers.username', 'performers.displayName', 'performers.bio', 'performers.monthlyPrice', 'performers.yearlyPrice',
    'performers.subscriberCount', 'performers.videoCount', 'performers.featured', 'users.avatarPath', 'users.coverPath', 'follows.createdAt',
  ]);
  return {
    // The tie-breaker is the performer's id: one follow per (user, performer), so it is unique within the list.
    page: page(select, followedSort, 'follows.performerId', { limit: p.limit, offset: 0, cursor: checkCursor(p.cursor, followedSort) }),
    count: countQuery(base),
    sort: followedSort,
  };
}

export function listFollowedPerformers(db: DbOrTrx, userId: string, a: Audience, p: { limit: number; cursor?: Cursor }) {
  return runList(followedPerformerQueries(db, userId, a, p), p.limit, { cacheTotal: false });
}

// ---------------------------------------------------------------------------------------------------------------
// Announcing new content.

/** An item of the feed's kinds with its performer, publication time and whether it is public to `a` now; undefined when gone. */
export async function findAnnounceable(db: DbOrTrx, kind: FeedKind, id: string, a: Audience) {
  const row =
    kind === 'video'
      ? await db.selectFrom('videos').select(['videos.performerId', 'videos.publishedAt', videoIsPublic(a).as('visible')]).where('videos.id', '=', id).executeTakeFirst()
      : kind === 'gallery'
        ? await db.selectFrom('galleries').select(['galleries.performerId', 'galleries.publishedAt', galleryIsPublic(a).as('visible')]).where('galleries.id', '=', id).executeTakeFirst()
        : await db
            .selectFrom('posts')
            .select(['posts.performerId', 'posts.publishedAt', postIsPublic(a).as('visible')])
            .where('posts.id', '=', id)
            .where('posts.type', '=', 'post')
            .executeTakeFirst();
  if (!row?.performerId || !row.publishedAt) return undefined;
  return { performerId: row.performerId, publishedAt: row.publishedAt, visible: Number(row.visible) === 1 || row.visible === true };
}

/** Records that an item was announced; false when it already was (content_announcements_pk): announce only on true. */
export async function insertAnnouncement(db: DbOrTrx, row: { objectType: FeedKind; objectId: string; performerId: string; announcedAt: string }): Promise<boolean> {
  const rows = await db
    .insertInto('contentAnnouncements')
    .values(row)
    .onConflict((oc) => oc.columns(['objectType', 'objectId']).doNothing())
    .returning('objectId')
    .execute();
  return rows.length > 0;
}

/**
 * A page of a performer's audience (followers, follows_performer, and live subscribers, subscriptions_performer_status),
 * each user once, by id after `afterUserId`: the realtime fan-out walks it a batch at a time. The performer is left out.
 */
export async function audiencePage(db: DbOrTrx, performerId: string, now: string, afterUserId: string, limit: number): Promise<string[]> {
  const members = db
    .selectFrom('follows')
    .select('userId')
    .where('performerId', '=', performerId)
    .union(db.selectFrom('subscriptions').select('userId').where('performerId', '=', performerId).where(liveSubscription(now)));
  const rows = await db
    .selectFrom(members.as('u'))
    .select('u.userId')
    .where('u.userId', '>', afterUserId)
    .where('u.userId', '<>', performerId)
    .orderBy('u.userId')
    .limit(limit)
    .execute();
  return rows.map((r) => r.userId);
}
