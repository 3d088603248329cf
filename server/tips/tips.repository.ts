import type { Insertable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { TipsTable } from '../db/schema.js';

/** SQL of tips (migration 0022): the row a tip checkout writes beside its payment, and what the pages read of it. */

export async function insertTip(db: DbOrTrx, row: Insertable<TipsTable>): Promise<void> {
  await db.insertInto('tips').values(row).execute();
}

/** The tip a payment pays, with its fan's name (the performer's notification says who tipped). */
export function tipOfPayment(db: DbOrTrx, paymentId: string) {
  return db
    .selectFrom('tips')
    .innerJoin('users', 'users.id', 'tips.userId')
    .select(['tips.id', 'tips.paymentId', 'tips.userId', 'tips.performerId', 'tips.amount', 'tips.contextType', 'tips.contextId', 'tips.note', 'users.name as fanName'])
    .where('tips.paymentId', '=', paymentId)
    .executeTakeFirst();
}

/** The tips of these payments with the title of the post or video each was given on (null on the performer's page). */
export function tipsOfPayments(db: DbOrTrx, paymentIds: readonly string[]) {
  if (!paymentIds.length) return Promise.resolve([]);
  return db
    .selectFrom('tips')
    .leftJoin('videos', (j) => j.onRef('videos.id', '=', 'tips.contextId').on('tips.contextType', '=', 'video'))
    .leftJoin('posts', (j) => j.onRef('posts.id', '=', 'tips.contextId').on('tips.contextType', '=', 'post'))
    .select(['tips.paymentId', 'tips.note', 'tips.contextType', 'tips.contextId', 'videos.title as videoTitle', 'posts.title as postTitle'])
    .where('tips.paymentId', 'in', [...paymentIds])
    .execute();
}
