import type { DbOrTrx } from '../db/database.js';
import { nowIso } from '../db/ids.js';
import { AppError, badRequest, notFound } from '../http/errors.js';
import { publicMediaUrl } from '../media/storage.js';
import { DEFAULT_AVATAR } from '../../common/avatar.js';
import type { BlockedFan, BlockState } from '../../common/schemas/messages.js';
import { deleteBlock, findBlock, findBlockable, insertBlock, listBlockedFans } from './blocks.repository.js';

/**
 * A performer's blocks (docs/product.md, Messages): a blocked fan cannot message the performer, comment on the
 * performer's items, tip them, unlock their paid messages, or start a new subscription to them. Subscriptions already running are left as they are (the
 * fan paid for the period). The block is read through `blockQuery` (blocks.repository.ts) and refused with `blockedError`:
 * by `assertNotBlocked` on its own (tips, the checkout, unlocks), or with the facts a write reads anyway (a message's
 * conversation, a comment's target: server/reactions/targets.repository.ts), which saves a round trip.
 */

/** What a blocked fan tried, for the refusal's words. */
export type BlockedAction = 'message' | 'comment' | 'subscribe' | 'tip' | 'unlock';

const wording: Record<BlockedAction, string> = {
  message: 'This performer does not accept messages from you',
  comment: 'This performer does not accept comments from you',
  subscribe: 'This performer does not accept new subscriptions from you',
  tip: 'This performer does not accept tips from you',
  unlock: 'This performer no longer sells you their messages',
};

export const BLOCKED_CODE = 'BLOCKED_BY_PERFORMER';

export function isBlocked(db: DbOrTrx, performerId: string, userId: string): Promise<boolean> {
  return findBlock(db, performerId, userId);
}

/** 403 BLOCKED_BY_PERFORMER when the performer blocked the user; nothing for oneself or an unblocked user. */
export async function assertNotBlocked(db: DbOrTrx, performerId: string | null | undefined, userId: string, action: BlockedAction): Promise<void> {
  if (!performerId || performerId === userId) return;
  if (await findBlock(db, performerId, userId)) throw blockedError(action);
}

/** The refusal of a blocked fan's action (403 BLOCKED_BY_PERFORMER), for a caller that read the block with other facts. */
export function blockedError(action: BlockedAction): AppError {
  return new AppError(403, BLOCKED_CODE, wording[action]);
}

/** Blocks an account (by id or username); idempotent. 400 for oneself, 404 for no such account. */
export async function blockFan(db: DbOrTrx, performerId: string, key: string): Promise<BlockState> {
  const target = await findBlockable(db, key);
  if (!target) throw notFound('User');
  if (target.id === performerId) throw badRequest('You cannot block yourself');
  await insertBlock(db, performerId, target.id, nowIso());
  return { userId: target.id, blocked: true };
}

/** Unblocks; idempotent for an account that exists, 404 for an id that names none. */
export async function unblockFan(db: DbOrTrx, performerId: string, userId: string): Promise<BlockState> {
  if (!(await deleteBlock(db, performerId, userId))) {
    const target = await findBlockable(db, userId);
    if (!target || target.id !== userId) throw notFound('User');
  }
  return { userId, blocked: false };
}

export async function blockedFans(db: DbOrTrx, performerId: string): Promise<BlockedFan[]> {
  const rows = await listBlockedFans(db, performerId, 500);
  return rows.map((r) => ({ _id: r.id, name: r.name, username: r.username, avatar: publicMediaUrl(r.avatarPath) ?? DEFAULT_AVATAR, blockedAt: r.createdAt }));
}
