import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { ApiApp } from '../http/types.js';
import { requireRole } from '../http/auth.js';
import { route } from '../http/route.js';
import { parseInput } from '../http/parse-input.js';
import { apiErrorSchema, idParams } from '../../common/schemas/http.js';
import { formatBytes, receiveMultipart, type FileFieldSpec } from '../media/pipeline/upload.js';
import { coPerformerItemParams, coPerformerListSchema, coPerformerRequestListSchema, nameCoPerformerBody, outsidePersonFields } from '../../common/schemas/consent.js';
import { addOutsidePerson, answerCoPerformerRequest, CONSENT_PREFIX, coPerformerRequests, itemCoPerformers, nameSitePerformer, removeCoPerformer } from './consent.service.js';

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema, 409: apiErrorSchema };
const tags = ['studio'];
const MiB = 1024 * 1024;
/** A release form or identity document: a scan or a phone photo, never the size of a video. */
const CONSENT_FILE_MAX = 20 * MiB;

/**
 * The studio's co-performers (server/consent/README.md): the people the performer names in their own video, gallery
 * or post ("People in this"), and the requests in which other performers named them ("Co-performer requests").
 * Performers only: somebody else's item answers 404, like the studio's other routes.
 */
export async function consentRoutes(app: ApiApp): Promise<void> {
  const { ctx } = app;
  const { db, storage, config } = ctx;
  // Scoped to this plugin; per-request limits are set by receiveMultipart().
  await app.register(multipart, { throwFileSizeLimit: true });
  const maxBytes = Math.min(CONSENT_FILE_MAX, config.pipeline.uploads.image);
  // Private storage only: these files are never public, and only an admin's signed link opens them.
  const consentFiles: Record<string, FileFieldSpec> = {
    releaseForm: { accept: 'release', maxBytes: CONSENT_FILE_MAX, label: 'release form', prefix: CONSENT_PREFIX },
    idDocument: { accept: 'image', maxBytes, label: 'identity document', prefix: CONSENT_PREFIX },
  };
  const actorOf = (request: FastifyRequest) => {
    const user = requireRole(request, 'performer');
    return { id: user.id, role: user.role };
  };

  app.get(
    '/performer/co-performers/:objectType/:objectId',
    route({
      access: { roles: ['performer'] },
      tags,
      summary: 'The people named in one of your videos, galleries or posts, each with their state, and whether the item may be published',
      params: coPerformerItemParams,
      response: { 200: coPerformerListSchema, ...errors },
    }),
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return itemCoPerformers(db, actorOf(request), request.params.objectType, request.params.objectId);
    },
  );

  app.post(
    '/performer/co-performers/:objectType/:objectId',
    route({
      access: { roles: ['performer'] },
      tags,
      summary:
        'Name an approved performer of this site (by username) in one of your items: they confirm or decline in their studio. Until they confirm the item stays unpublished; a published item goes back to draft. 409 CO_PERFORMER_ALREADY_NAMED',
      params: coPerformerItemParams,
      body: nameCoPerformerBody,
      response: { 201: coPerformerListSchema, ...errors },
    }),
    async (request, reply) => {
      const list = await nameSitePerformer(ctx, actorOf(request), request.params.objectType, request.params.objectId, request.body.username);
      reply.status(201);
      return list;
    },
  );

  app.post(
    '/performer/co-performers/:objectType/:objectId/outside',
    route({
      access: { roles: ['performer'] },
      tags,
      summary: 'Name an outside person in one of your items, with their signed release form and identity document (confirmed at once)',
      description:
        `multipart/form-data: "legalName" (their full legal name), "releaseForm" (the signed release: a PDF or a picture, ${formatBytes(CONSENT_FILE_MAX)} at most), ` +
        `"idDocument" (a picture of their identity document, ${formatBytes(maxBytes)} at most). Types are sniffed from the bytes: anything else is 400 ` +
        'UNSUPPORTED_MEDIA and nothing is kept. The files are kept in private storage and only admins can open them, through links that live five minutes.',
      consumes: ['multipart/form-data'],
      params: coPerformerItemParams,
      response: { 201: coPerformerListSchema, ...errors, 413: apiErrorSchema },
    }),
    async (request, reply) => {
      const actor = actorOf(request);
      const form = await receiveMultipart(request, storage, consentFiles, { maxFields: 5, maxFieldBytes: 2000 });
      try {
        const { legalName } = parseInput(outsidePersonFields, { legalName: form.fields.legalName });
        const list = await addOutsidePerson(ctx, actor, request.params.objectType, request.params.objectId, legalName, {
          release: form.files.releaseForm?.[0],
          identity: form.files.idDocument?.[0],
        });
        reply.status(201);
        return list;
      } catch (err) {
        await form.discard();
        throw err;
      }
    },
  );

  app.delete(
    '/performer/co-performers/:id',
    route({
      access: { roles: ['performer'] },
      tags,
      summary: 'Remove a person from one of your items (their files with them); how a declined request stops holding the item back',
      params: idParams,
      response: { 200: coPerformerListSchema, ...errors },
    }),
    async (request) => removeCoPerformer(ctx, actorOf(request), request.params.id),
  );

  app.get(
    '/performer/co-performer-requests',
    route({
      access: { roles: ['performer'] },
      tags,
      summary: 'The items other performers named you in, newest first, with your answer',
      response: { 200: coPerformerRequestListSchema, ...errors },
    }),
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return coPerformerRequests(db, actorOf(request).id);
    },
  );

  for (const [action, answer] of [['confirm', 'confirmed'], ['decline', 'declined']] as const) {
    app.post(
      `/performer/co-performer-requests/:id/${action}`,
      route({
        access: { roles: ['performer'] },
        tags,
        summary:
          action === 'confirm'
            ? 'Confirm that you appear in the item and consent to it (its performer may then publish it); 409 once answered'
            : 'Decline: the item stays unpublished until its performer removes your name; 409 once answered',
        params: idParams,
        response: { 200: coPerformerRequestListSchema, ...errors },
      }),
      async (request) => answerCoPerformerRequest(ctx, actorOf(request), request.params.id, answer),
    );
  }
}
