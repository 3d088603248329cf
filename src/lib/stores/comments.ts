import { map } from 'nanostores';
import type { CommentItem, CommentSearchResult, LockedDiscussion } from '../../../common/schemas/engagement.js';
import type { EngagementObjectType } from '../../../common/enums.js';
import { ApiError } from '../api/error.js';
import { call } from './client.js';
import { toast } from './toast.js';
import { onRealtime, watchObject } from './realtime-events.js';
import { registerReset } from './reset.js';

/**
 * Comment state per objectId (docs/product.md: items, total, requesting). Create puts the new comment at the top and
 * raises total by one ('Commented successfully'); delete removes it and lowers total by one ('Removed
 * successfully!'); failures toast 'Error occured, please try again later' (docs/product.md). Realtime events of
 * other users' comments (`comment/created`, `comment/updated`, `comment/deleted`) apply the same changes;
 * a change seen twice (own request + its realtime echo) is applied once.
 *
 * A locked item's comments are for those who may open it: the server answers anyone else 403 `LOCKED` with
 * the public count, and the state then holds `locked` (what would open it) and that count, no items.
 */

export const COMMENTED = 'Commented successfully';
export const REMOVED = 'Removed successfully!';
export const COMMENT_ERROR = 'Error occured, please try again later';
export const COMMENTS_PAGE_SIZE = 10;

export interface CommentState {
  items: CommentItem[];
  total: number;
  /** A page is loading. */
  requesting: boolean;
  /** A create is in flight. */
  posting: boolean;
  /** The first page has arrived. */
  loaded: boolean;
  /** The viewer may delete anyone's comment here (the object's performer, an admin). */
  canModerate: boolean;
  nextCursor: string | null;
  error: string | null;
  /** The viewer may not read or write here: what would open the discussion; `total` is the public count. */
  locked: LockedDiscussion['needs'] | null;
}

export const emptyCommentState = (): CommentState => ({
  items: [],
  total: 0,
  requesting: false,
  posting: false,
  loaded: false,
  canModerate: false,
  nextCursor: null,
  error: null,
  locked: null,
});

export const comments = map<Record<string, CommentState>>({});
/** Ids removed per objectId, so a late or repeated delete event does not lower the total twice. */
const removed = new Map<string, Set<string>>();

export function commentState(objectId: string): CommentState {
  return comments.get()[objectId] ?? emptyCommentState();
}

function patch(objectId: string, change: Partial<CommentState> | ((s: CommentState) => Partial<CommentState>)): void {
  const current = commentState(objectId);
  comments.setKey(objectId, { ...current, ...(typeof change === 'function' ? change(current) : change) });
}

/** Seeds the state from a server-rendered first page. */
export function seedComments(objectId: string, page: CommentSearchResult): void {
  patch(objectId, { items: page.items, total: page.total, nextCursor: page.nextCursor ?? null, canModerate: page.canModerate, loaded: true, error: null, locked: null });
}

/** Shows the discussion as locked: the count only, no comments (also what a 403 `LOCKED` answer leads to). */
export function lockComments(objectId: string, locked: LockedDiscussion): void {
  patch(objectId, { items: [], total: locked.commentCount, nextCursor: null, canModerate: false, loaded: true, requesting: false, error: null, locked: locked.needs });
}

/** The `{ needs, commentCount }` of a 403 `LOCKED` answer, else null. */
export function lockedFrom(err: unknown): LockedDiscussion | null {
  if (!(err instanceof ApiError) || err.status !== 403 || err.code !== 'LOCKED') return null;
  const d = err.body.details as Partial<LockedDiscussion> | undefined;
  const needs = d?.needs === 'purchase' ? 'purchase' : 'subscription';
  return { needs, commentCount: typeof d?.commentCount === 'number' ? d.commentCount : 0 };
}

