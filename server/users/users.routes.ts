import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { ApiApp } from '../http/types.js';
import { requireRole, requireUser } from '../http/auth.js';
import { forbidden } from '../http/errors.js';
import { apiErrorSchema, listSchema } from '../../common/schemas/http.js';
import { imageUploadLimits, readSingleImage } from '../http/single-image.js';
import { currentUserSchema, publicUserSchema } from '../../common/schemas/auth.js';
import { memberHeaderQuery, memberHeaderSchema } from '../../common/schemas/member-shell.js';
import { getPerformerViewer } from '../performers/performers.service.js';
import { getVideoViewer } from '../videos/videos.service.js';
import { catalogueDeps } from '../catalogue/catalogue.service.js';
import { unlocksMoreThanGuests } from '../access/access.service.js';
import { feedOf } from '../follows/feed.service.js';
import { adminUserSchema, updateProfileBody, userRefParams, userSearchQuery } from '../../common/schemas/users.js';
import {
  getCurrentUser,
  getPublicUser,
  headerFacts,
  replaceUserImage,
  searchUsersForAdmin,
  updateProfile,
  type UserImageKind,
} from './users.service.js';
import { route } from '../http/route.js';

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema, 409: apiErrorSchema, 429: apiErrorSchema };
const uploadErrors = { ...errors, 413: apiErrorSchema };

const uploadDescription =
  'multipart/form-data with ONE file part (any field name, e.g. "file"), at most 5 MB. The type is sniffed from the bytes ' +
  '(JPEG, PNG, WebP, GIF, AVIF, HEIF or TIFF; anything else is 400 whatever its name or declared type); ' +
  'the picture is cover-cropped to WebP and served from /media/public/. The previous picture is deleted. Answers the updated current user.';

export async function usersRoutes(app: ApiApp): Promise<void> {
  const { db, storage, logger } = app.ctx;
  // Scoped to this plugin: only the upload routes below parse multipart bodies.
  await app.register(multipart, { limits: imageUploadLimits, throwFileSizeLimit: true });

  app.get(
    '/users/me',
    route({ access: 'session', tags: ['users'], summary: 'The signed-in account; 401 without a valid session', response: { 200: currentUserSchema, ...errors } }),
    async (request, reply) => {
      const user = requireUser(request);
      reply.header('cache-control', 'no-store');
      return getCurrentUser(db, user.id);
    },
  );

  app.get(
    '/users/me/header',
    route({
      access: 'session',
      tags: ['users'],
      summary: "What the header shows the signed-in visitor (who they are, their unread messages and notifications), whether any item may be open to them that is locked to a guest, with `performer` or `video` their state on that page, and with `feed` their feed's first page; 401 without a valid session",
      description:
        "Pages shown alike to every signed-in visitor carry none of this; they ask for it once per page. `performer` (an id or username): the visitor's follow, subscription, the plans as the checkout would charge them and whether they may write, null where that performer's page is not open to them. `video` (an id or slug): whether it is open to the visitor, its full file signed for them, the plans that open it as the checkout would charge them and their reactions, null where that video's page is not open to them. `feed` (a page size): the first page of the visitor's feed, as `GET /feed?limit=` answers it.",
      querystring: memberHeaderQuery,
      response: { 200: memberHeaderSchema, ...errors },
    }),
    async (request, reply) => {
      const user = requireUser(request);
      reply.header('cache-control', 'private, no-store');
      const viewer = { id: user.id, role: user.role };
      const { performer, video, feed } = request.query;
      const deps = catalogueDeps(app.ctx, request.country);
      const [facts, performerState, videoState, feedPage] = await Promise.all([
        headerFacts(db, user.id),
        performer === undefined ? undefined : getPerformerViewer(deps, viewer, performer),
        video === undefined ? undefined : getVideoViewer(deps, viewer, video),
        feed === undefined ? undefined : feedOf(deps, viewer, { limit: feed }),
      ]);
      return {
        user: { _id: user.id, name: user.name, username: user.username, avatar: user.avatar, role: user.role },
        unread: { messages: facts.messages, notifications: facts.notifications },
        unlocksMore: unlocksMoreThanGuests(viewer, facts.holdsAny),
        ...(performerState === undefined ? {} : { performer: performerState }),
        ...(videoState === undefined ? {} : { video: videoState }),
        ...(feedPage === undefined ? {} : { feed: feedPage }),
      };
    },
  );

  app.put(
    '/users',
    route({
      access: 'session',
      tags: ['users'],
      summary: 'Update the signed-in account: name, username, bio, country (only the fields sent change)',
      description:
        'Usernames share one namespace with performers: a taken one answers 409. `country` is an ISO 3166-1 alpha-2 code (case-insensitive); "" or null clears `bio` and `country`. A performer account keeps its public name and handle in step.',
      body: updateProfileBody,
      response: { 200: currentUserSchema, ...errors },
    }),
    async (request) => {
      const user = requireUser(request);
      return updateProfile(db, user.id, request.body);
    },
  );

  app.get(
    '/users/search',
    route({
      access: { roles: ['admin'] },
      tags: ['users', 'admin'],
      summary: 'Admin only: search accounts by name, username or email, filtered by role and status',
      querystring: userSearchQuery,
      response: { 200: listSchema(adminUserSchema), ...errors },
    }),
    async (request, reply) => {
      requireRole(request, 'admin');
      reply.header('cache-control', 'no-store');
      return searchUsersForAdmin(db, request.query);
    },
  );

  app.get(
    '/users/view/:id',
    route({
      access: 'public',
      tags: ['users'],
      summary: 'Public profile of an account, by id or username; 404 for unknown or suspended accounts',
      params: userRefParams,
      response: { 200: publicUserSchema, ...errors },
    }),
    async (request) => getPublicUser(db, request.params.id),
  );

  const upload = (kind: UserImageKind, request: FastifyRequest, userId: string) =>
    readSingleImage(request).then((file) => replaceUserImage({ db, storage, logger }, userId, kind, file));

  app.post(
    '/users/avatar/upload',
    route({
      access: 'session',
      tags: ['users'],
      summary: 'Upload the avatar of the signed-in account (resized to 256x256)',
      description: uploadDescription,
      consumes: ['multipart/form-data'],
      response: { 200: currentUserSchema, ...uploadErrors },
    }),
    async (request) => upload('avatar', request, requireUser(request).id),
  );

  app.post(
    '/users/cover/upload',
    route({
      access: 'session',
      tags: ['users'],
      summary: 'Upload the cover picture of the signed-in account (resized to 1500x500)',
      description: uploadDescription,
      consumes: ['multipart/form-data'],
      response: { 200: currentUserSchema, ...uploadErrors },
    }),
    async (request) => upload('cover', request, requireUser(request).id),
  );

  app.post(
    '/users/:id/avatar/upload',
    route({
      access: 'session',
      tags: ['users'],
      summary: "Upload an account's avatar: the account itself or an admin; answers that account",
      description: uploadDescription,
      consumes: ['multipart/form-data'],
      params: userRefParams,
      response: { 200: currentUserSchema, ...uploadErrors },
    }),
    async (request) => {
      const user = requireUser(request);
      if (user.id !== request.params.id && user.role !== 'admin') throw forbidden('You can only change your own avatar');
      return upload('avatar', request, request.params.id);
    },
  );
}
