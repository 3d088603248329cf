import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import { requireRole, requireUser } from '../http/auth.js';
import { badRequest } from '../http/errors.js';
import { decodeCursor } from '../http/pagination.js';
import { parseInput } from '../http/parse-input.js';
import { limiter } from '../http/rate-limit.js';
import { route } from '../http/route.js';
import { formatBytes, receiveMultipart, type FileFieldSpec } from '../media/pipeline/upload.js';
import { blockedFans, blockFan, unblockFan } from '../blocks/blocks.service.js';
import { cleanAttachments } from './attachments.js';
import { listMassMessages, sendMassMessage } from './mass.service.js';
import { apiErrorSchema, listSchema, unreadCountSchema } from '../../common/schemas/http.js';
import {
  blockBody, blockedFanSchema, blockParams, blockStateSchema, conversationParams, conversationSchema, conversationsQuery, massMessageFields, massMessageSchema, messageFields, messageItemSchema, messageParams, messageSettingsSchema, messagesQuery, readStateSchema, startConversationBody,
} from '../../common/schemas/messages.js';
import { MESSAGE_MAX_ATTACHMENTS, MESSAGE_MAX_CHARS } from '../../common/messages.js';
import {
  getConversation, getMessage, getMessagePolicy, listConversations, listMessages, markConversationRead, sendMessage, startConversation, unreadMessageCount,
  messagesDeps, updateMessagePolicy, type MessagesDeps,
} from './messages.service.js';

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema };
const tags = ['messages'];


