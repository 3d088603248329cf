import type { Insertable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { NotificationsTable } from '../db/schema.js';

/** SQL of notifications (`notifications`: read_at null = unread); server/realtime/notifications.ts says when. */

export async function insertNotification(db: DbOrTrx, row: Insertable<NotificationsTable>): Promise<void> {
  await db.insertInto('notifications').values(row).execute();
}

export async function unreadNotificationCount(db: DbOrTrx, userId: string): Promise<number> {
  const row = await db
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('userId', '=', userId)
    .where('readAt', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
