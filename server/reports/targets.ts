import type { DbOrTrx } from '../db/database.js';
import type { Viewer } from '../access/access.service.js';
import { findVisibleTarget, openDiscussion } from '../comments/discussion.js';
import { findComment } from '../comments/comments.repository.js';
import { findMessage } from '../messages/messages.repository.js';
import type { EngagementObjectType, ReportTargetType } from '../../common/enums.js';

/**
 * What a report may point at, as the reporter sees it: a target is reportable only when the reporter could read it
 * (its page, or the comment in its thread), so a report never tells whether a hidden id exists: anything else is 404,
 * the same answer reading it gives. One resolver per target type: a new type is one line in `reportTargets` and its
 * name in REPORT_TARGET_TYPES (common/reports.ts).
 */

export interface ReportTarget {
  /** The account behind it (an item's performer, the performer themself, a comment's or a message's author); null for the site's posts. */
  ownerId: string | null;
}

export type TargetResolver = (db: DbOrTrx, viewer: NonNullable<Viewer>, country: string | null, id: string) => Promise<ReportTarget | undefined>;

/** An item or a performer: visible to the reporter as its page is (public to them, or theirs, or they are an admin). */
const pageTarget =
  (type: EngagementObjectType): TargetResolver =>
  async (db, viewer, country, id) => {
    const target = await findVisibleTarget(db, viewer, country, type, id);
    return target ? { ownerId: target.performerId } : undefined;
  };

/** A comment: live, on an object whose discussion the reporter may read (a locked thread's comments are not theirs to see). */
const commentTarget: TargetResolver = async (db, viewer, country, id) => {
  const comment = await findComment(db, id);
  if (!comment || comment.status !== 'active') return undefined;
  const discussion = await openDiscussion(db, viewer, country, comment.objectType as EngagementObjectType, comment.objectId);
  return discussion?.decision.open ? { ownerId: comment.userId } : undefined;
};

/**
 * A direct message: reported by the participant who received it. Its sender gets their own message back (400
 * CANNOT_REPORT_OWN: they know it exists); anyone else, admins included, finds nothing, so a message id cannot be
 * probed. An admin reads any conversation and removes a message through the reports of its recipient.
 */
const messageTarget: TargetResolver = async (db, viewer, _country, id) => {
  const message = await findMessage(db, id);
  if (!message || (viewer.id !== message.recipientId && viewer.id !== message.senderId)) return undefined;
  return { ownerId: message.senderId };
};

/** The resolver of each target type, and its word in a "not found" answer. */
export const reportTargets: Readonly<Record<ReportTargetType, { noun: string; find: TargetResolver }>> = {
  performer: { noun: 'Performer', find: pageTarget('performer') },
  video: { noun: 'Video', find: pageTarget('video') },
  gallery: { noun: 'Gallery', find: pageTarget('gallery') },
  product: { noun: 'Product', find: pageTarget('product') },
  post: { noun: 'Post', find: pageTarget('post') },
  comment: { noun: 'Comment', find: commentTarget },
  message: { noun: 'Message', find: messageTarget },
};
