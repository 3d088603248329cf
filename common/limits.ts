/**
 * Limits the API's schemas enforce and the islands show, in a module without zod so that an island may import them
 * (common/schemas/* import zod: browser code takes only their types).
 */

/** A performer's post carries at most this many pictures (or one video). */
export const POST_MAX_IMAGES = 10;

/** A comment's text, after trimming: 1..2000 characters. */
export const COMMENT_MAX_LENGTH = 2000;


/**
 * Unread counts (messages, notifications) stop at this: a badge shows "99+" from here on, and counting a backlog of
 * thousands again on every message and notification would make each write dearer as the backlog grows.
 */
export const UNREAD_COUNT_CAP = 100;

/** A badge's figure: the count, or "99+" from UNREAD_COUNT_CAP on (the counts stop there). */
export function badgeFigure(count: number): string {
  return count >= UNREAD_COUNT_CAP ? `${UNREAD_COUNT_CAP - 1}+` : String(count);
}
