import type { Expression, Insertable, Selectable } from 'kysely';
import { cappedCount } from '../db/capped-count.js';
import { prepared } from '../db/prepared.js';
import { liveSubscription } from '../access/access.repository.js';
import { blockQuery } from '../blocks/blocks.repository.js';
import type { DbOrTrx } from '../db/database.js';
import type { MassMessagesTable } from '../db/schema.js';
import type { Cursor } from '../http/pagination.js';
import type { MessagePolicy } from '../../common/enums.js';
import type { MassAudience, MessageAttachmentKind } from '../../common/enums.js';

/** SQL of conversations, messages and their attachments, and performers' message policy (migration 0021). */

export type ConversationRow = { id: string; fanId: string; performerId: string; createdAt: string; lastMessageAt: string; lastMessageId: string | null };

export function findConversation(db: DbOrTrx, id: string): Promise<ConversationRow | undefined> {
  return db.selectFrom('conversations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A conversation with what a fan's message in it depends on: the facts `FanConversationFacts` names, and the performer's policy. */
export type ConversationToWrite = ConversationRow & Omit<FanConversationFacts, 'id'> & { policy: MessagePolicy | null };

/** The conversation and its fan's standing in it, in one statement (sending a message reads nothing else before writing). */
export async function findConversationToWrite(db: DbOrTrx, id: string): Promise<ConversationToWrite | undefined> {
  const [row] = await conversationToWrite(db, { id });
  return row && { ...row, blocked: Boolean(row.blocked), performerWrote: Boolean(row.performerWrote) };
}

// A message's statements are compiled once each (server/db/prepared.ts): every message runs them.
const conversationToWrite = prepared(['id'], (db, { id }) =>
  db
    .selectFrom('conversations')
    .selectAll('conversations')
    .select((eb) => [
      eb.exists(blockQuery(db, eb.ref('conversations.performerId'), eb.ref('conversations.fanId'))).as('blocked'),
      eb.exists(sentQuery(db, eb.ref('conversations.id'), eb.ref('conversations.performerId'))).as('performerWrote'),
      eb.selectFrom('performers').select('performers.messagePolicy').whereRef('performers.id', '=', 'conversations.performerId').as('policy'),
    ])
    .where('conversations.id', '=', id),
);

export function findConversationOf(db: DbOrTrx, fanId: string, performerId: string): Promise<ConversationRow | undefined> {
  return db.selectFrom('conversations').selectAll().where('fanId', '=', fanId).where('performerId', '=', performerId).executeTakeFirst();
}

/** Inserts the pair's conversation unless one exists (conversations_pair_uq, both engines); answers the pair's row. */
export async function ensureConversation(db: DbOrTrx, row: ConversationRow): Promise<ConversationRow> {
  // The row written comes back with the insert; only when the pair had one already is it read.
  const inserted = await db
    .insertInto('conversations')
    .values(row)
    .onConflict((oc) => oc.columns(['fanId', 'performerId']).doNothing())
    .returningAll()
    .executeTakeFirst();
  return inserted ?? (await findConversationOf(db, row.fanId, row.performerId))!;
}

/** An account by id or username with what messaging needs: its role and status, and a performer's policy and standing. */
export async function findCorrespondent(db: DbOrTrx, key: string) {
  const [row] = await correspondent(db, { key, lowerKey: key.toLowerCase() });
  return row;
}
const correspondent = prepared(['key', 'lowerKey'], (db, v) =>
  db
    .selectFrom('users')
    .leftJoin('performers', 'performers.id', 'users.id')
    .select([
      'users.id', 'users.role', 'users.status', 'users.name', 'users.username', 'users.avatarPath',
      'performers.messagePolicy', 'performers.status as performerStatus', 'performers.approved',
    ])
    .where((eb) => eb.or([eb('users.id', '=', v.key), eb('users.username', '=', v.lowerKey)]))
    .limit(1),
);

/** A fan's conversation with a performer (id null: none yet), whether the performer blocked the fan and has written in it. */
export type FanConversationFacts = { id: string | null; blocked: boolean; performerWrote: boolean };

/** The id of the conversation of (fan, performer) (conversations_pair_uq): a row or none. */
export function conversationOfQuery(db: DbOrTrx, fanId: string, performerId: string | Expression<string>) {
  return db.selectFrom('conversations').select('id').where('fanId', '=', fanId).where('performerId', '=', performerId);
}

/** A message `senderId` wrote in the conversation: a row or none (values, or columns of an enclosing statement). */
export function sentQuery(db: DbOrTrx, conversationId: string | Expression<string> | ReturnType<typeof conversationOfQuery>, senderId: string | Expression<string>) {
  return db.selectFrom('messages').select('messages.id').where('messages.conversationId', '=', conversationId).where('messages.senderId', '=', senderId).limit(1);
}

/** A message the performer wrote in their conversation with the fan: a row or none (what hasSent asks of that pair). */
export function performerWroteQuery(db: DbOrTrx, fanId: string, performerId: string | Expression<string>) {
  return sentQuery(db, conversationOfQuery(db, fanId, performerId), performerId);
}

/** Whether `senderId` has sent anything in the conversation. */
export async function hasSent(db: DbOrTrx, conversationId: string, senderId: string): Promise<boolean> {
  return Boolean(await sentQuery(db, conversationId, senderId).executeTakeFirst());
}

export type NewMessage = { id: string; conversationId: string; senderId: string; recipientId: string; body: string; massMessageId: string | null; createdAt: string; price?: number };

export async function insertMessage(db: DbOrTrx, row: NewMessage): Promise<void> {
  await insertOne(db, { ...row, price: row.price });
}
const insertOne = prepared(['id', 'conversationId', 'senderId', 'recipientId', 'body', 'massMessageId', 'createdAt', 'price'], (db, row: NewMessage & { price: number | undefined }) =>
  db.insertInto('messages').values({ ...row, readAt: null }),
);

export async function insertAttachments(db: DbOrTrx, rows: Array<{ messageId: string; fileId: string; kind: MessageAttachmentKind; position: number }>): Promise<void> {
  if (rows.length) await db.insertInto('messageAttachments').values(rows).execute();
}

/** Moves the conversation's last message forward (never back: a slower concurrent send keeps the newer one). */
export async function touchConversation(db: DbOrTrx, id: string, lastMessageId: string, lastMessageAt: string): Promise<void> {
  await touch(db, { id, lastMessageId, lastMessageAt });
}
const touch = prepared(['id', 'lastMessageId', 'lastMessageAt'], (db, { id, lastMessageId, lastMessageAt }) =>
  db
    .updateTable('conversations')
    .set({ lastMessageId, lastMessageAt })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('lastMessageId', 'is', null), eb('lastMessageAt', '<', lastMessageAt), eb.and([eb('lastMessageAt', '=', lastMessageAt), eb('lastMessageId', '<', lastMessageId)])])),
);

