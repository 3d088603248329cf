import type { DbOrTrx } from '../db/database.js';
import { AppError, notFound } from '../http/errors.js';
import { canManage, checkAccess, type AccessDecision, type Viewer } from '../access/access.service.js';
import { findTarget, type Target, type TargetReading } from '../reactions/targets.repository.js';
import { audienceOf } from '../catalogue/catalogue.repository.js';
import type { LockedDiscussion } from '../../common/schemas/engagement.js';
import type { EngagementObjectType } from '../../common/enums.js';

/**
 * Who may take part in the discussion of an object (its comments, live or not): whoever may open the object
 * itself. A subscriber-only video's comments are for its subscribers, a sale item's for its buyers, and the
 * performer and admins always; the same decision server/access makes for the item's media, asked the same
 * way. Otherwise the comments would leak what the paywall hides (fans quote and describe the content), and a
 * paying subscriber's words would be readable by anyone. Only the comment COUNT stays public, as it is on
 * every card. Used by the comments routes, the comments page and the realtime rooms (object/watch).
 */

export interface Discussion {
  target: Target;
  decision: AccessDecision;
}

export const discussionMessages = {
  subscription: 'Subscribe to read and join the conversation',
  purchase: 'Buy this item to read and join the conversation',
} as const;

/**
 * The object if this viewer may see it at all (public to them, which includes their country not being blocked by
 * its performer; or they are its performer / an admin); undefined otherwise. `country`: the visitor's, null when unknown.
 */
export async function findVisibleTarget(
  db: DbOrTrx, viewer: Viewer, country: string | null, objectType: EngagementObjectType, objectId: string, reading: TargetReading = {}, now = new Date(),
): Promise<Target | undefined> {
  const target = await findTarget(db, objectType, objectId, audienceOf(viewer, country, now.toISOString()), reading);
  if (!target) return undefined;
  if (target.visible || viewer?.role === 'admin' || (target.performerId && canManage(viewer, target.performerId))) return target;
  return undefined;
}

/** Whether `viewer` may read and join the discussion of a target already found. */
export async function discussionDecision(db: DbOrTrx, viewer: Viewer, target: Target, now = new Date()): Promise<AccessDecision> {
  // Performers, physical products and the site's posts lock nothing; nor does a free item.
  if (target.access === 'free' || !target.performerId || target.objectType === 'performer') return { open: true, reason: 'free' };
  return checkAccess(db, viewer, { objectType: target.objectType, objectId: target.objectId, performerId: target.performerId, access: target.access }, now);
}

/** The object and the viewer's decision; undefined when the object does not exist or is hidden from the viewer. */
export async function openDiscussion(
  db: DbOrTrx, viewer: Viewer, country: string | null, objectType: EngagementObjectType, objectId: string, reading: TargetReading = {},
): Promise<Discussion | undefined> {
  const now = new Date();
  const target = await findVisibleTarget(db, viewer, country, objectType, objectId, reading, now);
  if (!target) return undefined;
  return { target, decision: await discussionDecision(db, viewer, target, now) };
}

/** What a viewer without access learns: the public count and what would open the discussion. */
export function lockedDiscussion(d: Discussion): LockedDiscussion | null {
  if (d.decision.open) return null;
  return { needs: d.decision.needs, commentCount: d.target.commentCount };
}

/**
 * The object, when the viewer may read and join its discussion. 404 when it is not visible to them, 403
 * `LOCKED` with `details: { needs, commentCount }` when it is locked: the same answer for every viewer without
 * access, so a guest's refusal may be shared by the micro-cache.
 */
export async function requireDiscussion(
  db: DbOrTrx, viewer: Viewer, country: string | null, objectType: EngagementObjectType, objectId: string, reading: TargetReading = {},
): Promise<Target> {
  const d = await openDiscussion(db, viewer, country, objectType, objectId, reading);
  if (!d) throw notFound('Content');
  const locked = lockedDiscussion(d);
  if (locked) throw new AppError(403, 'LOCKED', discussionMessages[locked.needs], locked);
  return d.target;
}
