import { sql, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { galleryIsPublic, performerIsPublic, postIsPublic, productIsPublic, videoIsPublic, type Audience } from '../catalogue/catalogue.repository.js';
import { audienceValues } from '../catalogue/audience.js';
import { prepared } from '../db/prepared.js';
import { blockQuery } from '../blocks/blocks.repository.js';
import type { Access, Database } from '../db/schema.js';
import type { EngagementObjectType } from '../../common/enums.js';

/**
 * The objects users comment on and react to (videos, galleries, products, posts, performers): finding one
 * with its performer and visibility, and its engagement counters. The only SQL of engagement that touches
 * the content tables, besides a reaction's one statement on PostgreSQL (reactions.repository.ts), which moves a
 * counter named here.
 */

export interface Target {
  objectType: EngagementObjectType;
  objectId: string;
  /** The performer who owns the object (a performer owns itself); null for site posts. */
  performerId: string | null;
  title: string;
  /** Whether the audience may see it now (published, active, its performer visible to the audience). */
  visible: boolean;
  /**
   * What opens the object (server/access): a video's, gallery's or performer's post's own level, `sale` for a
   * digital product; physical products, the site's posts and performers are `free`. Its discussion follows it (server/comments/discussion.ts).
   */
  access: Access;
  /** The public comment counter. */
  commentCount: number;
  /**
   * Whether its performer blocked the audience's own user (a comment is refused: server/blocks); read only when asked
   * (`{ block: true }`: a comment), false otherwise and for a guest.
   */
  blocked: boolean;
}

export const engagementTables = {
  video: 'videos',
  gallery: 'galleries',
  product: 'products',
  post: 'posts',
  performer: 'performers',
} as const satisfies Record<EngagementObjectType, string>;

// `viewerId`: the user whose block is read, null when none is (the audience's own `selfId` is bound only where a country block applies).
type TargetValues = Audience & { objectId: string; viewerId: string | null };
const TARGET_VALUES = ['objectId', 'now', 'country', 'selfId', 'viewerId'] as const;

/** The `blocked` column of a target's row: its performer's block of the signed-in user, read with the row. */
function blockedColumn(db: DbOrTrx, performerId: string, viewerId: string | null) {
  // Nobody's block to read: a shape of its own (prepared statements compile each absent value apart).
  return (eb: ExpressionBuilder<Database, keyof Database>) => (viewerId === null ? eb.lit<SqlBool>(false) : eb.exists(blockQuery(db, sql.ref<string>(performerId), viewerId))).as('blocked');
}

/**
 * Each kind's lookup, compiled once (server/db/prepared.ts): every like, comment and discussion read starts with one
 * (measured with the crowd's other write statements: docs/deploy.md, "The writes' statements compiled once").
 */
const targetOf = {
  video: prepared(TARGET_VALUES, (db, v: TargetValues) =>
    db
      .selectFrom('videos')
      .select(['videos.id', 'videos.performerId', 'videos.title', 'videos.access', 'videos.commentCount'])
      .select(videoIsPublic(v).as('visible'))
      .select(blockedColumn(db, 'videos.performerId', v.viewerId))
      .where('videos.id', '=', v.objectId),
  ),
  gallery: prepared(TARGET_VALUES, (db, v: TargetValues) =>
    db
      .selectFrom('galleries')
      .select(['galleries.id', 'galleries.performerId', 'galleries.title', 'galleries.access', 'galleries.commentCount'])
      .select(galleryIsPublic(v).as('visible'))
      .select(blockedColumn(db, 'galleries.performerId', v.viewerId))
      .where('galleries.id', '=', v.objectId),
  ),
  product: prepared(TARGET_VALUES, (db, v: TargetValues) =>
    db
      .selectFrom('products')
      .select(['products.id', 'products.performerId', 'products.name as title', 'products.commentCount'])
      // A digital product is a sale item (its file opens for buyers); a physical one has nothing locked.
      .select(sql<Access>`case when ${sql.ref('products.type')} = 'digital' then 'sale' else 'free' end`.as('access'))
      .select(productIsPublic(v).as('visible'))
      .select(blockedColumn(db, 'products.performerId', v.viewerId))
      .where('products.id', '=', v.objectId),
  ),
  post: prepared(TARGET_VALUES, (db, v: TargetValues) =>
    db
      .selectFrom('posts')
      .select(['posts.id', 'posts.performerId', 'posts.title', 'posts.commentCount'])
      // A performer's post opens like a video; the site's own posts are free.
      .select(sql<Access>`case when ${sql.ref('posts.performerId')} is null then 'free' else ${sql.ref('posts.access')} end`.as('access'))
      .select(postIsPublic(v).as('visible'))
      .select(blockedColumn(db, 'posts.performerId', v.viewerId))
      .where('posts.id', '=', v.objectId),
  ),
  // A performer's own visibility has no time in it.
  performer: prepared(['objectId', 'country', 'selfId', 'viewerId'], (db, v: TargetValues) =>
    db
      .selectFrom('performers')
      .select(['performers.id', 'performers.id as performerId', 'performers.displayName as title', 'performers.commentCount'])
      .select(sql<Access>`'free'`.as('access'))
      .select(performerIsPublic(v).as('visible'))
      .select(blockedColumn(db, 'performers.id', v.viewerId))
      .where('performers.id', '=', v.objectId),
  ),
} satisfies Record<EngagementObjectType, unknown>;

/** What a lookup reads besides the object: `block`, whether its performer blocked the audience's own user. */
export interface TargetReading {
  block?: boolean;
}

/** An object by id (not slug), visible or not; undefined when there is no such row. */
export async function findTarget(db: DbOrTrx, objectType: EngagementObjectType, objectId: string, a: Audience, reading: TargetReading = {}): Promise<Target | undefined> {
  // Only a comment needs the block (a like from a blocked fan is allowed), so likes and reads leave it out.
  const [row] = await targetOf[objectType](db, { objectId, ...audienceValues(a), viewerId: reading.block ? a.selfId : null });
  if (!row) return undefined;
  // 0/1 on SQLite, a boolean on PostgreSQL.
  return {
    objectType,
    objectId: row.id,
    performerId: row.performerId,
    title: row.title,
    visible: Number(row.visible) === 1,
    access: row.access,
    commentCount: Number(row.commentCount),
    blocked: Number(row.blocked) === 1,
  };
}

export type CounterName = 'like' | 'favourite' | 'comment';
/** adjustCounter's statements, one per table, counter and direction, each compiled once (server/db/prepared.ts). */
const counterStatements = new Map<string, (db: DbOrTrx, v: { objectId: string }) => Promise<Record<string, unknown>[]>>();
export const counterColumns = { like: 'likeCount', favourite: 'favouriteCount', comment: 'commentCount' } as const;

/** A counter's new value: one more, or one less but never below zero. */
export function counterStep(column: string, delta: 1 | -1) {
  const ref = sql.ref(column);
  return delta > 0 ? sql<number>`${ref} + 1` : sql<number>`case when ${ref} > 0 then ${ref} - 1 else 0 end`;
}

/**
 * Adds `delta` (+1 or -1) to a counter of an object and answers the new value (undefined when the row is
 * gone). One UPDATE, atomic on both engines; a decrement never goes below zero. Call it in the transaction
 * that inserted or deleted the row being counted, and only when that row was really inserted or deleted.
 */
export async function adjustCounter(
  db: DbOrTrx,
  objectType: EngagementObjectType,
  objectId: string,
  counter: CounterName,
  delta: 1 | -1,
): Promise<number | undefined> {
  const column = counterColumns[counter];
  const key = `${objectType}:${counter}:${delta}`;
  let statement = counterStatements.get(key);
  if (!statement) {
    const value = counterStep(column, delta);
    // Every engagement table has the three counters (0001 and 0004); the dynamic table defeats Kysely's typing.
    statement = prepared(['objectId'], (db, v) =>
      (db as DbOrTrx & { updateTable(t: string): any }).updateTable(engagementTables[objectType]).set({ [column]: value }).where('id', '=', v.objectId).returning(column),
    );
    counterStatements.set(key, statement);
  }
  const [row] = await statement(db, { objectId });
  return row ? Number((row as Record<string, unknown>)[column]) : undefined;
}

/** The current value of a counter (undefined when the object is gone). */
export async function readCounter(db: DbOrTrx, objectType: EngagementObjectType, objectId: string, counter: CounterName): Promise<number | undefined> {
  const column = counterColumns[counter];
  const row = await (db as DbOrTrx & { selectFrom(t: string): any })
    .selectFrom(engagementTables[objectType])
    .select(column)
    .where('id', '=', objectId)
    .executeTakeFirst();
  return row ? Number((row as Record<string, unknown>)[column]) : undefined;
}

/**
 * Sets the like and favourite counters of every object of every engagement table to its reactions, counted: one
 * UPDATE per table. For loading reactions in bulk (the demo seed writes its demo fans' reactions in batches, then
 * counts them with this) and for repairing counters; a request changing one reaction uses `adjustCounter`.
 */
export async function recountReactionCounters(db: DbOrTrx): Promise<void> {
  for (const [objectType, table] of Object.entries(engagementTables) as Array<[EngagementObjectType, string]>) {
    const count = (action: 'like' | 'favourite') =>
      sql<number>`(select count(*) from reactions r where r.object_type = ${objectType} and r.object_id = ${sql.ref(`${table}.id`)} and r.action = ${action})`;
    await (db as DbOrTrx & { updateTable(t: string): any }).updateTable(table).set({ likeCount: count('like'), favouriteCount: count('favourite') }).execute();
  }
}