/** A thread's page, newest first by (created_at, id) on messages_conversation_created; `cursor` is the last row's. */
export function messagesPage(db: DbOrTrx, conversationId: string, limit: number, cursor?: Cursor) {
  let q = db.selectFrom('messages').selectAll().where('conversationId', '=', conversationId);
  if (cursor) {
    const v = String(cursor.v);
    q = q.where((eb) => eb.or([eb('createdAt', '<', v), eb.and([eb('createdAt', '=', v), eb('id', '<', cursor.id)])]));
  }
  return q.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
}

export function findMessage(db: DbOrTrx, id: string) {
  return db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
}

export type AttachmentRow = Awaited<ReturnType<typeof attachmentsOf>>[number];

/** The attachments of these messages with their files, in position order. */
export function attachmentsOf(db: DbOrTrx, messageIds: readonly string[]) {
  if (!messageIds.length) return Promise.resolve([]);
  return db
    .selectFrom('messageAttachments')
    .innerJoin('files', 'files.id', 'messageAttachments.fileId')
    .select(['messageAttachments.messageId', 'messageAttachments.fileId', 'messageAttachments.kind', 'messageAttachments.position', 'files.mime', 'files.width', 'files.height'])
    .where('messageAttachments.messageId', 'in', messageIds)
    .orderBy('messageAttachments.messageId')
    .orderBy('messageAttachments.position')
    .execute();
}

/**
 * A user's conversations that hold a message, newest activity first by (last_message_at, id), with the other
 * participant, the last message and the user's unread count in each. `side` is the user's column.
 */
