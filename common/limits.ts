/**
 * Limits the API's schemas enforce and the islands show, in a module without zod so that an island may import them
 * (common/schemas/* import zod: browser code takes only their types).
 */

/** A performer's post carries at most this many pictures (or one video). */
export const POST_MAX_IMAGES = 10;

/** A comment's text, after trimming: 1..2000 characters. */
export const COMMENT_MAX_LENGTH = 2000;

