import { z } from 'zod';
import { pageQuery } from '../../common/schemas/http.js';
import { COMMENT_MAX_LENGTH } from '../../common/limits.js';
import { ENGAGEMENT_OBJECT_TYPES } from '../../common/api-types.js';

/** Request and response shapes of the comments routes (server/comments/comments.routes.ts). */

export const objectTypeField = z.enum(ENGAGEMENT_OBJECT_TYPES as ['video', 'gallery', 'product', 'post', 'performer'], {
  error: `objectType must be one of ${ENGAGEMENT_OBJECT_TYPES.join(', ')}`,
});
export const objectIdField = z.string({ error: 'objectId is required' }).trim().regex(/^[A-Za-z0-9_-]{1,64}$/, 'Invalid objectId');

export const commentTextMessages = {
  empty: 'Comment cannot be empty',
  tooLong: `Comment must be at most ${COMMENT_MAX_LENGTH} characters`,
} as const;

/**
 * Comment text: control characters other than tab and newline are dropped (PostgreSQL refuses NUL in text),
 * Windows newlines normalised, then trimmed; 1..2000 characters. Stored and answered as plain text.
 */
export const commentText = z
  .string({ error: 'Comment must be text' })
  .max(COMMENT_MAX_LENGTH * 4, commentTextMessages.tooLong)
  .transform((s) => s.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '').trim())
  .pipe(z.string().min(1, commentTextMessages.empty).max(COMMENT_MAX_LENGTH, commentTextMessages.tooLong));

export const createCommentBody = z.object({ objectType: objectTypeField, objectId: objectIdField, content: commentText });

/** `PUT /comments/{id}` as JSON (the multipart form carries the same fields plus one image file). */
export const editCommentBody = z
  .object({ content: commentText.optional(), removeImage: z.boolean().optional() })
  // A multipart request arrives without a parsed body.
  .nullish();

export const commentSearchQuery = pageQuery.extend({ objectType: objectTypeField, objectId: objectIdField });

export const commentIdParams = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'Invalid comment id') });

export const commentItemSchema = z.object({
  _id: z.string(),
  objectType: objectTypeField,
  objectId: z.string(),
  content: z.string(),
  image: z.string().nullable(),
  userId: z.string(),
  user: z.object({ _id: z.string(), name: z.string(), username: z.string(), avatar: z.string() }),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const createdCommentSchema = commentItemSchema.extend({ commentCount: z.number().int() });

export const commentSearchSchema = z.object({
  items: z.array(commentItemSchema),
  total: z.number().int(),
  nextCursor: z.string().nullable().optional(),
  canModerate: z.boolean(),
});

export const deleteCommentSchema = z.object({ _id: z.string(), objectType: objectTypeField, objectId: z.string(), commentCount: z.number().int() });
