import type { Logger } from 'pino';
import type { Role } from '../../common/enums.js';
import type { Db } from '../db/database.js';
import { AppError, notFound } from '../http/errors.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Storage } from '../media/storage.js';
import type { ReceivedFile } from '../media/pipeline/upload.js';
import type { SettingsService } from '../settings/settings.service.js';

/**
 * What every studio use case (`server/<domain>/<domain>.studio.ts`) works with: its dependencies, who acts, the
 * files received, and the ownership check. Someone else's item answers 404 (its existence is not revealed); admins
 * may edit and delete anything.
 */

export interface StudioDeps {
  db: Db;
  storage: Storage;
  jobs: JobQueue;
  logger: Logger;
  settings: Pick<SettingsService, 'get'>;
}

export interface Actor {
  id: string;
  role: Role;
}

/** Files received with the request, by field. */
export type Uploads = Record<string, ReceivedFile[] | undefined>;

export function owned<T extends { performerId: string | null }>(row: T | undefined, actor: Actor, what: string): T {
  if (!row || (row.performerId !== actor.id && actor.role !== 'admin')) throw notFound(what);
  return row;
}

export function invalid(path: string, message: string): AppError {
  return new AppError(400, 'VALIDATION_FAILED', `Invalid body.${path}: ${message}`, [{ path: `body.${path}`, message }]);
}
