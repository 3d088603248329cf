import type { DbOrTrx } from '../db/database.js';
import { AppError, badRequest, notFound } from '../http/errors.js';
import { revokeUserSessions } from '../auth/auth.repository.js';
import { findUserById, updateUser } from '../users/users.repository.js';
import { setPerformerStatus } from '../performers/performers.repository.js';
import { deleteComment, findComment } from '../comments/comments.repository.js';
import { deleteFileRow } from '../media/pipeline/pipeline.repository.js';
import { adjustCounter } from '../reactions/targets.repository.js';
import { ENGAGEMENT_OBJECT_TYPES, type ContentType, type EngagementObjectType } from '../../common/enums.js';
import type { RealtimeHub } from '../realtime/hub.js';
import type { Storage } from '../media/storage.js';
import type { Audit } from './admin.http.js';
import { setContentStatus } from './admin.repository.js';

/**
 * The console's moderation actions, each inside the caller's audited transaction (adminTx): suspending an account,
 * setting an item's status (hiding it), deleting a comment. The moderation routes call them one at a time; resolving
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
export async function setItemStatus(trx: DbOrTrx, audit: Audit, type: ContentType, id: string, status: string): Promise<string> {
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
