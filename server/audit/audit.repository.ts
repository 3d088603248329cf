import type { DbOrTrx } from '../db/database.js';
import { offsetPage } from '../catalogue/catalogue.repository.js';
import { newId, nowIso } from '../db/ids.js';

/**
 * The audit log: one row per admin action (who, what, on which target, when, details). Written with the same
 * `trx` as the change it describes, so a rolled-back change leaves no entry and a committed one always has one.
 */

export interface AuditEntry {
  actorId: string | null;
  action: string;
  targetType?: string | null;
  targetId?: string | null;
  details?: Record<string, unknown>;
  ip?: string | null;
}

export async function writeAudit(db: DbOrTrx, e: AuditEntry): Promise<string> {
  const id = newId();
  await db
    .insertInto('auditLog')
    .values({
      id,
      actorId: e.actorId,
      action: e.action,
      targetType: e.targetType ?? null,
      targetId: e.targetId ?? null,
      details: JSON.stringify(e.details ?? {}),
      ip: e.ip ?? null,
      createdAt: nowIso(),
    })
    .execute();
  return id;
}

export interface AuditFilters {
  actorId?: string;
  action?: string;
  targetType?: string;
  targetId?: string;
  limit: number;
  offset: number;
}

export async function listAudit(db: DbOrTrx, f: AuditFilters) {
  let base = db.selectFrom('auditLog').leftJoin('users', 'users.id', 'auditLog.actorId');
  if (f.actorId) base = base.where('auditLog.actorId', '=', f.actorId);
  if (f.action) base = base.where('auditLog.action', 'like', `${f.action.replace(/[\\%_]/g, '')}%`);
  if (f.targetType) base = base.where('auditLog.targetType', '=', f.targetType);
  if (f.targetId) base = base.where('auditLog.targetId', '=', f.targetId);
  const { rows, total } = await offsetPage(base, f, (qb) =>
    qb
      .select(['auditLog.id', 'auditLog.actorId', 'users.username as actorUsername', 'auditLog.action', 'auditLog.targetType', 'auditLog.targetId', 'auditLog.details', 'auditLog.ip', 'auditLog.createdAt'])
      .orderBy('auditLog.createdAt', 'desc')
      .orderBy('auditLog.id', 'desc')
  );
  return {
    items: rows.map((r) => ({
      _id: r.id,
      actorId: r.actorId,
      actorUsername: r.actorUsername ?? null,
      action: r.action,
      targetType: r.targetType,
      targetId: r.targetId,
      details: safeParse(r.details),
      ip: r.ip,
      createdAt: r.createdAt,
    })),
    total,
  };
}

function safeParse(s: string): Record<string, unknown> {
  try {
    const v = JSON.parse(s) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
