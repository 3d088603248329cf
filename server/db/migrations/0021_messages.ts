import type { Kysely } from 'kysely';

/**
 * Direct messages between a fan and a performer, and performers' blocks (server/messages/README.md).
 *
 * performers.message_policy: who may write to the performer first: 'subscribers' (a live subscription, the default),
 * 'fans' (any signed-in account) or 'nobody'.
 * conversations: one row per (fan, performer) pair (conversations_pair_uq), with the last message's time and id so the
 * list is ordered by its own index (conversations_fan_last, conversations_performer_last).
 * messages: text and/or attachments, sent by one participant to the other (`recipient_id` is kept so "my unread
 * messages" is one index range, messages_unread); `read_at` is when the recipient saw it. The thread pages by
 * (created_at, id) on messages_conversation_created. `mass_message_id` names the mass message it was delivered for
 * (one per recipient, messages_mass_recipient_uq), so a retried delivery job never writes it twice.
 * message_attachments: the files of a message (images and videos, stored private, served only through signed URLs
 * to the two participants and admins). A later price on a message locks them all at once.
 * performer_blocks: a fan a performer blocked: no messages, comments or new subscriptions to that performer.
 * mass_messages: one message a performer sends to all live subscribers or all followers, delivered by a paced job
 * into each recipient's conversation; `cursor_user_id` is where the job goes on, `total` the audience when it was
 * sent. What was delivered is counted from messages (messages_mass_recipient_uq), never kept as a number.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('performers').addColumn('message_policy', 'text', (c) => c.notNull().defaultTo('subscribers')).execute();
  await db.schema
    .createTable('conversations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('fan_id', 'text', (c) => c.notNull())
    .addColumn('performer_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_message_at', 'text', (c) => c.notNull())
    .addColumn('last_message_id', 'text')
    .execute();
  await db.schema.createIndex('conversations_pair_uq').on('conversations').columns(['fan_id', 'performer_id']).unique().execute();
  await db.schema.createIndex('conversations_fan_last').on('conversations').columns(['fan_id', 'last_message_at', 'id']).execute();
  await db.schema.createIndex('conversations_performer_last').on('conversations').columns(['performer_id', 'last_message_at', 'id']).execute();
  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('sender_id', 'text', (c) => c.notNull())
    .addColumn('recipient_id', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('mass_message_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('read_at', 'text')
    .execute();
  await db.schema.createIndex('messages_conversation_created').on('messages').columns(['conversation_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('messages_unread').on('messages').columns(['recipient_id', 'read_at', 'conversation_id']).execute();
  await db.schema.createIndex('messages_mass_recipient_uq').on('messages').columns(['mass_message_id', 'recipient_id']).unique().execute();
  await db.schema
    .createTable('message_attachments')
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('file_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('message_attachments_pk', ['message_id', 'file_id'])
    .execute();
  await db.schema
    .createTable('performer_blocks')
    .addColumn('performer_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('performer_blocks_pk', ['performer_id', 'user_id'])
    .execute();
  await db.schema
    .createTable('mass_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('performer_id', 'text', (c) => c.notNull())
    .addColumn('audience', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('file_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('total', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('sending'))
    .addColumn('cursor_user_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('mass_messages_performer_created').on('mass_messages').columns(['performer_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mass_messages').ifExists().execute();
  await db.schema.dropTable('performer_blocks').ifExists().execute();
  await db.schema.dropTable('message_attachments').ifExists().execute();
  await db.schema.dropTable('messages').ifExists().execute();
  await db.schema.dropTable('conversations').ifExists().execute();
  await db.schema.alterTable('performers').dropColumn('message_policy').execute();
}
