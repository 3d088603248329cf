import { sql } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import { galleryIsPublic, videoIsPublic, type Audience } from '../catalogue/catalogue.repository.js';
import type { EngagementObjectType, ReactionAction } from '../../common/enums.js';

/** SQL of reactions: one row per (user, object type, action, object), enforced by the `reactions_unique` index. */

export interface ReactionKey {
  userId: string;
  objectType: EngagementObjectType;
  objectId: string;
  action: ReactionAction;
}

/**
 * Inserts the reaction unless it exists (INSERT … ON CONFLICT DO NOTHING RETURNING, on both engines):
 * answers whether a row was inserted. Concurrent inserts of the same key insert one row; the others
 * wait for it on the unique index and insert nothing.
 */
export async function insertReaction(db: DbOrTrx, key: ReactionKey, id: string, createdAt: string): Promise<boolean> {
  const rows = await insertOne(db, { id, ...key, createdAt });
  return rows.length > 0;
}

// Every like runs it: compiled once (server/db/prepared.ts).
const insertOne = prepared(['id', 'userId', 'objectType', 'objectId', 'action', 'createdAt'], (db, v: ReactionKey & { id: string; createdAt: string }) =>
  db
    .insertInto('reactions')
    .values(v)
    .onConflict((oc) => oc.columns(['userId', 'objectType', 'action', 'objectId']).doNothing())
    .returning('id'),
);

/**
 * Many reactions at once (the demo seed's), in batches; an existing key is skipped. Moves no counter: the caller
 * recounts them in the same transaction (`recountReactionCounters`).
 */
export async function insertReactions(db: DbOrTrx, rows: Array<ReactionKey & { id: string; createdAt: string }>): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await db
      .insertInto('reactions')
      .values(rows.slice(i, i + 200))
      .onConflict((oc) => oc.columns(['userId', 'objectType', 'action', 'objectId']).doNothing())
      .execute();
  }
}

/** Deletes the reaction; answers whether a row was deleted (false: there was none, or a concurrent request took it). */
export async function deleteReaction(db: DbOrTrx, key: ReactionKey): Promise<boolean> {
  const rows = await db
    .deleteFrom('reactions')
    .where('userId', '=', key.userId)
    .where('objectType', '=', key.objectType)
    .where('action', '=', key.action)
    .where('objectId', '=', key.objectId)
    .returning('id')
    .execute();
  return rows.length > 0;
}

export interface ReactionFilters {
  objectType?: EngagementObjectType;
  action?: ReactionAction;
  objectIds?: string[];
  limit: number;
  offset: number;
}

/** Which actions the user holds on one object. */
export async function reactedActions(db: DbOrTrx, userId: string, objectType: EngagementObjectType, objectId: string): Promise<ReactionAction[]> {
  const rows = await db
    .selectFrom('reactions')
    .select('action')
    .where('userId', '=', userId)
    .where('objectType', '=', objectType)
    .where('objectId', '=', objectId)
    .execute();
  return rows.map((r) => r.action);
}

/** The user's reactions, newest first. */
export async function searchReactions(db: DbOrTrx, userId: string, f: ReactionFilters) {
  let base = db.selectFrom('reactions').where('reactions.userId', '=', userId);
  if (f.objectType) base = base.where('reactions.objectType', '=', f.objectType);
  if (f.action) base = base.where('reactions.action', '=', f.action);
  if (f.objectIds?.length) base = base.where('reactions.objectId', 'in', f.objectIds);
  const [rows, count] = await Promise.all([
    base
      .select(['reactions.id', 'reactions.objectType', 'reactions.objectId', 'reactions.action', 'reactions.createdAt'])
      .orderBy('reactions.createdAt', 'desc')
      .orderBy('reactions.id', 'desc')
      .limit(f.limit)
      .offset(f.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows, total: Number(count?.n ?? 0) };
}

/**
 * The user's reactions of one action to videos or galleries that are public to `a` now, newest first (on the
 * reactions_user_list index). Hidden or deleted items are left out of the list and of the total.
 */
export async function listReactedContent(
  db: DbOrTrx,
  userId: string,
  objectType: 'video' | 'gallery',
  action: ReactionAction,
  page: { limit: number; offset: number },
  a: Audience,
) {
  const visible =
    objectType === 'video'
      ? sql<boolean>`exists (select 1 from videos where videos.id = ${sql.ref('reactions.objectId')} and ${videoIsPublic(a)})`
      : sql<boolean>`exists (select 1 from galleries where galleries.id = ${sql.ref('reactions.objectId')} and ${galleryIsPublic(a)})`;
  const base = db
    .selectFrom('reactions')
    .where('reactions.userId', '=', userId)
    .where('reactions.objectType', '=', objectType)
    .where('reactions.action', '=', action)
    .where(visible);
  const [rows, count] = await Promise.all([
    base
      .select(['reactions.id', 'reactions.objectId', 'reactions.action', 'reactions.createdAt'])
      .orderBy('reactions.createdAt', 'desc')
      .orderBy('reactions.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows, total: Number(count?.n ?? 0) };
}

/** For tests and checks: the real number of reactions of one action on an object. */
export async function countReactions(db: DbOrTrx, objectType: EngagementObjectType, objectId: string, action: ReactionAction): Promise<number> {
  const row = await db
    .selectFrom('reactions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('objectType', '=', objectType)
    .where('objectId', '=', objectId)
    .where('action', '=', action)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
