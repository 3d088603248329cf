/**
 * Limits of a direct message (docs/product.md, Messages). No zod here, so the inbox and the studio's islands load the
 * numbers without the schemas; common/schemas/messages.ts and the server use the same constants.
 */

/** Longest message text, in characters (after trimming). */
export const MESSAGE_MAX_CHARS = 2000;
/** Files one message may carry. */
export const MESSAGE_MAX_ATTACHMENTS = 4;
