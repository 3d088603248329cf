import multipart from '@fastify/multipart';
import type { ApiApp } from '../http/types.js';
import { requireRole } from '../http/auth.js';
import { parseInput } from '../http/parse-input.js';
import { route } from '../http/route.js';
import { formatBytes, receiveMultipart, type FileFieldSpec } from '../media/pipeline/upload.js';
import { apiErrorSchema } from '../../common/schemas/http.js';
import { myVerificationSchema, verificationFields } from '../../common/schemas/verification.js';
import { VERIFICATION_IMAGE_MAX_BYTES, VERIFICATION_IMAGES, VERIFICATION_LEGAL_NAME_MAX } from '../../common/verification.js';
import { assertMaySubmit, myVerification, submitVerification } from './verification.service.js';

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 409: apiErrorSchema };
const tags = ['studio'];
const performerOnly = { roles: ['performer'] } as const;

/** The studio's side of identity and age verification (server/verification/README.md). */
export async function verificationRoutes(app: ApiApp): Promise<void> {
  const { ctx } = app;
  // Scoped to this plugin; per-request limits are set by receiveMultipart().
  await app.register(multipart, { throwFileSizeLimit: true });
  // JPEG, PNG or WebP only, sniffed from the bytes; stored under private/ (never served by /media/public).
  const specs: Record<string, FileFieldSpec> = Object.fromEntries(
    VERIFICATION_IMAGES.map((i) => [i.field, { accept: 'identity', maxBytes: VERIFICATION_IMAGE_MAX_BYTES, label: i.label.toLowerCase(), prefix: 'private/verification' } satisfies FileFieldSpec]),
  );

  app.get(
    '/performer/verification',
    route({
      access: performerOnly,
      tags,
      summary: 'Your identity verification: none, pending review, rejected (with the reason) or approved; the details you sent, never the pictures',
      response: { 200: myVerificationSchema, ...errors },
    }),
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return myVerification(ctx.db, requireRole(request, 'performer').id);
    },
  );

  app.post(
    '/performer/verification',
    route({
      access: performerOnly,
      tags,
      summary: 'Send your identity verification for an admin to review',
      description:
        `multipart/form-data: "legalName" (at most ${VERIFICATION_LEGAL_NAME_MAX} characters), "dateOfBirth" (YYYY-MM-DD; 18 or older today, else 400 UNDER_AGE), ` +
        '"country" (ISO 3166-1 alpha-2 code of the country that issued the document) and three pictures: "documentFront", "documentBack", "selfie" ' +
        `(you holding the document), each a JPEG, PNG or WebP of at most ${formatBytes(VERIFICATION_IMAGE_MAX_BYTES)}, stored privately and without their camera metadata. ` +
        '409 VERIFICATION_PENDING while one waits for review, ALREADY_VERIFIED once approved. After a rejection, send it again.',
      consumes: ['multipart/form-data'],
      response: { 201: myVerificationSchema, ...errors, 413: apiErrorSchema },
    }),
    async (request, reply) => {
      const me = requireRole(request, 'performer');
      // The cheap refusal first, before any picture is read.
      await assertMaySubmit(ctx.db, me.id);
      const form = await receiveMultipart(request, ctx.storage, specs, { maxFields: 10, maxFieldBytes: 4096, maxImagePixels: 50_000_000 });
      try {
        const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
        const fields = parseInput(verificationFields, { legalName: one(form.fields.legalName), dateOfBirth: one(form.fields.dateOfBirth), country: one(form.fields.country) });
        const pick = (name: string) => form.files[name]?.[0];
        const answer = await submitVerification(ctx, { id: me.id, username: me.username }, fields, {
          documentFront: pick('documentFront'),
          documentBack: pick('documentBack'),
          selfie: pick('selfie'),
        });
        reply.status(201).header('cache-control', 'no-store');
        return answer;
      } catch (err) {
        await form.discard();
        throw err;
      }
    },
  );
}
