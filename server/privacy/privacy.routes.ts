import type { FastifyRequest } from 'fastify';
import type { ApiApp } from '../http/types.js';
import { requireUser, SESSION_COOKIE, sessionCookieOptions } from '../http/auth.js';
import { limiter } from '../http/rate-limit.js';
import { route } from '../http/route.js';
import { apiErrorSchema, idParams, noQuery } from '../../common/schemas/http.js';
import { messageSchema } from '../../common/schemas/auth.js';
import { dataExportListSchema, dataExportSchema, deleteAccountBody } from '../../common/schemas/privacy.js';
import { createMoney } from '../payments/money.js';
import { getDataExport, listDataExports, requestDataExport } from './export.service.js';
import { deleteOwnAccount, deletionMessages } from './deletion.service.js';

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 429: apiErrorSchema };

/** Data rights (docs/product.md, Your data; server/privacy/README.md): the account's exports and deleting the account. */
export async function privacyRoutes(app: ApiApp): Promise<void> {
  const { ctx } = app;
  const byUser = (request: FastifyRequest) => request.user?.id;
  // An export reads every row of an account and a deletion checks a password: both are limited per account.
  const exportLimit = limiter(app, 'data-export', ctx.config.dataRightsLimit, byUser, 'Too many data exports asked for, please try again later');
  const deleteLimit = limiter(app, 'account-delete', ctx.config.dataRightsLimit, byUser, 'Too many attempts, please try again later');
  const money = createMoney(ctx);

  app.get(
    '/users/me/data-exports',
    route({
      access: 'session',
      tags: ['privacy'],
      summary: 'The signed-in user\'s data exports, newest first, each ready one with a short-lived download URL signed for them alone',
      response: { 200: dataExportListSchema, ...errors },
    }),
    async (request) => listDataExports(ctx, requireUser(request).id),
  );

  app.post(
    '/users/me/data-exports',
    {
      ...route({
        access: 'session',
        tags: ['privacy'],
        summary: 'Ask for an export of all of one\'s data as one JSON file, made by a job; 409 EXPORT_RUNNING while one is being made',
        querystring: noQuery,
        response: { 202: dataExportSchema, 409: apiErrorSchema, ...errors },
      }),
      onRequest: [exportLimit],
    },
    async (request, reply) => reply.code(202).send(await requestDataExport(ctx, requireUser(request).id)),
  );

  app.get(
    '/users/me/data-exports/:id',
    route({
      access: 'session',
      tags: ['privacy'],
      summary: 'One of the signed-in user\'s exports (404 for anyone else\'s), its status and, when ready, a fresh download URL',
      params: idParams,
      response: { 200: dataExportSchema, 404: apiErrorSchema, ...errors },
    }),
    async (request) => getDataExport(ctx, requireUser(request).id, request.params.id),
  );

  app.post(
    '/users/me/delete',
    {
      ...route({
        access: 'session',
        tags: ['privacy'],
        summary:
          'Delete the signed-in account, confirmed with its password and the word DELETE: personal data erased, money records kept on a tombstone, renewals stopped, every session ended. 400 WRONG_PASSWORD, 409 LAST_ADMIN',
        body: deleteAccountBody,
        response: { 200: messageSchema, 409: apiErrorSchema, 502: apiErrorSchema, ...errors },
      }),
      preHandler: [deleteLimit],
    },
    async (request, reply) => {
      const user = requireUser(request);
      await deleteOwnAccount({ db: ctx.db, storage: ctx.storage, realtime: ctx.realtime, money, logger: ctx.logger }, user.id, request.body);
      reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(ctx.config.publicUrl, request.protocol === 'https'));
      return { message: deletionMessages.deleted };
    },
  );
}
