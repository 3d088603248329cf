import type { Expression } from 'kysely';
import type { DbOrTrx } from '../db/database.js';

/** SQL of performers' blocks of fans (migration 0021). */

export async function findBlock(db: DbOrTrx, performerId: string, userId: string): Promise<boolean> {
  return Boolean(await blockQuery(db, performerId, userId).executeTakeFirst());
}

/** The performer's block of the user: a row or none. */
export function blockQuery(db: DbOrTrx, performerId: string | Expression<string>, userId: string | Expression<string>) {
  return db.selectFrom('performerBlocks').select('userId').where('performerId', '=', performerId).where('userId', '=', userId);
}

/** Inserts the block unless it exists: whether a row was inserted. */
export async function insertBlock(db: DbOrTrx, performerId: string, userId: string, createdAt: string): Promise<boolean> {
  const rows = await db
    .insertInto('performerBlocks')
    .values({ performerId, userId, createdAt })
    .onConflict((oc) => oc.columns(['performerId', 'userId']).doNothing())
    .returning('userId')
    .execute();
  return rows.length > 0;
}

export async function deleteBlock(db: DbOrTrx, performerId: string, userId: string): Promise<boolean> {
  const rows = await db.deleteFrom('performerBlocks').where('performerId', '=', performerId).where('userId', '=', userId).returning('userId').execute();
  return rows.length > 0;
}

/** The fans a performer blocked, newest first (at most `limit`). */
export function listBlockedFans(db: DbOrTrx, performerId: string, limit: number) {
  return db
    .selectFrom('performerBlocks')
    .innerJoin('users', 'users.id', 'performerBlocks.userId')
    .select(['users.id', 'users.name', 'users.username', 'users.avatarPath', 'performerBlocks.createdAt'])
    .where('performerBlocks.performerId', '=', performerId)
    .orderBy('performerBlocks.createdAt', 'desc')
    .orderBy('users.id', 'desc')
    .limit(limit)
    .execute();
}

/** A signed-in account a performer may block: any account but the performer, by id or username; undefined when none. */
export function findBlockable(db: DbOrTrx, key: string) {
  return db
    .selectFrom('users')
    .select(['id', 'role'])
    .where((eb) => eb.or([eb('id', '=', key), eb('username', '=', key.toLowerCase())]))
    .limit(1)
    .executeTakeFirst();
}
