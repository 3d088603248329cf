import { PostgresAdapter, sql, type SqlBool } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { galleryIsPublic, performerIsPublic, postIsPublic, productIsPublic, videoIsPublic, type Audience } from '../catalogue/catalogue.repository.js';
import type { Access } from '../db/schema.js';
import type { EngagementObjectType } from '../../common/enums.js';
import { deleteReactionQuery, insertReactionQuery, type ReactionKey } from './reactions.repository.js';

/**
 * The objects users comment on and react to (videos, galleries, products, posts, performers): finding one
 * with its performer and visibility, and its engagement counters. The only SQL of engagement that touches
 * the content tables.
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
}

const tables = {
  video: 'videos',
  gallery: 'galleries',
  product: 'products',
  post: 'posts',
  performer: 'performers',
} as const satisfies Record<EngagementObjectType, string>;

/** An object by id (not slug), visible or not; undefined when there is no such row. */
export async function findTarget(db: DbOrTrx, objectType: EngagementObjectType, objectId: string, a: Audience): Promise<Target | undefined> {
  let row: { id: string; performerId: string | null; title: string; visible: unknown; access: Access; commentCount: number } | undefined;
  switch (objectType) {
    case 'video':
      row = await db
        .selectFrom('videos')
        .select(['videos.id', 'videos.performerId', 'videos.title', 'videos.access', 'videos.commentCount'])
        .select(videoIsPublic(a).as('visible'))
        .where('videos.id', '=', objectId)
        .executeTakeFirst();
      break;
    case 'gallery':
      row = await db
        .selectFrom('galleries')
        .select(['galleries.id', 'galleries.performerId', 'galleries.title', 'galleries.access', 'galleries.commentCount'])
        .select(galleryIsPublic(a).as('visible'))
        .where('galleries.id', '=', objectId)
        .executeTakeFirst();
      break;
    case 'product':
      row = await db
        .selectFrom('products')
        .select(['products.id', 'products.performerId', 'products.name as title', 'products.commentCount'])
        // A digital product is a sale item (its file opens for buyers); a physical one has nothing locked.
        .select(sql<Access>`case when ${sql.ref('products.type')} = 'digital' then 'sale' else 'free' end`.as('access'))
        .select(productIsPublic(a).as('visible'))
        .where('products.id', '=', objectId)
        .executeTakeFirst();
      break;
    case 'post':
      row = await db
        .selectFrom('posts')
        .select(['posts.id', 'posts.performerId', 'posts.title', 'posts.commentCount'])
        // A performer's post opens like a video; the site's own posts are free.
        .select(sql<Access>`case when ${sql.ref('posts.performerId')} is null then 'free' else ${sql.ref('posts.access')} end`.as('access'))
        .select(postIsPublic(a).as('visible'))
        .where('posts.id', '=', objectId)
        .executeTakeFirst();
      break;
    case 'performer':
      row = await db
        .selectFrom('performers')
        .select(['performers.id', 'performers.id as performerId', 'performers.displayName as title', 'performers.commentCount'])
        .select(sql<Access>`'free'`.as('access'))
        .select(performerIsPublic(a).as('visible'))
        .where('performers.id', '=', objectId)
        .executeTakeFirst();
      break;
  }
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
  };
}

export type CounterName = 'like' | 'favourite' | 'comment';
const counterColumns = { like: 'likeCount', favourite: 'favouriteCount', comment: 'commentCount' } as const;

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
  const ref = sql.ref(column);
  const value = delta > 0 ? sql`${ref} + 1` : sql`case when ${ref} > 0 then ${ref} - 1 else 0 end`;
  // Every engagement table has the three counters (0001 and 0004); the dynamic table defeats Kysely's typing.
  const row = await (db as DbOrTrx & { updateTable(t: string): any })
    .updateTable(tables[objectType])
    .set({ [column]: value })
    .where('id', '=', objectId)
    .returning(column)
    .executeTakeFirst();
  return row ? Number((row as Record<string, unknown>)[column]) : undefined;
}

/**
 * Adds or removes the user's reaction and moves the object's counter by what changed, atomically: whether a row
 * changed, and the counter after (undefined when the object is gone). On PostgreSQL one statement (the insert or
 * delete in a WITH, the counter's UPDATE reading how many rows it changed): atomic by itself, one round trip where a
 * transaction took four. On SQLite, where a statement costs no round trip, the same steps in one transaction. A
 * reaction is added only to an object that exists when the statement starts.
 */
export async function changeReaction(
  db: DbOrTrx,
  change: { add: true; id: string; createdAt: string } | { add: false },
  key: ReactionKey,
  counter: CounterName,
): Promise<{ changed: boolean; count: number | undefined }> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) {
    return db.transaction().execute(async (trx) => {
      const changed = change.add ? (await insertReactionQuery(trx, key, change.id, change.createdAt).execute()).length > 0 : (await deleteReactionQuery(trx, key).execute()).length > 0;
      const count = changed ? await adjustCounter(trx, key.objectType, key.objectId, counter, change.add ? 1 : -1) : await readCounter(trx, key.objectType, key.objectId, counter);
      // Deleted since the caller's check: the reaction goes with it.
      if (change.add && count === undefined) throw new ObjectGone();
      return { changed, count };
    });
  }
  const table = tables[key.objectType];
  const column = counterColumns[counter];
  const ref = sql.ref(column);
  const moved = sql<number>`(select count(*) from changed)`;
  const value = change.add ? sql`${ref} + ${moved}` : sql`greatest(${ref} - ${moved}, 0)`;
  // A row always comes back: how many reactions changed, and the counter (null when the object is gone), moved only
  // when a reaction changed (a repeated like writes nothing). The dynamic table defeats Kysely's typing, as in adjustCounter.
  const row = (await (db as DbOrTrx & { with(name: string, q: unknown): any })
    .with('changed', () =>
      change.add
        ? insertReactionQuery(db, key, change.id, change.createdAt, sql<SqlBool>`exists (select 1 from ${sql.table(table)} where id = ${key.objectId})`)
        : deleteReactionQuery(db, key),
    )
    .with('counted', (qb: any) => qb.updateTable(table).set({ [column]: value }).where('id', '=', key.objectId).where(sql`${moved} > 0`).returning(ref.as('n')))
    .selectNoFrom([
      moved.as('moved'),
      sql<number | null>`coalesce((select n from counted), (select ${ref} from ${sql.table(table)} where id = ${key.objectId}))`.as('count'),
    ])
    .executeTakeFirstOrThrow()) as { moved: number | string; count: number | string | null };
  return { changed: Number(row.moved) > 0, count: row.count === null ? undefined : Number(row.count) };
}

/** The object of a reaction being added was deleted between the caller's check and the write. */
export class ObjectGone extends Error {}

/** The current value of a counter (undefined when the object is gone). */
export async function readCounter(db: DbOrTrx, objectType: EngagementObjectType, objectId: string, counter: CounterName): Promise<number | undefined> {
  const column = counterColumns[counter];
  const row = await (db as DbOrTrx & { selectFrom(t: string): any })
    .selectFrom(tables[objectType])
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
  for (const [objectType, table] of Object.entries(tables) as Array<[EngagementObjectType, string]>) {
    const count = (action: 'like' | 'favourite') =>
      sql<number>`(select count(*) from reactions r where r.object_type = ${objectType} and r.object_id = ${sql.ref(`${table}.id`)} and r.action = ${action})`;
    await (db as DbOrTrx & { updateTable(t: string): any }).updateTable(table).set({ likeCount: count('like'), favouriteCount: count('favourite') }).execute();
  }
}
