import type { DbOrTrx } from '../db/database.js';
import { AppError, badRequest, notFound } from '../http/errors.js';
import { revokeUserSessions } from '../auth/auth.repository.js';
import { findUserById, updateUser } from '../users/users.repository.js';
import { setPerformerStatus } from '../performers/performers.repository.js';
import { deleteComment, findComment } from '../comments/comments.repository.js';
import { deleteFileRow } from '../media/pipeline/pipeline.repository.js';
import {
  attachmentFileIds, deleteMessageRow, filesAttachedElsewhere, findConversation, findMessage, newestMessageOf, setConversationLast, unreadMessages,
} from '../messages/messages.repository.js';
import { boughtMessageIds } from '../access/access.repository.js';
import { adjustCounter } from '../reactions/targets.repository.js';
import { ENGAGEMENT_OBJECT_TYPES, type ContentType, type EngagementObjectType } from '../../common/enums.js';
import type { RealtimeEmitter, RealtimeHub } from '../realtime/hub.js';
import type { Storage } from '../media/storage.js';
import type { Audit } from './admin.http.js';
import { setContentStatus } from './admin.repository.js';

/**
 * The console's moderation actions, each inside the caller's audited transaction (adminTx): suspending an account,
 * setting an item's status (hiding it), deleting a comment, deleting a direct message. The moderation routes call them one at a time; resolving
 * reports (server/reports/) calls the same ones, so a report's "remove" or "suspend" is exactly the console's.
 * What can only happen after the commit (closing sockets, deleting a file, a realtime event) is returned as `after`.
 */

export interface Moderated<T> {
  result: T;
  /** Run once the transaction committed. */
  after: () => Promise<void>;
}

export interface AfterCommitDeps {
  realtime: Pick<RealtimeHub, 'emitToObject' | 'disconnectUser'>;
  storage: Storage;
}

/** Suspends an account: its sessions end in the same transaction, a performer is also taken off the site. */
export async function suspendAccount(trx: DbOrTrx, audit: Audit, deps: AfterCommitDeps, actorId: string | null, id: string, reason: string | null): Promise<Moderated<{ _id: string; status: 'suspended'; sessionsRevoked: number }>> {
  if (id === actorId) throw badRequest('You cannot suspend your own account');
  const user = await findUserById(trx, id);
  if (!user) throw notFound('User');
  if (user.role === 'admin') throw new AppError(400, 'ADMIN_ACCOUNT', 'An admin account cannot be suspended; demote it first');
  await updateUser(trx, id, { status: 'suspended' });
  if (user.role === 'performer') await setPerformerStatus(trx, id, 'suspended');
  const revoked = await revokeUserSessions(trx, id);
  await audit('user.suspend', 'user', id, { username: user.username, from: user.status, reason, sessionsRevoked: revoked });
  return {
    result: { _id: id, status: 'suspended', sessionsRevoked: revoked },
    // Its sessions ended in the transaction; its open realtime connections end after the commit.
    after: async () => deps.realtime.disconnectUser(id),
  };
}

/** Sets an item's status (`hidden`: taken down by an admin); 404 when there is no such item. */
export async function setItemStatus(trx: DbOrTrx, audit: Audit, type: ContentType | 'photo', id: string, status: string): Promise<string> {
  const before = await setContentStatus(trx, type, id, status);
  if (before === undefined) throw notFound('Content');
  await audit(status === 'hidden' ? 'content.hide' : 'content.status', type, id, { from: before, to: status });
  return before;
}

/** Deletes a comment; its object's comment counter goes down in the same transaction. */
export async function removeComment(trx: DbOrTrx, audit: Audit, deps: AfterCommitDeps, id: string): Promise<Moderated<{ ok: true }>> {
  const row = await findComment(trx, id);
  if (!row) throw notFound('Comment');
  await deleteComment(trx, id);
  const engagement = (ENGAGEMENT_OBJECT_TYPES as readonly string[]).includes(row.objectType) ? (row.objectType as EngagementObjectType) : undefined;
  const count = row.status === 'active' && engagement ? await adjustCounter(trx, engagement, row.objectId, 'comment', -1) : undefined;
  const key = row.imageFileId ? await deleteFileRow(trx, row.imageFileId) : undefined;
  await audit('comment.delete', 'comment', id, { userId: row.userId, objectType: row.objectType, objectId: row.objectId, content: row.content.slice(0, 200) });
  return {
    result: { ok: true },
    after: async () => {
      if (key) await deps.storage.delete(key).catch(() => {});
      if (engagement) deps.realtime.emitToObject(engagement, row.objectId, 'comment/deleted', { _id: id, objectType: engagement, objectId: row.objectId, commentCount: count ?? 0 });
    },
  };
}

/**
 * Deletes a direct message (a report's "remove"): its row and attachment rows, the files no other message shows (a
 * mass message's copies share theirs; the bytes go after the commit, and the orphan sweep, server/media/orphans.ts,
 * takes any a crash leaves), and the conversation's last message is the newest one left. After the commit both
 * participants' tabs drop it (`message/deleted`) and the recipient's badge is counted again.
 *
 * Every rule about removing a message lives here. A paid message that was bought is removed all the same (its text or
 * files broke the rules whatever was paid); the payment, the earning and the entitlement stay as records, and giving
 * the money back is the payments console's refund. `bought` is written to the audit entry so that decision is easy to
 * make, and a rule that refunds or refuses belongs in this function.
 */
export async function removeMessage(
  trx: DbOrTrx,
  audit: Audit,
  deps: { db: DbOrTrx; realtime: RealtimeEmitter; storage: Storage },
  id: string,
): Promise<Moderated<{ ok: true }>> {
  const row = await findMessage(trx, id);
  if (!row) throw notFound('Message');
  const conversation = await findConversation(trx, row.conversationId);
  const fileIds = await attachmentFileIds(trx, id);
  const shared = await filesAttachedElsewhere(trx, fileIds, id);
  const bought = Number(row.price) > 0 && (await boughtMessageIds(trx, [row])).has(id);
  await deleteMessageRow(trx, id);
  // A mass message's copy keeps its files while the mass message may still deliver them to others.
  const own = row.massMessageId ? [] : fileIds.filter((f) => !shared.has(f));
  const keys: string[] = [];
  for (const fileId of own) {
    const key = await deleteFileRow(trx, fileId);
    if (key) keys.push(key);
  }
  if (conversation?.lastMessageId === id) await setConversationLast(trx, conversation.id, await newestMessageOf(trx, conversation.id));
  await audit('message.delete', 'message', id, {
    conversationId: row.conversationId, senderId: row.senderId, recipientId: row.recipientId, text: row.body.slice(0, 200),
    attachments: fileIds.length, filesDeleted: keys.length, price: Number(row.price), bought,
  });
  return {
    result: { ok: true },
    after: async () => {
      for (const key of keys) await deps.storage.delete(key).catch(() => {});
      deps.realtime.emitToUsers([row.senderId, row.recipientId], 'message/deleted', { conversationId: row.conversationId, messageId: id });
      if (!row.readAt) {
        try {
          deps.realtime.emitToUser(row.recipientId, 'messages/unread', { count: await unreadMessages(deps.db, row.recipientId) });
        } catch {
          // best effort: the next visit counts again
        }
      }
    },
  };
}
