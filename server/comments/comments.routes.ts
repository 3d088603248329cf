import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { ApiApp } from '../http/types.js';
import type { Limit } from '../config.js';
import { requireUser } from '../http/auth.js';
import { AppError, badRequest } from '../http/errors.js';
import { decodeCursor } from '../http/pagination.js';
import { limiter } from '../http/rate-limit.js';
import { apiErrorSchema } from '../../common/schemas/http.js';
import {
  commentIdParams, commentItemSchema, commentSearchQuery, commentSearchSchema, commentText, createCommentBody, createdCommentSchema,
  deleteCommentSchema, editCommentBody,
} from '../../common/schemas/engagement.js';
import { COMMENT_IMAGE_MAX_BYTES, commentMessages, createComment, editComment, removeComment, searchComments, type CommentDeps } from './comments.service.js';
import { route } from '../http/route.js';

/** New comments per user (all objects together). */
export const COMMENT_CREATE_LIMIT: Limit = { max: 20, windowSec: 60 };
/** Edits (text or picture) per user. */
export const COMMENT_EDIT_LIMIT: Limit = { max: 30, windowSec: 60 };

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema, 429: apiErrorSchema };
const uploadLimits = { files: 1, fileSize: COMMENT_IMAGE_MAX_BYTES, fields: 5, fieldSize: 16 * 1024, parts: 6, headerPairs: 100 };

interface CommentForm {
  content?: string;
  image?: Buffer;
  removeImage?: boolean;
}

/** The multipart form of `PUT /comments/{id}`: optional `content` and `removeImage` fields, at most one image file. */
async function readCommentForm(request: FastifyRequest): Promise<CommentForm> {
  const form: CommentForm = {};
  try {
    for await (const part of request.parts({ limits: uploadLimits })) {
      if (part.type === 'file') {
        const bytes = await part.toBuffer();
        if (bytes.length) form.image = bytes;
      } else if (part.fieldname === 'content') {
        const parsed = commentText.safeParse(String(part.value));
        if (!parsed.success) {
          const message = parsed.error.issues[0]?.message ?? 'Invalid comment';
          throw new AppError(400, 'VALIDATION_FAILED', `Invalid body.content: ${message}`, [{ path: 'body.content', message }]);
        }
        form.content = parsed.data;
      } else if (part.fieldname === 'removeImage') {
        form.removeImage = ['1', 'true', 'on', 'yes'].includes(String(part.value).toLowerCase());
      }
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new AppError(413, 'PAYLOAD_TOO_LARGE', commentMessages.imageTooLarge);
    if (code === 'FST_FILES_LIMIT') throw badRequest('Send one image only');
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') throw badRequest('Too many form fields');
    if (code === 'FST_PROTO_VIOLATION' || code === 'FST_INVALID_JSON_FIELD_ERROR') throw badRequest('Malformed form field');
    if (err instanceof Error && /multipart|boundary|part terminated/i.test(err.message)) throw badRequest('Malformed multipart/form-data body');
    throw err;
  }
  return form;
}

export async function commentsRoutes(app: ApiApp): Promise<void> {
  const deps = (): CommentDeps => ({ db: app.ctx.db, storage: app.ctx.storage, realtime: app.ctx.realtime, logger: app.ctx.logger });
  await app.register(multipart, { limits: uploadLimits, throwFileSizeLimit: true });
  const byUser = (request: FastifyRequest) => request.user?.id;
  const tooMany = 'You are commenting too fast, please wait a moment';

  app.get(
    '/comments/search',
    route({
      access: 'public',
      tags: ['comments'],
      summary: 'Comments of an object, newest first (404 when the object is not visible, 403 LOCKED without access)',
      description:
        'Paginated with limit/offset or the opaque `nextCursor`. `canModerate`: the viewer may delete any comment here. The comments of a locked item (subscribers-only, for sale, a digital product) are for whoever may open it: subscribers, buyers, its performer, admins. Anyone else gets `403` with `code: LOCKED` and `details: { needs: "subscription" | "purchase", commentCount }` (the count stays public); that answer is the same for every guest.',
      querystring: commentSearchQuery,
      response: { 200: commentSearchSchema, ...errors },
    }),
    async (request, reply) => {
      if (request.user) reply.header('cache-control', 'private, no-store');
      return searchComments(app.ctx.db, request.user, { ...request.query, cursor: decodeCursor(request.query.cursor) }, request.country);
    },
  );

  app.post(
    '/comments',
    {
      ...route({
        access: 'session',
        tags: ['comments'],
        summary: 'Comment on a video, gallery, product, post or performer',
        description: `Text is trimmed, 1..2000 characters, stored and answered as plain text. A locked item takes comments only from those who may open it (403 LOCKED otherwise). At most ${COMMENT_CREATE_LIMIT.max} per ${COMMENT_CREATE_LIMIT.windowSec} s per user (429). Pushes \`comment/created\` to the object's room.`,
        body: createCommentBody,
        response: { 201: createdCommentSchema, ...errors },
      }),
      onRequest: [limiter(app, 'comment-create', COMMENT_CREATE_LIMIT, byUser, tooMany)],
    },
    async (request, reply) => {
      const user = requireUser(request);
      const comment = await createComment(deps(), user, request.body, request.country);
      return reply.status(201).send(comment);
    },
  );

  app.put(
    '/comments/:id',
    {
      ...route({
        access: 'session',
        tags: ['comments'],
        summary: 'Edit a comment (author only): new text and/or a picture',
        description:
          'Only the author, and only while they may open the item (403 LOCKED once a subscription lapsed); the performer and admins delete, never edit. multipart/form-data with optional fields `content` and `removeImage` (1/true) and at most one image file (5 MB; JPEG, PNG, WebP, GIF, AVIF; stored as WebP within 1280x1280). A JSON body `{ content?, removeImage? }` is accepted too. Pushes `comment/updated`.',
        consumes: ['multipart/form-data', 'application/json'],
        params: commentIdParams,
        body: editCommentBody,
        response: { 200: commentItemSchema, ...errors, 413: apiErrorSchema },
      }),
      onRequest: [limiter(app, 'comment-edit', COMMENT_EDIT_LIMIT, byUser, tooMany)],
    },
    async (request) => {
      const user = requireUser(request);
      const input: CommentForm = request.isMultipart() ? await readCommentForm(request) : { ...(request.body ?? {}) };
      return editComment(deps(), user, request.params.id, input, request.country);
    },
  );

  app.delete(
    '/comments/:id',
    route({
      access: 'session',
      tags: ['comments'],
      summary: "Delete a comment: its author, the object's performer or an admin",
      description: "Answers the object's comment count after the delete. Pushes `comment/deleted`.",
      params: commentIdParams,
      response: { 200: deleteCommentSchema, ...errors },
    }),
    async (request) => removeComment(deps(), requireUser(request), request.params.id),
  );
}
