import type { ApiApp } from '../http/types.js';
import { AppError, notFound } from '../http/errors.js';
import { listSchema } from '../../common/schemas/http.js';
import { hasApprovedVerification } from '../verification/verification.service.js';
import { findUserById, updateUser } from '../users/users.repository.js';
import { searchUsersForAdmin } from '../users/users.service.js';
import { setPerformerApproved, setPerformerStatus } from '../performers/performers.repository.js';
import { adminUserSchema } from '../../common/schemas/users.js';
import { adminTx, errors } from './admin.http.js';
import {
  accountState, adminContentStatuses as allowedStatus, approvalSchema, approveBody, commentListQuery, commentSchema, contentListQuery, contentParams,
  contentSchema, contentStateSchema, contentStatusBody, idParams, okSchema, performerListQuery, performerSchema, reasonBody, userListQuery,
} from '../../common/schemas/admin.js';
import { listAllComments, listContent, listPerformers } from './admin.repository.js';
import { removeComment, setItemStatus, suspendAccount } from './moderation.js';

/** Moderation: accounts (suspend / reactivate), performers (approve), content visibility, comments. */

export async function adminModerationRoutes(app: ApiApp): Promise<void> {
  const { ctx } = app;
  const { db } = ctx;
  const tags = ['admin'];

  app.get('/admin/users', { schema: { tags, summary: 'Accounts: search by name, username or email; filter by role and status', querystring: userListQuery, response: { 200: listSchema(adminUserSchema), ...errors } } }, async (request) =>
    searchUsersForAdmin(db, request.query),
  );

  app.post(
    '/admin/users/:id/suspend',
    {
      schema: {
        tags,
        summary: 'Suspend an account: its sessions end in the same transaction (a performer is also taken off the site)',
        params: idParams,
        body: reasonBody,
        response: { 200: accountState, ...errors },
      },
    },
    async (request) => {
      const done = await adminTx(db, request, (trx, audit) => suspendAccount(trx, audit, ctx, request.user!.id, request.params.id, request.body?.reason ?? null));
      await done.after();
      return done.result;
    },
  );

  app.post('/admin/users/:id/reactivate', { schema: { tags, summary: 'Reactivate a suspended account (the user logs in again)', params: idParams, body: reasonBody, response: { 200: accountState, ...errors } } }, async (request) => {
    const { id } = request.params;
    return adminTx(db, request, async (trx, audit) => {
      const user = await findUserById(trx, id);
      if (!user) throw notFound('User');
      await updateUser(trx, id, { status: 'active' });
      if (user.role === 'performer') await setPerformerStatus(trx, id, 'active', 'suspended');
      await audit('user.reactivate', 'user', id, { username: user.username, from: user.status, reason: request.body?.reason ?? null });
      return { _id: id, status: 'active' as const, sessionsRevoked: 0 };
    });
  });

  app.get('/admin/performers', { schema: { tags, summary: 'Performers: search, filter by status and approval', querystring: performerListQuery, response: { 200: listSchema(performerSchema), ...errors } } }, async (request) =>
    listPerformers(db, request.query),
  );

  app.post(
    '/admin/performers/:id/approve',
    {
      schema: {
        tags,
        summary: 'Approve a performer with an approved identity verification (409 VERIFICATION_REQUIRED without one), or withdraw the approval with { approved: false }',
        params: idParams,
        body: approveBody,
        response: { 200: approvalSchema, ...errors },
      },
    },
    async (request) => {
      const { id } = request.params;
      const approved = request.body?.approved ?? true;
      await adminTx(db, request, async (trx, audit) => {
        // One gate: approval follows a verified identity (server/verification/); withdrawing is always possible.
        if (approved && (await findUserById(trx, id))?.role === 'performer' && !(await hasApprovedVerification(trx, id))) {
          throw new AppError(409, 'VERIFICATION_REQUIRED', 'This performer has no approved identity verification: review it in Verifications first');
        }
        if (!(await setPerformerApproved(trx, id, approved))) throw notFound('Performer');
        await audit(approved ? 'performer.approve' : 'performer.unapprove', 'performer', id);
      });
      return { _id: id, approved };
    },
  );

  app.get('/admin/content', { schema: { tags, summary: 'Videos, galleries, products or posts of every performer, any status', querystring: contentListQuery, response: { 200: listSchema(contentSchema), ...errors } } }, async (request) =>
    listContent(db, request.query),
  );

  app.put(
    '/admin/content/:type/:id/status',
    {
      schema: {
        tags,
        summary: 'Hide or restore content: videos, galleries and products take active | inactive | hidden; posts published | draft | hidden',
        params: contentParams,
        body: contentStatusBody,
        response: { 200: contentStateSchema, ...errors },
      },
    },
    async (request) => {
      const { type, id } = request.params;
      const { status } = request.body;
      if (!allowedStatus[type].includes(status)) {
        throw new AppError(400, 'VALIDATION_FAILED', `A ${type} cannot be "${status}"`, [{ path: 'body.status', message: `Use one of: ${allowedStatus[type].join(', ')}` }]);
      }
      await adminTx(db, request, (trx, audit) => setItemStatus(trx, audit, type, id, status));
      return { _id: id, type, status };
    },
  );

  app.get('/admin/comments', { schema: { tags, summary: 'Comments on anything, newest first (search the text)', querystring: commentListQuery, response: { 200: listSchema(commentSchema), ...errors } } }, async (request) =>
    listAllComments(db, request.query),
  );

  app.delete('/admin/comments/:id', { schema: { tags, summary: "Delete a comment; its object's comment counter goes down in the same transaction", params: idParams, response: { 200: okSchema, ...errors } } }, async (request) => {
    const done = await adminTx(db, request, (trx, audit) => removeComment(trx, audit, ctx, request.params.id));
    await done.after();
    return done.result;
  });
}
