import { sql, type Kysely } from 'kysely';

/**
 * notifications_mailed_unread: a user's mailed rows not read yet, by type and mail time. A message's mail is batched
 * with every unread message mail of its recipient in the last minutes (server/notifications/README.md, Mail); a
 * performer whom hundreds of fans write to holds thousands of message rows, and the index holds only the few mailed
 * and unread.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('notifications_mailed_unread')
    .on('notifications')
    .columns(['user_id', 'type', 'emailed_at'])
    .where((eb) => eb.and([eb(sql.ref('read_at'), 'is', null), eb(sql.ref('emailed_at'), 'is not', null)]))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('notifications_mailed_unread').ifExists().execute();
}