/** The first page (or, with `more`, the next one appended). */
export async function loadComments(objectType: EngagementObjectType, objectId: string, opts: { more?: boolean; limit?: number } = {}): Promise<void> {
  const before = commentState(objectId);
  if (before.requesting) return;
  patch(objectId, { requesting: true, error: null });
  try {
    const page = await call(({ engagement }) => engagement.searchComments({
      objectType,
      objectId,
      limit: opts.limit ?? COMMENTS_PAGE_SIZE,
      ...(opts.more && before.nextCursor ? { cursor: before.nextCursor } : opts.more ? { offset: before.items.length } : {}),
    }));
    patch(objectId, (s) => {
      const items = opts.more ? [...s.items, ...page.items.filter((c) => !s.items.some((x) => x._id === c._id))] : page.items;
      return { items, total: page.total, nextCursor: page.nextCursor ?? null, canModerate: page.canModerate, loaded: true, requesting: false, locked: null };
    });
  } catch (err) {
    const locked = lockedFrom(err);
    if (locked) return lockComments(objectId, locked);
    patch(objectId, { requesting: false, error: err instanceof Error ? err.message : COMMENT_ERROR });
  }
}

/** Adds a comment at the top and raises total by one, unless it is already there. */
export function addComment(comment: CommentItem): boolean {
  const s = commentState(comment.objectId);
  if (s.items.some((c) => c._id === comment._id) || removed.get(comment.objectId)?.has(comment._id)) return false;
  patch(comment.objectId, { items: [comment, ...s.items], total: s.total + 1 });
  return true;
}

export function replaceComment(comment: CommentItem): void {
  const s = commentState(comment.objectId);
  if (!s.items.some((c) => c._id === comment._id)) return;
  patch(comment.objectId, { items: s.items.map((c) => (c._id === comment._id ? comment : c)) });
}

/** Removes a comment and lowers total by one, once per id. */
export function dropComment(objectId: string, commentId: string): boolean {
  let seen = removed.get(objectId);
  if (!seen) removed.set(objectId, (seen = new Set()));
  if (seen.has(commentId)) return false;
  seen.add(commentId);
  const s = commentState(objectId);
  const items = s.items.filter((c) => c._id !== commentId);
  // A comment beyond the loaded pages still counted in total.
  patch(objectId, { items, total: Math.max(items.length, s.total - 1) });
  return true;
}

export async function createComment(objectType: EngagementObjectType, objectId: string, content: string): Promise<CommentItem | null> {
  patch(objectId, { posting: true });
  try {
    const created = await call(({ engagement }) => engagement.createComment({ objectType, objectId, content }));
    const { commentCount: _count, ...comment } = created;
    addComment(comment);
    toast.success(COMMENTED);
    return comment;
  } catch (err) {
    // Access ended while the page was open (a subscription lapsed): show the locked view.
    const locked = lockedFrom(err);
    if (locked) lockComments(objectId, locked);
    toast.error(locked ? (err as ApiError).message : COMMENT_ERROR);
    return null;
  } finally {
    patch(objectId, { posting: false });
  }
}

export async function deleteComment(objectId: string, commentId: string): Promise<boolean> {
  try {
    await call(({ engagement }) => engagement.deleteComment(commentId));
    dropComment(objectId, commentId);
    toast.success(REMOVED);
    return true;
  } catch {
    toast.error(COMMENT_ERROR);
    return false;
  }
}

export async function editComment(comment: CommentItem, changes: { content?: string; image?: Blob; removeImage?: boolean }): Promise<CommentItem | null> {
  try {
    const updated = await call(({ engagement }) => engagement.editComment(comment._id, changes));
    replaceComment(updated);
    return updated;
  } catch (err) {
    const locked = lockedFrom(err);
    if (locked) lockComments(comment.objectId, locked);
    toast.error(locked ? (err as ApiError).message : COMMENT_ERROR);
    return null;
  }
}

/** Live updates of one object's comments (its realtime room); answers the unsubscribe function. */
export function subscribeComments(objectType: EngagementObjectType, objectId: string): () => void {
  const offs = [
    watchObject(objectType, objectId),
    onRealtime('comment/created', ({ comment }) => {
      if (comment.objectId === objectId && comment.objectType === objectType) addComment(comment);
    }),
    onRealtime('comment/updated', ({ comment }) => {
      if (comment.objectId === objectId && comment.objectType === objectType) replaceComment(comment);
    }),
    onRealtime('comment/deleted', (payload) => {
      if (payload.objectId === objectId && payload.objectType === objectType) dropComment(objectId, payload._id);
    }),
  ];
  return () => offs.forEach((off) => off());
}

export function resetComments(): void {
  comments.set({});
  removed.clear();
}

registerReset('comments', resetComments);