export function conversationsPage(db: DbOrTrx, userId: string, side: 'fanId' | 'performerId', limit: number, cursor?: Cursor, onlyId?: string) {
  const otherSide = side === 'fanId' ? 'conversations.performerId' : 'conversations.fanId';
  let q = db
    .selectFrom('conversations')
    .innerJoin('users as other', 'other.id', otherSide)
    .leftJoin('messages as last', 'last.id', 'conversations.lastMessageId')
    .select((eb) => [
      'conversations.id', 'conversations.fanId', 'conversations.performerId', 'conversations.lastMessageAt',
      'other.id as otherId', 'other.name as otherName', 'other.username as otherUsername', 'other.avatarPath as otherAvatarPath', 'other.role as otherRole',
      'last.body as lastBody', 'last.senderId as lastSenderId', 'last.createdAt as lastCreatedAt',
      eb.selectFrom('messageAttachments').select((e) => e.fn.countAll<number>().as('n')).whereRef('messageAttachments.messageId', '=', 'conversations.lastMessageId').as('lastAttachments'),
      eb
        .selectFrom('messages as unread')
        .select((e) => e.fn.countAll<number>().as('n'))
        .whereRef('unread.conversationId', '=', 'conversations.id')
        .where('unread.recipientId', '=', userId)
        .where('unread.readAt', 'is', null)
        .as('unreadCount'),
      eb.selectFrom('performerBlocks').select('performerBlocks.userId').whereRef('performerBlocks.performerId', '=', 'conversations.performerId').whereRef('performerBlocks.userId', '=', 'conversations.fanId').as('blockedFan'),
    ])
    .where(`conversations.${side}`, '=', userId)
    .where('conversations.lastMessageId', 'is not', null);
  if (onlyId) q = q.where('conversations.id', '=', onlyId);
  if (cursor) {
    const v = String(cursor.v);
    q = q.where((eb) => eb.or([eb('conversations.lastMessageAt', '<', v), eb.and([eb('conversations.lastMessageAt', '=', v), eb('conversations.id', '<', cursor.id)])]));
  }
  return q.orderBy('conversations.lastMessageAt', 'desc').orderBy('conversations.id', 'desc').limit(limit + 1).execute();
}

