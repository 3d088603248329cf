import sharp, { type Metadata } from 'sharp';
import type { Logger } from 'pino';
import type { Db, DbOrTrx } from '../db/database.js';
import { newId, nowIso } from '../db/ids.js';
import { AppError, forbidden, notFound } from '../http/errors.js';
import type { Cursor } from '../http/pagination.js';
import { encodeCursor } from '../http/pagination.js';
import { makeThumbnail } from '../media/images.js';
import { publicMediaUrl, type Storage } from '../media/storage.js';
import type { SessionUser } from '../auth/auth.service.js';
import { canManage, type Viewer } from '../access/access.service.js';
import { audienceOf } from '../catalogue/catalogue.repository.js';
import { requireDiscussion } from './discussion.js';
import { blockedError } from '../blocks/blocks.service.js';
import type { RealtimeEmitter } from '../realtime/hub.js';
import { addNotification, pushNotificationCount } from '../notifications/notifications.service.js';
import { adjustCounter, findTarget, readCounter, type Target } from '../reactions/targets.repository.js';
import { deleteFileRow } from '../media/pipeline/pipeline.repository.js';
import { DEFAULT_AVATAR } from '../../common/avatar.js';
import type { CommentItem, CommentSearchResult, DeleteCommentResponse } from '../../common/schemas/engagement.js';
import type { EngagementObjectType } from '../../common/enums.js';
import {
  deleteComment as deleteCommentRow,
  findComment,
  insertComment,
  insertImageFile,
  listComments,
  updateComment,
  type CommentRow,
} from './comments.repository.js';

/**
 * Comment rules. The comments of a visible object are read, written and edited by whoever may open the object
 * (server/comments/discussion.ts: anyone for free items; subscribers, buyers, the performer and admins for
 * locked ones); others get 403 `LOCKED` with the public count. The author edits (text, picture); the author,
 * the object's performer or an admin deletes (an author may delete their own comment after losing access: it
 * reveals nothing, and what they wrote stays theirs to remove). The object's performer moderates (deletes) but
 * never edits fans' words. The object's comment counter moves in the same transaction as the insert or delete.
 * After the commit the change is pushed to the object's realtime room, which only sockets allowed to read the
 * comments may join (server/realtime/socket.ts), and the performer gets a notification for a new comment.
 */

export interface CommentDeps {
  db: Db;
  storage: Storage;
  realtime: RealtimeEmitter;
  logger: Logger;
}

export const COMMENT_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
const COMMENT_IMAGE_BOX = 1280;
const MAX_INPUT_PIXELS = 40_000_000;
const ACCEPTED_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'heif', 'tiff']);

export const commentMessages = {
  notFound: 'Comment',
  objectNotFound: 'Content',
  onlyAuthorEdits: 'Only the author can edit a comment',
  notAllowedToDelete: 'You can only delete your own comments',
  notAnImage: 'The file is not a supported image. Please upload a JPEG, PNG, WebP, GIF or AVIF picture.',
  imageTooLarge: `The image is too large: the limit is ${COMMENT_IMAGE_MAX_BYTES / 1024 / 1024} MB.`,
  imageTooManyPixels: 'The image dimensions are too large. Please upload a smaller picture.',
  nothingToChange: 'Send new text or a picture',
} as const;

