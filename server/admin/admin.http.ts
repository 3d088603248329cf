import type { FastifyRequest } from 'fastify';
import type { Db, DbOrTrx } from '../db/database.js';
import { conflict, isUniqueViolation } from '../http/errors.js';
import { apiErrorSchema } from '../../common/schemas/http.js';
import { writeAudit } from '../audit/audit.repository.js';
import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

/** Shared plumbing of the admin routes: error schemas and the audited transaction. */

export const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema, 409: apiErrorSchema, 429: apiErrorSchema };
export const uploadErrors = { ...errors, 413: apiErrorSchema };

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

export type { DbOrTrx };
