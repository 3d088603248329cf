import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { nowIso } from '../db/ids.js';
import { AppError } from '../http/errors.js';
import type { Storage } from '../media/storage.js';
import type { RealtimeEmitter, RealtimeHub } from '../realtime/hub.js';
import type { Money } from '../payments/money.js';
import { verifyPassword } from '../auth/password.js';
import { cancelSubscription } from '../subscriptions/subscriptions.service.js';
import { pushReactionCounts, removeAllReactionsOf } from '../reactions/reactions.service.js';
import { pushDeletedComments, removeAllCommentsOf } from '../comments/comments.service.js';
import { unfollowAll } from '../follows/follows.service.js';
import { eraseVerificationPictures } from '../verification/verification.service.js';
import {
  activeAdminCount, commentsOf, deleteExportsOf, deleteFileRows, deletePersonalRows, erasePerformer, eraseSentMessages, findAccount, followedBy, hidePerformerPosts,
  reactionsOf, subscriptionsToStop, tombstoneUser,
} from './privacy.repository.js';

/**
 * Deleting one's own account (docs/product.md, Your data; server/privacy/README.md). The password is checked, the
 * last active admin is refused, renewals stop at their providers first (as a cancellation does: nothing is deleted
 * when a provider cannot be reached), then ONE transaction erases the person and keeps the money records:
 *
 * - the user row becomes a tombstone (status `deleted`, placeholder email and username, no password, no name, bio,
 *   country, avatar or cover): payments, orders, earnings, tips, refunds and subscriptions keep pointing at it;
 * - sessions, mailed tokens, notifications, email choices, payout details and data exports are deleted;
 * - follows, reactions and comments are deleted through their domains, each counter with its row;
 * - the texts of the messages they sent are emptied and their attachments deleted (a paid message its recipient bought
 *   keeps its files: the buyer paid for them);
 * - a performer's profile is erased and no longer public, so none of their items is either (the catalogue shows only
 *   items of an active performer), and their posts are hidden. Buyers lose access with the items: the performer's
 *   withdrawal of their images wins; the money records stay, so an admin can refund. Their identity pictures are
 *   deleted now and a submission still waiting is closed; the verification decisions stay on record;
 *
 * After the commit: the files' bytes are deleted, the counters and removed comments pushed, every socket of the user
 * disconnected.
 */

export interface DeletionDeps {
  db: Db;
  storage: Storage;
  realtime: RealtimeEmitter & Pick<RealtimeHub, 'disconnectUser'>;
  money: Money;
  logger: Logger;
}

export const deletionMessages = {
  wrongPassword: 'That is not your password',
  lastAdmin: 'You are the last admin: make another admin before deleting this account',
  deleted: 'Your account was deleted',
};

export async function deleteOwnAccount(deps: DeletionDeps, userId: string, input: { password: string }): Promise<void> {
  const { db } = deps;
  const account = await findAccount(db, userId);
  if (!account || account.status === 'deleted' || !(await verifyPassword(account.passwordHash, input.password))) {
    throw new AppError(400, 'WRONG_PASSWORD', deletionMessages.wrongPassword);
  }
  if (account.role === 'admin' && (await activeAdminCount(db)) <= 1) throw new AppError(409, 'LAST_ADMIN', deletionMessages.lastAdmin);

  // No more renewals: each renewing subscription (theirs, and a performer's subscribers') is cancelled at period end
  // through the recurring billing's own cancel, which stops it at the provider first.
  for (const s of await subscriptionsToStop(db, userId)) {
    try {
      await cancelSubscription(deps.money, { id: s.userId, role: 'user' }, { id: s.id });
    } catch (err) {
      // A subscription that lapsed meanwhile has nothing to stop; a provider that cannot be reached stops everything (502).
      if (err instanceof AppError && err.statusCode === 400) continue;
      throw err;
    }
  }

  const at = nowIso();
  const after = await db.transaction().execute(async (trx) => {
    if (!(await tombstoneUser(trx, userId, at))) throw new AppError(400, 'WRONG_PASSWORD', deletionMessages.wrongPassword);
    // Checked again inside: two admins deleting themselves at once must not both pass.
    if (account.role === 'admin' && (await activeAdminCount(trx)) < 1) throw new AppError(409, 'LAST_ADMIN', deletionMessages.lastAdmin);
    const verificationKeys: string[] = [];
    if (account.role === 'performer') {
      await erasePerformer(trx, userId, at);
      await hidePerformerPosts(trx, userId, at);
      verificationKeys.push(...(await eraseVerificationPictures(trx, userId, at)));
    }
    const reactionCounts = await removeAllReactionsOf(trx, userId, await reactionsOf(trx, userId));
    await unfollowAll(trx, userId, await followedBy(trx, userId));
    const comments = await removeAllCommentsOf(trx, await commentsOf(trx, userId));
    await deletePersonalRows(trx, userId);
    const fileIds = [...(await eraseSentMessages(trx, userId)), ...(await deleteExportsOf(trx, userId))];
    const keys = [...comments.imageKeys, ...verificationKeys, ...(await deleteFileRows(trx, fileIds))];
    for (const path of [account.avatarPath, account.coverPath]) if (path) keys.push(path);
    return { keys, reactionCounts, deletedComments: comments.deleted };
  });

  deps.realtime.disconnectUser(userId);
  pushReactionCounts(deps.realtime, after.reactionCounts);
  pushDeletedComments(deps.realtime, after.deletedComments);
  for (const key of after.keys) await deps.storage.delete(key).catch((err: unknown) => deps.logger.warn({ err: (err as Error).message, key }, 'a deleted account\'s file could not be deleted'));
}