export function toCommentItem(r: CommentRow): CommentItem {
  return {
    _id: r.id,
    objectType: r.objectType as EngagementObjectType,
    objectId: r.objectId,
    content: r.content,
    image: publicMediaUrl(r.imageKey),
    userId: r.userId,
    user: { _id: r.userId, name: r.userName, username: r.userUsername, avatar: publicMediaUrl(r.userAvatarPath) ?? DEFAULT_AVATAR },
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/** The object's performer or an admin may delete any comment on it. */
function canModerate(viewer: Viewer, target: Pick<Target, 'performerId'> | undefined): boolean {
  if (!viewer) return false;
  if (viewer.role === 'admin') return true;
  return Boolean(target?.performerId && canManage(viewer, target.performerId));
}

export async function searchComments(
  db: Db,
  viewer: Viewer,
  q: { objectType: EngagementObjectType; objectId: string; limit: number; offset: number; cursor?: Cursor },
  country: string | null,
): Promise<CommentSearchResult> {
  const target = await requireDiscussion(db, viewer, country, q.objectType, q.objectId);
  const { rows, total } = await listComments(db, q);
  const last = rows.at(-1);
  return {
    items: rows.map(toCommentItem),
    total,
    nextCursor: last && rows.length === q.limit ? encodeCursor({ v: last.createdAt, id: last.id }) : null,
    canModerate: canModerate(viewer, target),
  };
}

const OBJECT_PAGES: Record<EngagementObjectType, string> = { video: 'videos', gallery: 'galleries', product: 'products', post: 'posts', performer: 'performers' };

/** The page of a commented object (its comments are on it). */
export const objectPath = (objectType: EngagementObjectType, objectId: string) => `/${OBJECT_PAGES[objectType]}/${encodeURIComponent(objectId)}`;

export async function createComment(
  deps: CommentDeps,
  user: SessionUser,
  input: { objectType: EngagementObjectType; objectId: string; content: string },
  country: string | null,
): Promise<CommentItem & { commentCount: number }> {
  const { db, realtime } = deps;
  const target = await requireDiscussion(db, user, country, input.objectType, input.objectId, { block: true });
  // Read with the target (a performer never blocks themselves).
  if (target.blocked) throw blockedError('comment');
  const now = nowIso();
  const id = newId();
  const notifyPerformer = target.performerId && target.performerId !== user.id ? target.performerId : null;
  const commentCount = await db.transaction().execute(async (trx) => {
    await insertComment(trx, { id, objectType: input.objectType, objectId: target.objectId, userId: user.id, content: input.content, imageFileId: null, createdAt: now, updatedAt: now });
    if (notifyPerformer) {
      await addNotification(trx, notifyPerformer, 'comment', {
        commentId: id, objectType: input.objectType, objectId: target.objectId, userId: user.id, title: target.title, actorName: user.name || user.username,
        url: objectPath(input.objectType, target.objectId),
      });
    }
    // The counter last: its UPDATE locks the item's row until the commit, and every like and comment of a busy item
    // waits for that lock (before, it was held over the notification's three or four statements too).
    const count = await adjustCounter(trx, input.objectType, target.objectId, 'comment', 1);
    // The object was deleted between the check and the insert: nothing to comment on (the rollback takes all back).
    if (count === undefined) throw notFound(commentMessages.objectNotFound);
    return count;
  });
  const comment: CommentItem = {
    _id: id,
    objectType: input.objectType,
    objectId: target.objectId,
    content: input.content,
    image: null,
    userId: user.id,
    user: { _id: user.id, name: user.name, username: user.username, avatar: user.avatar || DEFAULT_AVATAR },
    createdAt: now,
    updatedAt: now,
  };
  realtime.emitToObject(input.objectType, target.objectId, 'comment/created', { comment, commentCount });
  if (notifyPerformer) await pushNotificationCount(db, realtime, notifyPerformer);
  return { ...comment, commentCount };
}

/**
 * Reads an uploaded picture (type sniffed from the bytes) and renders it as WebP inside 1280x1280, metadata
 * dropped. 400 for anything sharp cannot read or that is not one of the accepted formats.
 */
export async function renderCommentImage(upload: Buffer) {
  let meta: Metadata;
  try {
    meta = await sharp(upload, { limitInputPixels: false }).metadata();
  } catch {
    throw new AppError(400, 'INVALID_IMAGE', commentMessages.notAnImage);
  }
  if (!meta.format || !ACCEPTED_FORMATS.has(meta.format) || !meta.width || !meta.height) throw new AppError(400, 'INVALID_IMAGE', commentMessages.notAnImage);
  if (meta.width * meta.height > MAX_INPUT_PIXELS) throw new AppError(400, 'INVALID_IMAGE', commentMessages.imageTooManyPixels);
  const width = Math.min(COMMENT_IMAGE_BOX, meta.width);
  const height = Math.min(COMMENT_IMAGE_BOX, meta.height);
  try {
    return await makeThumbnail(upload, width, height, { format: 'webp', fit: 'inside', quality: 82 });
  } catch {
    throw new AppError(400, 'INVALID_IMAGE', commentMessages.notAnImage);
  }
}

/** The author changes the text and/or attaches (or removes) a picture. */
export async function editComment(
  deps: CommentDeps,
  user: SessionUser,
  id: string,
  input: { content?: string; image?: Buffer; removeImage?: boolean },
  country: string | null,
): Promise<CommentItem> {
  const { db, storage, realtime, logger } = deps;
  const row = await findComment(db, id);
  if (!row || row.status !== 'active') throw notFound(commentMessages.notFound);
  if (row.userId !== user.id) throw forbidden(commentMessages.onlyAuthorEdits);
  if (input.content === undefined && !input.image && !input.removeImage) throw new AppError(400, 'BAD_REQUEST', commentMessages.nothingToChange);
  // Editing is taking part: an author whose subscription lapsed (or whose purchase was refunded) may no longer.
  await requireDiscussion(db, user, country, row.objectType as EngagementObjectType, row.objectId);

  const now = nowIso();
  let newFile: { id: string; key: string } | undefined;
  if (input.image) {
    const image = await renderCommentImage(input.image);
    newFile = { id: newId(), key: `public/comments/${newId()}.${image.ext}` };
    await storage.put(newFile.key, image.buffer);
    try {
      await insertImageFile(db, { id: newFile.id, ownerId: user.id, storageKey: newFile.key, mime: image.mime, size: image.buffer.length, width: image.width, height: image.height, now });
    } catch (err) {
      await storage.delete(newFile.key).catch(() => {});
      throw err;
    }
  }
  const replaceImage = Boolean(newFile) || Boolean(input.removeImage);
  let oldKey: string | undefined;
  try {
    oldKey = await db.transaction().execute(async (trx) => {
      await updateComment(trx, id, {
        updatedAt: now,
        ...(input.content !== undefined ? { content: input.content } : {}),
        ...(replaceImage ? { imageFileId: newFile?.id ?? null } : {}),
      });
      return replaceImage && row.imageFileId ? deleteFileRow(trx, row.imageFileId) : undefined;
    });
  } catch (err) {
    if (newFile) {
      await storage.delete(newFile.key).catch(() => {});
      await deleteFileRow(db, newFile.id).catch(() => {});
    }
    throw err;
  }
  if (oldKey) await storage.delete(oldKey).catch((err) => logger.warn({ err, key: oldKey }, 'old comment image could not be deleted'));
  const updated = await findComment(db, id);
  if (!updated) throw notFound(commentMessages.notFound);
  const comment = toCommentItem(updated);
  realtime.emitToObject(comment.objectType, comment.objectId, 'comment/updated', { comment });
  return comment;
}

/** The author, the object's performer or an admin deletes a comment; the counter goes down in the same transaction. */
export async function removeComment(deps: CommentDeps, user: SessionUser, id: string): Promise<DeleteCommentResponse> {
  const { db, storage, realtime, logger } = deps;
  const row = await findComment(db, id);
  if (!row) throw notFound(commentMessages.notFound);
  const objectType = row.objectType as EngagementObjectType;
  if (row.userId !== user.id) {
    const target = await findTarget(db, objectType, row.objectId, audienceOf(user, null));
    if (!canModerate(user, target)) throw forbidden(commentMessages.notAllowedToDelete);
  }
  const result = await db.transaction().execute(async (trx) => {
    const deleted = await deleteCommentRow(trx, id);
    if (!deleted) return undefined;
    // A hidden comment is not in the counter: the counter stays, and is answered (and pushed) as it is, not as 0.
    const count = row.status === 'active' ? await adjustCounter(trx, objectType, row.objectId, 'comment', -1) : await readCounter(trx, objectType, row.objectId, 'comment');
    const imageKey = row.imageFileId ? await deleteFileRow(trx, row.imageFileId) : undefined;
    return { count: count ?? 0, imageKey };
  });
  // Deleted by a concurrent request: same answer as for a comment that does not exist.
  if (!result) throw notFound(commentMessages.notFound);
  if (result.imageKey) await storage.delete(result.imageKey).catch((err) => logger.warn({ err, key: result.imageKey }, 'comment image could not be deleted'));
  const answer: DeleteCommentResponse = { _id: id, objectType, objectId: row.objectId, commentCount: result.count };
  realtime.emitToObject(objectType, row.objectId, 'comment/deleted', answer);
  return answer;
}

/**
 * Deletes every comment of a user in the caller's transaction (an account deletion: comments are removed, not
 * anonymised), each active one taking its object's counter down as `removeComment` does. Answers the image files'
 * storage keys (deleted after the commit) and the `comment/deleted` events to push then.
 */
export async function removeAllCommentsOf(
  trx: DbOrTrx,
  rows: ReadonlyArray<{ id: string; objectType: string; objectId: string; status: string; imageFileId: string | null }>,
): Promise<{ imageKeys: string[]; deleted: DeleteCommentResponse[] }> {
  const imageKeys: string[] = [];
  const deleted: DeleteCommentResponse[] = [];
  for (const row of rows) {
    const objectType = row.objectType as EngagementObjectType;
    if (!(await deleteCommentRow(trx, row.id))) continue;
    const count = row.status === 'active' ? await adjustCounter(trx, objectType, row.objectId, 'comment', -1) : await readCounter(trx, objectType, row.objectId, 'comment');
    const key = row.imageFileId ? await deleteFileRow(trx, row.imageFileId) : undefined;
    if (key) imageKeys.push(key);
    deleted.push({ _id: row.id, objectType, objectId: row.objectId, commentCount: count ?? 0 });
  }
  return { imageKeys, deleted };
}

export function pushDeletedComments(realtime: RealtimeEmitter, deleted: readonly DeleteCommentResponse[]): void {
  for (const d of deleted) realtime.emitToObject(d.objectType, d.objectId, 'comment/deleted', d);
}
