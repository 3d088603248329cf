import { sql } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { ReportsTable } from '../db/schema.js';
import type { Insertable } from 'kysely';
import type { ReportOutcome, ReportStatus, ReportTargetType } from '../../common/enums.js';

/** SQL of reports (migration 0024): the reporter's insert, the console's queue, resolving a target's open reports. */

export async function insertReport(db: DbOrTrx, row: Insertable<ReportsTable>): Promise<void> {
  await db.insertInto('reports').values(row).execute();
}

/** The reporter's open report of this target, if any (reports_one_open_uq allows one). */
export function findOpenReport(db: DbOrTrx, reporterId: string, targetType: ReportTargetType, targetId: string) {
  return db
    .selectFrom('reports')
    .select(['id'])
    .where('reporterId', '=', reporterId)
    .where('targetType', '=', targetType)
    .where('targetId', '=', targetId)
    .where('status', '=', 'open')
    .executeTakeFirst();
}

export function countOpenReportsOf(db: DbOrTrx, targetType: ReportTargetType, targetId: string) {
  return db
    .selectFrom('reports')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('targetType', '=', targetType)
    .where('targetId', '=', targetId)
    .where('status', '=', 'open')
    .executeTakeFirst()
    .then((r) => Number(r?.n ?? 0));
}

/**
 * Resolves every open report of one target with `outcome`: the rows this statement changed, each with its reporter.
 * A concurrent resolution of the same target changes none of them twice (the second finds them resolved).
 */
export function resolveOpenReports(db: DbOrTrx, targetType: ReportTargetType, targetId: string, outcome: ReportOutcome, resolvedBy: string | null, at: string) {
  return db
    .updateTable('reports')
    .set({ status: 'resolved', outcome, resolvedAt: at, resolvedBy })
    .where('targetType', '=', targetType)
    .where('targetId', '=', targetId)
    .where('status', '=', 'open')
    .returning(['id', 'reporterId'])
    .execute();
}

/** Open reports, and those created before `overdueBefore` (the dashboard and the queue's heading). */
export async function reportCounts(db: DbOrTrx, overdueBefore: string): Promise<{ open: number; overdue: number }> {
  const row = await db
    .selectFrom('reports')
    .select([
      (eb) => eb.fn.countAll<number | string>().as('open'),
      sql<number | string>`sum(case when ${sql.ref('createdAt')} < ${overdueBefore} then 1 else 0 end)`.as('overdue'),
    ])
    .where('status', '=', 'open')
    .executeTakeFirst();
  return { open: Number(row?.open ?? 0), overdue: Number(row?.overdue ?? 0) };
}

export interface ReportGroupRow {
  targetType: ReportTargetType;
  targetId: string;
  n: number;
  firstAt: string;
  lastAt: string;
}

/**
 * A page of reported targets with `status`, each once with its number of reports and the first and last report's
 * times: open ones oldest first (the most overdue on top), resolved ones most recently resolved first.
 */
export async function listReportGroups(db: DbOrTrx, f: { status: ReportStatus; targetType?: ReportTargetType; limit: number; offset: number }) {
  let base = db.selectFrom('reports').where('status', '=', f.status);
  if (f.targetType) base = base.where('targetType', '=', f.targetType);
  const grouped = base
    .select([
      'targetType',
      'targetId',
      (eb) => eb.fn.countAll<number | string>().as('n'),
      (eb) => eb.fn.min('createdAt').as('firstAt'),
      (eb) => eb.fn.max('createdAt').as('lastAt'),
      (eb) => eb.fn.max(eb.fn.coalesce('resolvedAt', 'createdAt')).as('resolvedLast'),
    ])
    .groupBy(['targetType', 'targetId']);
  const ordered =
    f.status === 'open'
      ? grouped.orderBy((eb) => eb.fn.min('createdAt'), 'asc')
      : grouped.orderBy((eb) => eb.fn.max(eb.fn.coalesce('resolvedAt', 'createdAt')), 'desc');
  const [rows, total] = await Promise.all([
    ordered.orderBy('targetType').orderBy('targetId').limit(f.limit).offset(f.offset).execute(),
    db
      .selectFrom(base.select(['targetType', 'targetId']).groupBy(['targetType', 'targetId']).as('g'))
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirst(),
  ]);
  return {
    rows: rows.map((r): ReportGroupRow => ({ targetType: r.targetType, targetId: r.targetId, n: Number(r.n), firstAt: String(r.firstAt), lastAt: String(r.lastAt) })),
    total: Number(total?.n ?? 0),
  };
}

/** The reports of these targets with `status`, oldest first. */
export function reportsOfTargets(db: DbOrTrx, status: ReportStatus, targets: Array<{ targetType: ReportTargetType; targetId: string }>) {
  if (!targets.length) return Promise.resolve([]);
  return db
    .selectFrom('reports')
    .selectAll()
    .where('status', '=', status)
    .where((eb) => eb.or(targets.map((t) => eb.and([eb('targetType', '=', t.targetType), eb('targetId', '=', t.targetId)]))))
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
}

// ---------------------------------------------------------------------------------------------------------------
// Targets as the console sees them: whatever their status, with the account behind them.

export interface TargetDetailRow {
  id: string;
  title: string | null;
  status: string;
  /** The account a suspension would end: an item's performer, the performer themself, a comment's or a message's author. */
  ownerId: string | null;
  /** A performer's username (their page's address). */
  username?: string | null;
  /** A comment's object; a message's conversation (`objectType` 'conversation'). */
  objectType?: string | null;
  objectId?: string | null;
}

/** One query per kind: the targets of these ids that still exist. */
export function targetDetails(db: DbOrTrx, type: ReportTargetType, ids: string[]): Promise<TargetDetailRow[]> {
  if (!ids.length) return Promise.resolve([]);
  switch (type) {
    case 'performer':
      return db.selectFrom('performers').select(['id', 'displayName as title', 'status', 'id as ownerId', 'username']).where('id', 'in', ids).execute();
    case 'video':
      return db.selectFrom('videos').select(['id', 'title', 'status', 'performerId as ownerId']).where('id', 'in', ids).execute();
    case 'gallery':
      return db.selectFrom('galleries').select(['id', 'title', 'status', 'performerId as ownerId']).where('id', 'in', ids).execute();
    case 'product':
      return db.selectFrom('products').select(['id', 'name as title', 'status', 'performerId as ownerId']).where('id', 'in', ids).execute();
    case 'post':
      return db.selectFrom('posts').select(['id', 'title', 'status', 'performerId as ownerId']).where('id', 'in', ids).execute();
    case 'comment':
      return db
        .selectFrom('comments')
        .select(['id', sql<string>`substr(content, 1, 120)`.as('title'), 'status', 'userId as ownerId', 'objectType', 'objectId'])
        .where('id', 'in', ids)
        .execute();
    case 'message':
      // A message has no status of its own: it is there (active) until removed.
      return db
        .selectFrom('messages')
        .select(['id', sql<string>`substr(body, 1, 120)`.as('title'), sql<string>`'active'`.as('status'), 'senderId as ownerId', sql<string>`'conversation'`.as('objectType'), 'conversationId as objectId'])
        .where('id', 'in', ids)
        .execute();
  }
}
