import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ApiApp } from '../http/types.js';
import { requireUser } from '../http/auth.js';
import { decodeCursor } from '../http/pagination.js';
import { AppError } from '../http/errors.js';
import { route } from '../http/route.js';
import { apiErrorSchema, listSchema, unreadCountSchema } from '../../common/schemas/http.js';
import {
  emailPreferencesSchema, markAllReadBody, markAllReadSchema, notificationItemSchema, notificationParams, notificationsQuery, unsubscribeQuery,
  unsubscribeResultSchema, updateEmailPreferencesBody,
} from '../../common/schemas/notifications.js';
import {
  emailPreferencesOf, listNotifications, pushNotificationCount, readAllNotifications, readNotification, unreadNotificationCount, unsubscribeByToken,
  updateEmailPreferences,
} from './notifications.service.js';

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema };
const tags = ['notifications'];

/** Notifications (docs/product.md, Notifications): the signed-in user's own list, marking read, email choices; the signed unsubscribe link. */
export async function notificationsRoutes(app: ApiApp): Promise<void> {
  const { ctx } = app;
  const { db } = ctx;

  app.get(
    '/notifications',
    route({
      access: 'session', tags, summary: "The signed-in user's notifications, newest first (keyset paged by cursor), each with its text and link",
      querystring: notificationsQuery, response: { 200: listSchema(notificationItemSchema), ...errors },
    }),
    async (request) => listNotifications(db, requireUser(request).id, { limit: request.query.limit, cursor: decodeCursor(request.query.cursor) }),
  );

  app.get(
    '/notifications/unread-count',
    route({ access: 'session', tags, summary: "How many of the signed-in user's notifications are unread", response: { 200: unreadCountSchema, ...errors } }),
    async (request) => ({ count: await unreadNotificationCount(db, requireUser(request).id) }),
  );

  app.post(
    '/notifications/:id/read',
    route({
      access: 'session', tags, summary: "Mark one of the signed-in user's notifications read; 404 for an unknown id or another user's",
      params: notificationParams, response: { 200: notificationItemSchema, ...errors },
    }),
    async (request) => {
      const user = requireUser(request);
      const item = await readNotification(db, user.id, request.params.id);
      await pushNotificationCount(db, ctx.realtime, user.id);
      return item;
    },
  );

  app.post(
    '/notifications/read-all',
    route({
      access: 'session', tags, summary: "Mark the signed-in user's notifications read, up to `before` (the newest they have seen)",
      body: markAllReadBody, response: { 200: markAllReadSchema, ...errors },
    }),
    async (request) => {
      const user = requireUser(request);
      const result = await readAllNotifications(db, user.id, request.body.before);
      await pushNotificationCount(db, ctx.realtime, user.id);
      return result;
    },
  );

  app.get(
    '/notifications/preferences',
    route({ access: 'session', tags, summary: "The signed-in user's email choice per notification type (on unless turned off)", response: { 200: emailPreferencesSchema, ...errors } }),
    async (request) => emailPreferencesOf(db, requireUser(request).id),
  );

  app.put(
    '/notifications/preferences',
    route({
      access: 'session', tags, summary: 'Turn email on or off for the named notification types (the money mails of orders and payouts stay on)',
      body: updateEmailPreferencesBody, response: { 200: emailPreferencesSchema, ...errors },
    }),
    async (request) => updateEmailPreferences(db, requireUser(request).id, request.body.email),
  );

  // The one-click unsubscribe (RFC 8058): a mail client posts `List-Unsubscribe=One-Click` as a form, others may post
  // nothing or anything: the body is not read, the signed token in the address is all that counts.
  await app.register(async (scope) => {
    const oneClick = scope.withTypeProvider<ZodTypeProvider>();
    oneClick.removeAllContentTypeParsers();
    oneClick.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 4096 }, (_request, _body, done) => done(null, undefined));
    oneClick.post(
      '/notifications/unsubscribe',
      route({
        access: 'signed', tags, consumes: ['*/*'],
        summary: 'Turn one type of notification mail off for the user the signed token names (the link in every notification mail; no login); 400 for a bad token',
        querystring: unsubscribeQuery, response: { 200: unsubscribeResultSchema, 400: apiErrorSchema },
      }),
      async (request) => {
        const done = await unsubscribeByToken(db, ctx.config.appSecret, request.query.token);
        if (!done) throw new AppError(400, 'INVALID_TOKEN', 'This unsubscribe link is not valid');
        return { type: done.type, email: false as const };
      },
    );
  });
}