/** Direct messages (server/messages/README.md) and a performer's blocks and messaging settings. */
export async function messagesRoutes(app: ApiApp): Promise<void> {
  const { db, storage, config } = app.ctx;
  const deps: MessagesDeps = messagesDeps(app.ctx);
  const massDeps = { ...deps, jobs: app.ctx.jobs };
  const limits = config.pipeline.uploads;
  // Scoped to this plugin; per-request limits are set by receiveMultipart().
  await app.register(multipart, { throwFileSizeLimit: true });
  const perUser = limiter(app, 'message-send', config.messageSendLimit, (request: FastifyRequest) => request.user?.id, 'Too many messages, please slow down');
  const me = (request: FastifyRequest) => {
    const u = requireUser(request);
    return { id: u.id, role: u.role, name: u.name };
  };

  // Images and videos: sniffed from the bytes, videos probed by ffmpeg, stored private (server/media/pipeline/upload.ts).
  const attachmentSpecs: Record<string, FileFieldSpec> = {
    file: { accept: 'media', maxBytes: Math.max(limits.image, limits.video), label: 'attachment', prefix: 'private/messages', maxCount: MESSAGE_MAX_ATTACHMENTS, aliases: ['files', 'file[]'] },
  };

  app.get(
    '/messages/conversations',
    route({ access: 'session', tags, summary: "The caller's conversations that hold a message, newest activity first, with the other participant, the last message and the unread count (keyset paged by cursor)", querystring: conversationsQuery, response: { 200: listSchema(conversationSchema), ...errors } }),
    async (request) => listConversations(deps, me(request), { limit: request.query.limit, cursor: decodeCursor(request.query.cursor) }),
  );

  app.post(
    '/messages/conversations',
    {
      ...route({
        access: 'session',
        tags,
        summary: 'Open the conversation with a performer (for a fan) or a fan (for a performer), by id or username: the existing one, or a new one when the caller may write first. 403 MESSAGES_NOT_ALLOWED or BLOCKED_BY_PERFORMER, 404 for no such account',
        body: startConversationBody,
        response: { 200: conversationSchema, ...errors, 429: apiErrorSchema },
      }),
      onRequest: [perUser],
    },
    async (request) => startConversation(deps, me(request), request.body.userId),
  );

  app.get(
    '/messages/conversations/:id',
    route({ access: 'session', tags, summary: 'One conversation of the caller (admins: any), with whether the caller may write in it now and why not; 404 for anyone else', params: conversationParams, response: { 200: conversationSchema, ...errors } }),
    async (request) => getConversation(deps, me(request), request.params.id),
  );

  app.get(
    '/messages/conversations/:id/messages',
    route({
      access: 'session',
      tags,
      summary: "A conversation's messages, newest first, keyset paged by (time, id); attachments as short-lived URLs signed for the caller. 404 for anyone but its two participants and admins",
      params: conversationParams,
      querystring: messagesQuery,
      response: { 200: listSchema(messageItemSchema), ...errors },
    }),
    async (request) => listMessages(deps, me(request), request.params.id, { limit: request.query.limit, cursor: decodeCursor(request.query.cursor) }),
  );

  app.post(
    '/messages/conversations/:id/messages',
    {
      ...route({
        access: 'session',
        tags,
        summary: 'Send a message in one of your conversations',
        description:
          `JSON \`{ text }\` or multipart/form-data with "text" and up to ${MESSAGE_MAX_ATTACHMENTS} files in "file" (pictures: JPEG, PNG, WebP, GIF; ` +
          `videos: MP4, MOV, WebM; ${formatBytes(Math.max(limits.image, limits.video))} at most). Text is plain, at most ${MESSAGE_MAX_CHARS} characters. ` +
          'A performer may add "price" (minor units, up to 100000000; 0 or left out: free) to a message with files: its text stays readable and its files ' +
          'open for the recipient once bought (`POST /payment/purchase-message/{id}`); 400 PRICE_NEEDS_ATTACHMENT without files, PRICE_NOT_ALLOWED from a fan. ' +
          '403 MESSAGES_NOT_ALLOWED (the performer\'s setting) or BLOCKED_BY_PERFORMER; 404 for anyone but the participants; 429 when sending too fast.',
        consumes: ['multipart/form-data', 'application/json'],
        params: conversationParams,
        response: { 201: messageItemSchema, ...errors, 413: apiErrorSchema, 429: apiErrorSchema },
      }),
      onRequest: [perUser],
    },
    async (request, reply) => {
      const user = me(request);
      let message;
      if (request.isMultipart()) {
        const form = await receiveMultipart(request, storage, attachmentSpecs, { maxFields: 5, maxFieldBytes: MESSAGE_MAX_CHARS * 4 });
        try {
          const { text, price } = parseInput(messageFields, { text: Array.isArray(form.fields.text) ? form.fields.text.join('\n') : form.fields.text, price: form.fields.price });
          const files = form.files.file ?? [];
          await cleanAttachments(storage, files);
          message = await sendMessage(deps, user, request.params.id, { text, files, price });
        } catch (err) {
          await form.discard();
          throw err;
        }
      } else {
        const body = request.body;
        if (body !== undefined && (typeof body !== 'object' || body === null)) throw badRequest('Send `{ text }` as JSON or a multipart form');
        const { text, price } = parseInput(messageFields, body ?? {});
        message = await sendMessage(deps, user, request.params.id, { text, files: [], price });
      }
      reply.status(201);
      return message;
    },
  );

  app.get(
    '/messages/:id',
    route({
      access: 'session',
      tags,
      summary: 'One message, for the two participants of its conversation and admins (404 for anyone else); its files signed for the caller, or locked placeholders while a paid message is not bought',
      params: messageParams,
      response: { 200: messageItemSchema, ...errors },
    }),
    async (request) => getMessage(deps, me(request), request.params.id),
  );

  app.post(
    '/messages/conversations/:id/read',
    route({ access: 'session', tags, summary: 'Mark what the caller received in a conversation as read; answers the caller\'s unread count after it', params: conversationParams, response: { 200: readStateSchema, ...errors } }),
    async (request) => markConversationRead(deps, me(request), request.params.id),
  );

  app.get(
    '/messages/unread',
    route({ access: 'session', tags, summary: "The caller's unread messages over all conversations", response: { 200: unreadCountSchema, ...errors } }),
    async (request) => ({ count: await unreadMessageCount(db, requireUser(request).id) }),
  );

  // -- the performer's side: who may write first, and blocked fans ---------------------------------------------------

  const performer = { roles: ['performer'] as const };
  app.get(
    '/performer/message-settings',
    route({ access: { roles: ['performer'] }, tags, summary: 'Who may write to you first: subscribers (default), fans (any signed-in account) or nobody', response: { 200: messageSettingsSchema, ...errors } }),
    async (request) => getMessagePolicy(db, requireRole(request, ...performer.roles).id),
  );
  app.put(
    '/performer/message-settings',
    route({ access: { roles: ['performer'] }, tags, summary: 'Set who may write to you first', body: messageSettingsSchema, response: { 200: messageSettingsSchema, ...errors } }),
    async (request) => updateMessagePolicy(db, requireRole(request, ...performer.roles).id, request.body.messagePolicy),
  );
  app.get(
    '/performer/blocks',
    route({ access: { roles: ['performer'] }, tags, summary: 'The fans you blocked, newest first', response: { 200: z.object({ items: z.array(blockedFanSchema) }), ...errors } }),
    async (request) => ({ items: await blockedFans(db, requireRole(request, ...performer.roles).id) }),
  );
  app.post(
    '/performer/blocks',
    route({
      access: { roles: ['performer'] },
      tags,
      summary: 'Block a fan (by id or username): no messages, comments or new subscriptions from them; running subscriptions are kept. Idempotent',
      body: blockBody,
      response: { 200: blockStateSchema, ...errors },
    }),
    async (request) => blockFan(db, requireRole(request, ...performer.roles).id, request.body.userId),
  );
  app.get(
    '/performer/mass-messages',
    route({ access: { roles: ['performer'] }, tags, summary: 'Your mass messages, newest first, with how many copies were delivered of the total', response: { 200: z.object({ items: z.array(massMessageSchema) }), ...errors } }),
    async (request) => ({ items: await listMassMessages(massDeps, requireRole(request, ...performer.roles).id) }),
  );
  app.post(
    '/performer/mass-messages',
    {
      ...route({
        access: { roles: ['performer'] },
        tags,
        summary: 'Send one message to all your live subscribers or all your followers',
        description:
          `JSON \`{ text, audience, price }\` or multipart/form-data with "text", "audience" (subscribers | followers), "price" and up to ${MESSAGE_MAX_ATTACHMENTS} files in "file", ` +
          'as for a message. Delivered by a paced job into each recipient\'s conversation, once per recipient; fans you blocked are left out. ' +
          'A price (with files) goes on every copy: each recipient buys their own. ' +
          '400 NO_RECIPIENTS when the audience is empty.',
        consumes: ['multipart/form-data', 'application/json'],
        response: { 201: massMessageSchema, ...errors, 413: apiErrorSchema, 429: apiErrorSchema },
      }),
      onRequest: [perUser],
    },
    async (request, reply) => {
      const user = requireRole(request, ...performer.roles);
      const sender = { id: user.id, name: user.name };
      let sent;
      if (request.isMultipart()) {
        const form = await receiveMultipart(request, storage, attachmentSpecs, { maxFields: 5, maxFieldBytes: MESSAGE_MAX_CHARS * 4 });
        try {
          const fields = parseInput(massMessageFields, { text: form.fields.text, audience: form.fields.audience, price: form.fields.price });
          const files = form.files.file ?? [];
          await cleanAttachments(storage, files);
          sent = await sendMassMessage(massDeps, sender, { ...fields, files });
        } catch (err) {
          await form.discard();
          throw err;
        }
      } else {
        sent = await sendMassMessage(massDeps, sender, { ...parseInput(massMessageFields, request.body ?? {}), files: [] });
      }
      reply.status(201);
      return sent;
    },
  );
  app.delete(
    '/performer/blocks/:userId',
    route({ access: { roles: ['performer'] }, tags, summary: 'Unblock a fan; idempotent', params: blockParams, response: { 200: blockStateSchema, ...errors } }),
    async (request) => unblockFan(db, requireRole(request, ...performer.roles).id, request.params.userId),
  );
}
