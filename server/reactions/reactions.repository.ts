import { sql } from 'kysely';
import type { Db, DbOrTrx } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import { galleryIsPublic, isSqlite, videoIsPublic, type Audience } from '../catalogue/catalogue.repository.js';
import type { EngagementObjectType, ReactionAction } from '../../common/enums.js';
import { adjustCounter, counterColumns, counterStep, engagementTables, readCounter, type CounterName } from './targets.repository.js';

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

type NewReaction = ReactionKey & { id: string; createdAt: string };

// A like on SQLite and a watch-later on both engines run it: compiled once (server/db/prepared.ts).
const insertOne = prepared(['id', 'userId', 'objectType', 'objectId', 'action', 'createdAt'], (db, v: NewReaction) => insertUnlessHeld(db, v));

/** The reaction's insert, a no-op when the key exists, answering the id inserted: alone, or inside PostgreSQL's counted statement. */
const insertUnlessHeld = (db: DbOrTrx, v: NewReaction) =>
  db.insertInto('reactions').values(v).onConflict((oc) => oc.columns(['userId', 'objectType', 'action', 'objectId']).doNothing()).returning('id');

/** The reaction's delete, answering the id deleted: alone, or inside PostgreSQL's counted statement. */
const deleteHeld = (db: DbOrTrx, key: ReactionKey) =>
  db.deleteFrom('reactions').where('userId', '=', key.userId).where('objectType', '=', key.objectType).where('action', '=', key.action).where('objectId', '=', key.objectId).returning('id');

/** What a reaction's change did: whether a row was inserted or deleted, and the object's counter after it. */
export interface CountedChange {
  changed: boolean;
  /** Undefined when the object is gone. */
  count: number | undefined;
}

/**
 * Inserts the reaction (a no-op when it exists) and adds one to the object's `counter` only when a row was really
 * inserted, so that repeated and concurrent calls leave exact counts; answers the counter after it (its current value
 * when nothing changed). Nothing is added to an object that is gone (count undefined).
 *
 * On PostgreSQL this and `removeReactionCounted` are one statement each, atomic as any statement: the reaction's insert
 * or delete, then the counter's UPDATE only when that changed a row (data-modifying CTEs). A like was five round trips
 * there (the lookup, BEGIN, the insert, the UPDATE, COMMIT) and is two. On SQLite they are the same steps in one
 * transaction: its statements run in the process, with no round trip to save.
 */
export async function addReactionCounted(db: Db, reaction: NewReaction, counter: CounterName): Promise<CountedChange> {
  const change = await changeCounted(db, reaction, counter, 1, (trx) => insertReaction(trx, reaction, reaction.id, reaction.createdAt));
  if (change.changed && change.count === undefined) {
    // Added to an object deleted since it was found: taken back (SQLite's transaction is undone instead).
    await deleteReaction(db, reaction);
    return { changed: false, count: undefined };
  }
  return change;
}

/** Deletes the reaction (a no-op when absent) and takes one from the object's `counter` when a row was deleted, as above. */
export async function removeReactionCounted(db: Db, key: ReactionKey, counter: CounterName): Promise<CountedChange> {
  return changeCounted(db, key, counter, -1, (trx) => deleteReaction(trx, key));
}

async function changeCounted(db: Db, key: ReactionKey | NewReaction, counter: CounterName, delta: 1 | -1, write: (trx: DbOrTrx) => Promise<boolean>): Promise<CountedChange> {
  if (!isSqlite(db)) {
    // A removal's statement binds the key's values only (its names leave out the id and the time).
    const [row] = await countedStatement(key.objectType, counter, delta)(db, key as NewReaction);
    return { changed: Number(row!.changed) > 0, count: row!.count === null ? undefined : Number(row!.count) };
  }
  return db
    .transaction()
    .execute(async (trx) => {
      const changed = await write(trx);
      const count = changed ? await adjustCounter(trx, key.objectType, key.objectId, counter, delta) : await readCounter(trx, key.objectType, key.objectId, counter);
      // Added to an object deleted since it was found: undone. (A reaction to an object that is gone can still be taken back.)
      if (delta > 0 && changed && count === undefined) throw GONE;
      return { changed, count };
    })
    .catch((err: unknown) => {
      if (err === GONE) return { changed: false, count: undefined };
      throw err;
    });
}

/** Thrown to undo a transaction whose object is gone. */
const GONE = new Error('the object is gone');

type CountedRow = { changed: number | string; count: number | string | null };

/** The PostgreSQL statements, one per object type, counter and direction, each compiled once (server/db/prepared.ts). */
const countedStatements = new Map<string, (db: DbOrTrx, v: NewReaction) => Promise<CountedRow[]>>();

function countedStatement(objectType: EngagementObjectType, counter: CounterName, delta: 1 | -1) {
  const key = `${objectType}:${counter}:${delta}`;
  let statement = countedStatements.get(key);
  if (statement) return statement;
  const table = engagementTables[objectType];
  const column = counterColumns[counter];
  const names = delta > 0 ? (['id', 'userId', 'objectType', 'objectId', 'action', 'createdAt'] as const) : (['userId', 'objectType', 'objectId', 'action'] as const);
  statement = prepared(names, (db, v: NewReaction) => {
    const change = delta > 0 ? insertUnlessHeld(db, v) : deleteHeld(db, v);
    // Every engagement table has the three counters (0001 and 0004); the dynamic table defeats Kysely's typing.
    const counted = (db as DbOrTrx & { updateTable(t: string): any })
      .updateTable(table)
      .set({ [column]: counterStep(column, delta) })
      .where('id', '=', v.objectId)
      .where(sql<boolean>`exists (select 1 from changed)`)
      .returning(column);
    const ref = sql.ref(column);
    return db
      .with('changed', () => change)
      .with('counted', () => counted)
      .selectNoFrom([
        sql<number>`(select count(*) from changed)`.as('changed'),
        // Nothing changed: the counter as it stands.
        sql<number | null>`coalesce((select ${ref} from counted), (select ${ref} from ${sql.table(table)} where id = ${v.objectId}))`.as('count'),
      ]);
  });
  countedStatements.set(key, statement);
  return statement;
}

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
  const rows = await deleteHeld(db, key).execute();
  return rows.length > 0;
}

export interface ReactionFilters {
  objectType?: EngagementObjectType;
  action?: ReactionAction;
  objectIds?: string[];
  limit: number;
  offset: number;
}

/**
 * Whether the user holds each action on the object `objectRef` names (a column of the lookup it is added to), as three
 * `reacted_<action>` columns (0/1 on SQLite, booleans on PostgreSQL): an object's lookup then answers the viewer's
 * reactions too, in its one statement (each an index probe of `reactions_unique`).
 */
export function reactedColumns(userId: string, objectType: EngagementObjectType, objectRef: string) {
  const held = (action: ReactionAction) =>
    sql<boolean | number>`exists (select 1 from reactions where reactions.user_id = ${userId} and reactions.object_type = ${objectType} and reactions.action = ${action} and reactions.object_id = ${sql.ref(objectRef)})`;
  return [held('like').as('reactedLike'), held('favourite').as('reactedFavourite'), held('watch_later').as('reactedWatchLater')] as const;
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
