import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Db, DbOrTrx } from '../db/database.js';
import { AppError, badRequest, conflict, isUniqueViolation } from '../http/errors.js';
import { apiErrorSchema } from '../http/schemas.js';
import { writeAudit } from '../audit/audit.repository.js';
import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

/** Shared plumbing of the admin routes: error schemas, the audited transaction, single-file uploads. */

export const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema, 409: apiErrorSchema, 429: apiErrorSchema };
export const uploadErrors = { ...errors, 413: apiErrorSchema };
export const okSchema = z.object({ ok: z.literal(true) });

export type Audit = (action: string, targetType: string | null, targetId: string | null, details?: Record<string, unknown>) => Promise<void>;

/**
 * Runs an admin change in one transaction with its audit entry: `fn` does the change with `trx` and calls
 * `audit(...)`; both commit together or neither does. A duplicate key becomes 409.
 */
export async function adminTx<T>(db: Db, request: FastifyRequest, fn: (trx: Transaction<Database>, audit: Audit) => Promise<T>): Promise<T> {
  const actorId = request.user?.id ?? null;
  try {
    return await db.transaction().execute(async (trx) => {
      let audited = false;
      const audit: Audit = async (action, targetType, targetId, details) => {
        audited = true;
        await writeAudit(trx, { actorId, action, targetType, targetId, details, ip: request.ip });
      };
      const result = await fn(trx, audit);
      if (!audited) throw new Error('admin change without an audit entry');
      return result;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('This value is already used', { field: uniqueField(err) });
    throw err;
  }
}

function uniqueField(err: unknown): string | undefined {
  const text = `${(err as { message?: string }).message ?? ''} ${(err as { constraint?: string }).constraint ?? ''}`;
  if (/code/.test(text)) return 'code';
  if (/slug/.test(text)) return 'slug';
  return undefined;
}

export const UPLOAD_MAX_BYTES = 5 * 1024 * 1024;
export const uploadLimits = { files: 1, fileSize: UPLOAD_MAX_BYTES, fields: 10, fieldSize: 1024, parts: 12, headerPairs: 100 };

/** The single file of a multipart request, with 400/413 answers instead of the multipart plugin's terse errors. */
export async function readSingleFile(request: FastifyRequest): Promise<Buffer> {
  if (!request.isMultipart()) throw badRequest('Send the image as multipart/form-data with one file field');
  let file: Buffer | undefined;
  try {
    for await (const part of request.parts({ limits: uploadLimits })) {
      if (part.type !== 'file') continue;
      file = await part.toBuffer();
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new AppError(413, 'PAYLOAD_TOO_LARGE', `The image is too large: the limit is ${UPLOAD_MAX_BYTES / 1024 / 1024} MB.`);
    if (code === 'FST_FILES_LIMIT') throw badRequest('Send one image only');
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') throw badRequest('Too many form fields: send one image only');
    if (err instanceof Error && /multipart|boundary|part terminated/i.test(err.message)) throw badRequest('Malformed multipart/form-data body');
    throw err;
  }
  if (!file?.length) throw badRequest('No image received: send one file in the multipart/form-data body');
  return file;
}

export type { DbOrTrx };
