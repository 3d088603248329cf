import { z } from 'zod';
import { engagementObjectTypeSchema, reactionActionSchema, type ReactionAction } from '../enums.js';
import { COMMENT_MAX_LENGTH } from '../limits.js';
import { listSchema, pageQuery } from './http.js';
import { galleryItemSchema, videoItemSchema } from './catalogue.js';

/** Engagement: comments and reactions (server/comments, server/reactions). */

export const objectTypeField = z.enum(engagementObjectTypeSchema.options, {
  error: `objectType must be one of ${engagementObjectTypeSchema.options.join(', ')}`,
});
export const objectIdField = z.string({ error: 'objectId is required' }).trim().regex(/^[A-Za-z0-9_-]{1,64}$/, 'Invalid objectId');

// ---------------------------------------------------------------------------------------------------------------
// Comments

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

/** `POST /comments`. `content` is trimmed, 1..2000 characters. */
export const createCommentBody = z.object({ objectType: objectTypeField, objectId: objectIdField, content: commentText });
export type CreateCommentRequest = z.input<typeof createCommentBody>;

/** `PUT /comments/{id}` as JSON (the multipart form carries the same fields plus one image file). */
export const editCommentBody = z
  .object({ content: commentText.optional(), removeImage: z.boolean().optional() })
  // A multipart request arrives without a parsed body.
  .nullish();

export const commentSearchQuery = pageQuery.extend({ objectType: objectTypeField, objectId: objectIdField });

export const commentIdParams = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'Invalid comment id') });

/** The author shown next to a comment. */
export const commentAuthorSchema = z.object({ _id: z.string(), name: z.string(), username: z.string(), avatar: z.string() });
export type CommentAuthor = z.output<typeof commentAuthorSchema>;

/** One comment: `_id`, `objectId` (the commented object). `content` is plain text: render it as text, never as HTML. */
export const commentItemSchema = z.object({
  _id: z.string(),
  objectType: objectTypeField,
  objectId: z.string(),
  content: z.string(),
  /** Public URL of the attached picture (`PUT /comments/{id}` multipart), or null. */
  image: z.string().nullable(),
  userId: z.string(),
  user: commentAuthorSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type CommentItem = z.output<typeof commentItemSchema>;

/** `POST /comments`: the comment and its object's count after it. */
export const createdCommentSchema = commentItemSchema.extend({ commentCount: z.number().int() });
export type CreatedComment = z.output<typeof createdCommentSchema>;

/** `GET /comments/search`: newest first. `canModerate`: the viewer may delete anyone's comment here (the object's performer, an admin). */
export const commentSearchSchema = listSchema(commentItemSchema).extend({ canModerate: z.boolean() });
export type CommentSearchResult = z.output<typeof commentSearchSchema>;

/** `DELETE /comments/{id}`: `commentCount` is the object's count after the delete. */
export const deleteCommentSchema = z.object({ _id: z.string(), objectType: objectTypeField, objectId: z.string(), commentCount: z.number().int() });
export type DeleteCommentResponse = z.output<typeof deleteCommentSchema>;

/**
 * The discussion of a locked item, for a viewer without access: comments are read and written by whoever may
 * open the item (subscribers, buyers, its performer, admins); everyone else gets the public count and what
 * would open it. `GET /comments/search` answers it as a 403 `LOCKED` error's `details`.
 */
export const lockedDiscussionSchema = z.object({ needs: z.enum(['subscription', 'purchase']), commentCount: z.number().int() });
export type LockedDiscussion = z.output<typeof lockedDiscussionSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Reactions

/** Spellings the API also accepts; answers always use like, favourite, watch_later. */
const actionAliases = {
  favorite: 'favourite',
  'watch-later': 'watch_later',
  watchlater: 'watch_later',
  watchLater: 'watch_later',
} as const satisfies Record<string, ReactionAction>;
type ActionSpelling = ReactionAction | keyof typeof actionAliases;
const unalias = (v: ActionSpelling | undefined) => (typeof v === 'string' ? ((actionAliases as Record<string, string>)[v.trim()] ?? v.trim()) : v);

export const actionField = z.preprocess(unalias, z.enum(reactionActionSchema.options, { error: 'action must be like, favourite or watch_later' }));

/** `POST /reactions` and `DELETE /reactions` (JSON body; DELETE also takes the same fields as query parameters). */
export const reactionBody = z.object({ objectType: objectTypeField, objectId: objectIdField, action: actionField });
export type ReactionRequest = z.input<typeof reactionBody>;
/** `DELETE /reactions` as documented: the fields of `reactionBody`, in the body or the query (checked by the handler). */
export const looseReaction = z.object({ objectType: z.string().optional(), objectId: z.string().optional(), action: z.string().optional() });

const objectIdsField = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean))
  .pipe(z.array(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'Invalid object id')).max(100, 'At most 100 objectIds'));

/** `GET /reactions/search`: the signed-in user's reactions. */
export const reactionSearchQuery = pageQuery.omit({ cursor: true }).extend({
  objectType: objectTypeField.optional(),
  action: actionField.optional(),
  /** Comma-separated, or the parameter repeated. */
  objectIds: objectIdsField.optional(),
});

/** `GET /reactions/videos` and `/reactions/galleries`: favourites (default) or watch later. */
export const reactedListQuery = pageQuery.omit({ cursor: true }).extend({
  action: z.preprocess(unalias, reactionActionSchema.extract(['favourite', 'watch_later'], { error: 'action must be favourite or watch_later' })).default('favourite'),
});

/** Answer of `POST /reactions` and `DELETE /reactions`: both are idempotent. */
export const reactionResultSchema = z.object({
  objectType: objectTypeField,
  objectId: z.string(),
  action: reactionActionSchema,
  /** Whether the user has this reaction now. */
  reacted: z.boolean(),
  /** Whether this call changed anything (false: it was already so). */
  changed: z.boolean(),
  /** The object's counter for the action after the call (likes or favourites); null for watch_later. */
  count: z.number().int().nullable(),
});
export type ReactionResult = z.output<typeof reactionResultSchema>;

export const reactionItemSchema = z.object({
  _id: z.string(),
  objectType: objectTypeField,
  objectId: z.string(),
  action: reactionActionSchema,
  createdAt: z.string(),
});
export type ReactionItem = z.output<typeof reactionItemSchema>;

const reactedBase = { _id: z.string(), action: reactionActionSchema, createdAt: z.string(), objectId: z.string() };
/** `GET /reactions/videos`: the user's favourite or watch-later videos, newest first. */
export const reactedVideoSchema = z.object({ ...reactedBase, video: videoItemSchema });
export type ReactedVideo = z.output<typeof reactedVideoSchema>;
/** `GET /reactions/galleries` */
export const reactedGallerySchema = z.object({ ...reactedBase, gallery: galleryItemSchema });
export type ReactedGallery = z.output<typeof reactedGallerySchema>;
