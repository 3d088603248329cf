import { sql, type Kysely } from 'kysely';

/**
 * notifications_unpushed: a user's notifications not yet sent to their sockets, newest first. Each new notification
 * is pushed by claiming the recipient's unpushed rows of the last minutes; through notifications_user_created that
 * walked every row of those minutes, pushed or not, so a performer whom hundreds of fans write to or comment on read
 * more rows with every message. The index holds only unpushed rows, a handful at any time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('notifications_unpushed').on('notifications').columns(['user_id', 'created_at']).where(sql.ref('pushed_at'), 'is', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('notifications_unpushed').ifExists().execute();
}