export async function countConversations(db: DbOrTrx, userId: string, side: 'fanId' | 'performerId'): Promise<number> {
  const row = await db
    .selectFrom('conversations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(side, '=', userId)
    .where('lastMessageId', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The user's unread messages over all conversations (messages_unread). */
export async function unreadMessages(db: DbOrTrx, userId: string): Promise<number> {
  const [row] = await unreadOf(db, { userId });
  return Number(row?.n ?? 0);
}

// Sent over the realtime connection whenever the count changes: compiled once (server/db/prepared.ts).
const unreadOf = prepared(['userId'], (db, { userId }) => unreadMessagesQuery(db, userId));

/**
 * The query of unreadMessages (the member header asks it with its other facts: server/users/users.repository.ts),
 * counting up to UNREAD_COUNT_CAP: it runs on every message, so its cost stays bounded by the cap.
 */
export function unreadMessagesQuery(db: DbOrTrx, userId: string) {
  return cappedCount(db, db.selectFrom('messages').where('recipientId', '=', userId).where('readAt', 'is', null));
}

/** Marks every message to `userId` in the conversation read at `at`: how many were unread. */
export async function markRead(db: DbOrTrx, conversationId: string, userId: string, at: string): Promise<number> {
  const result = await db
    .updateTable('messages')
    .set({ readAt: at })
    .where('conversationId', '=', conversationId)
    .where('recipientId', '=', userId)
    .where('readAt', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

// ---------------------------------------------------------------------------------------------------------------
// Removing a message (a report's "remove": server/admin/moderation.ts) and what the console shows around it.

/** The file ids of a message's attachments. */
export async function attachmentFileIds(db: DbOrTrx, messageId: string): Promise<string[]> {
  const rows = await db.selectFrom('messageAttachments').select('fileId').where('messageId', '=', messageId).execute();
  return rows.map((r) => r.fileId);
}

/** Of these files, those another message still shows (a mass message's copies share their files). */
export async function filesAttachedElsewhere(db: DbOrTrx, fileIds: readonly string[], messageId: string): Promise<Set<string>> {
  if (!fileIds.length) return new Set();
  const rows = await db
    .selectFrom('messageAttachments')
    .select('fileId')
    .where('fileId', 'in', [...fileIds])
    .where('messageId', '<>', messageId)
    .execute();
  return new Set(rows.map((r) => r.fileId));
}

/** Deletes a message and its attachment rows (not the files): whether the message was there. */
export async function deleteMessageRow(db: DbOrTrx, messageId: string): Promise<boolean> {
  await db.deleteFrom('messageAttachments').where('messageId', '=', messageId).execute();
  const r = await db.deleteFrom('messages').where('id', '=', messageId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** The conversation's newest message by (created_at, id), on messages_conversation_created. */
export function newestMessageOf(db: DbOrTrx, conversationId: string) {
  return db
    .selectFrom('messages')
    .select(['id', 'createdAt'])
    .where('conversationId', '=', conversationId)
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Sets the conversation's last message (null when none is left: it then leaves both lists, as an empty one does). */
export async function setConversationLast(db: DbOrTrx, id: string, last: { id: string; createdAt: string } | undefined): Promise<void> {
  await db
    .updateTable('conversations')
    .set(last ? { lastMessageId: last.id, lastMessageAt: last.createdAt } : { lastMessageId: null })
    .where('id', '=', id)
    .execute();
}

/**
 * Up to `before` messages before and `after` after one message of a conversation, and the message itself, oldest
 * first: the context the console shows beside a reported message.
 */
export async function messagesAround(db: DbOrTrx, m: { id: string; conversationId: string; createdAt: string }, before: number, after: number) {
  const lines = () =>
    db
      .selectFrom('messages')
      .select((eb) => [
        'messages.id', 'messages.senderId', 'messages.body', 'messages.createdAt',
        eb.selectFrom('messageAttachments').select((e) => e.fn.countAll<number | string>().as('n')).whereRef('messageAttachments.messageId', '=', 'messages.id').as('attachments'),
      ])
      .where('messages.conversationId', '=', m.conversationId);
  const [older, self, newer] = await Promise.all([
    lines()
      .where((eb) => eb.or([eb('messages.createdAt', '<', m.createdAt), eb.and([eb('messages.createdAt', '=', m.createdAt), eb('messages.id', '<', m.id)])]))
      .orderBy('messages.createdAt', 'desc')
      .orderBy('messages.id', 'desc')
      .limit(before)
      .execute(),
    lines().where('messages.id', '=', m.id).execute(),
    lines()
      .where((eb) => eb.or([eb('messages.createdAt', '>', m.createdAt), eb.and([eb('messages.createdAt', '=', m.createdAt), eb('messages.id', '>', m.id)])]))
      .orderBy('messages.createdAt', 'asc')
      .orderBy('messages.id', 'asc')
      .limit(after)
      .execute(),
  ]);
  return [...older.reverse(), ...self, ...newer].map((r) => ({ ...r, attachments: Number(r.attachments ?? 0) }));
}

/** A message's attachment with its conversation's participants and its file: the protected media route's check. */
export function findAttachmentFile(db: DbOrTrx, messageId: string, fileId: string) {
  return db
    .selectFrom('messageAttachments')
    .innerJoin('messages', 'messages.id', 'messageAttachments.messageId')
    .innerJoin('conversations', 'conversations.id', 'messages.conversationId')
    .innerJoin('files', 'files.id', 'messageAttachments.fileId')
    .select(['conversations.fanId', 'conversations.performerId', 'messages.id', 'messages.senderId', 'messages.recipientId', 'messages.price', 'files.storageKey', 'files.status as fileStatus', 'files.originalName'])
    .where('messageAttachments.messageId', '=', messageId)
    .where('messageAttachments.fileId', '=', fileId)
    .executeTakeFirst();
}

export async function messagePolicyOf(db: DbOrTrx, performerId: string): Promise<MessagePolicy | undefined> {
  const row = await db.selectFrom('performers').select('messagePolicy').where('id', '=', performerId).executeTakeFirst();
  return row?.messagePolicy;
}

export async function setMessagePolicy(db: DbOrTrx, performerId: string, policy: MessagePolicy): Promise<void> {
  await db.updateTable('performers').set({ messagePolicy: policy }).where('id', '=', performerId).execute();
}

// ---------------------------------------------------------------------------------------------------------------
// Mass messages.

export type MassMessageRow = Selectable<MassMessagesTable>;

export async function insertMassMessage(db: DbOrTrx, row: Insertable<MassMessagesTable>): Promise<void> {
  await db.insertInto('massMessages').values(row).execute();
}

export function findMassMessage(db: DbOrTrx, id: string): Promise<MassMessageRow | undefined> {
  return db.selectFrom('massMessages').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A performer's mass messages, newest first, with the copies delivered (messages_mass_recipient_uq). */
export function massMessagesOf(db: DbOrTrx, performerId: string, limit: number) {
  return db
    .selectFrom('massMessages')
    .selectAll('massMessages')
    .select((eb) => eb.selectFrom('messages').select((e) => e.fn.countAll<number>().as('n')).whereRef('messages.massMessageId', '=', 'massMessages.id').as('delivered'))
    .where('performerId', '=', performerId)
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/**
 * The next recipients of a mass message after `afterUserId`, by id: the performer's live subscribers (subscriptions
 * live at `now`) or followers, without the fans the performer blocked, nor the performer.
 */
export async function massAudiencePage(db: DbOrTrx, performerId: string, audience: MassAudience, now: string, afterUserId: string, limit: number): Promise<string[]> {
  const members =
    audience === 'subscribers'
      ? db.selectFrom('subscriptions').select('userId').where('performerId', '=', performerId).where(liveSubscription(now))
      : db.selectFrom('follows').select('userId').where('performerId', '=', performerId);
  const rows = await db
    .selectFrom(members.as('m'))
    .select('m.userId')
    .distinct()
    .where('m.userId', '>', afterUserId)
    .where('m.userId', '<>', performerId)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('performerBlocks').select('performerBlocks.userId').where('performerBlocks.performerId', '=', performerId).whereRef('performerBlocks.userId', '=', 'm.userId'))))
    .orderBy('m.userId')
    .limit(limit)
    .execute();
  return rows.map((r) => r.userId);
}

/** How many recipients a mass message has now (the same filter as massAudiencePage). */
export async function massAudienceCount(db: DbOrTrx, performerId: string, audience: MassAudience, now: string): Promise<number> {
  let total = 0;
  let after = '';
  // Counted a page at a time with the page query itself, so the number is exactly what the job will walk.
  for (;;) {
    const ids = await massAudiencePage(db, performerId, audience, now, after, 1000);
    total += ids.length;
    if (ids.length < 1000) return total;
    after = ids.at(-1)!;
  }
}

/** Inserts a mass message's copy for one recipient unless it exists (messages_mass_recipient_uq): whether it was inserted. */
export async function insertMassCopy(db: DbOrTrx, row: NewMessage): Promise<boolean> {
  const rows = await db
    .insertInto('messages')
    .values({ ...row, readAt: null })
    .onConflict((oc) => oc.columns(['massMessageId', 'recipientId']).doNothing())
    .returning('id')
    .execute();
  return rows.length > 0;
}

/**
 * Moves a mass message's cursor forward only, or marks it done once. Two runs of the same batch (a job claimed again
 * after its lease ran out, or enqueued twice) can finish out of order; the slower one must not move the cursor back.
 */
export async function advanceMassMessage(db: DbOrTrx, id: string, cursorUserId: string, finishedAt: string | null): Promise<void> {
  if (finishedAt) {
    await db.updateTable('massMessages').set({ status: 'done', finishedAt }).where('id', '=', id).where('status', '=', 'sending').execute();
    return;
  }
  await db.updateTable('massMessages').set({ cursorUserId }).where('id', '=', id).where('cursorUserId', '<', cursorUserId).execute();
}

/** The files of these ids (a mass message's, for each copy's attachment rows). */
export function filesByIds(db: DbOrTrx, ids: readonly string[]) {
  if (!ids.length) return Promise.resolve([]);
  return db.selectFrom('files').select(['id', 'kind']).where('id', 'in', ids).execute();
}

export async function performerNameOf(db: DbOrTrx, performerId: string): Promise<string | null> {
  return (await db.selectFrom('performers').select('displayName').where('id', '=', performerId).executeTakeFirst())?.displayName ?? null;
}
