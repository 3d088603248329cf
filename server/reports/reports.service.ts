import type { Db, DbOrTrx } from '../db/database.js';
import { newId, nowIso } from '../db/ids.js';
import { AppError, isUniqueViolation, notFound } from '../http/errors.js';
import type { SessionUser } from '../auth/auth.service.js';
import type { Audit } from '../admin/admin.http.js';
import { removeComment, removeMessage, setItemStatus, suspendAccount, type AfterCommitDeps, type Moderated } from '../admin/moderation.js';
import { findMessage, messagesAround } from '../messages/messages.repository.js';
import { describeRefs, personOf, reportsOverdueBefore } from '../admin/admin.repository.js';
import { addNotification, pushNotificationCount } from '../notifications/notifications.service.js';
import type { RealtimeEmitter } from '../realtime/hub.js';
import type { ReportAction, ReportOutcome, ReportTargetType } from '../../common/enums.js';
import type { AdminReportGroup, AdminReportList, AdminReportQuery, CreateReportRequest, Report, ReportThreadLine } from '../../common/schemas/reports.js';
import { findOpenReport, insertReport, listReportGroups, reportCounts, reportsOfTargets, resolveOpenReports, targetDetails, type TargetDetailRow } from './reports.repository.js';
import { reportTargets } from './targets.js';

/**
 * Reports (docs/product.md, Reports). A signed-in user reports what they can see (server/reports/targets.ts: anything
 * else is 404), once while their report is open (409 ALREADY_REPORTED; after it is resolved they may report again).
 * An admin resolves all open reports of a target at once, by removing it, suspending the account behind it or
 * dismissing them: the action is the console's own (server/admin/moderation.ts), in one audited transaction with the
 * resolution and one `report` notification per reporter; the counts are pushed after the commit.
 */

const alreadyReported = () => new AppError(409, 'ALREADY_REPORTED', 'You have already reported this; an admin will look at it soon');

export async function createReport(db: Db, user: SessionUser, country: string | null, input: CreateReportRequest): Promise<Report> {
  const resolver = reportTargets[input.targetType];
  const target = await resolver.find(db, user, country, input.targetId);
  if (!target) throw notFound(resolver.noun);
  if (target.ownerId === user.id) throw new AppError(400, 'CANNOT_REPORT_OWN', 'You cannot report your own account, content or comments');
  if (await findOpenReport(db, user.id, input.targetType, input.targetId)) throw alreadyReported();
  const row = {
    id: newId(),
    reporterId: user.id,
    targetType: input.targetType,
    targetId: input.targetId,
    reason: input.reason,
    details: input.details?.trim() || null,
    status: 'open' as const,
    createdAt: nowIso(),
  };
  try {
    await insertReport(db, row);
  } catch (err) {
    // Two reports of one target by one reporter at once: reports_one_open_uq keeps the first.
    if (isUniqueViolation(err)) throw alreadyReported();
    throw err;
  }
  return { _id: row.id, targetType: row.targetType, targetId: row.targetId, reason: row.reason, details: row.details, status: row.status, createdAt: row.createdAt };
}

// ---------------------------------------------------------------------------------------------------------------
// The console.

interface DescribedTarget {
  title: string | null;
  url: string | null;
  ownerId: string | null;
  ownerKind: 'user' | 'performer';
  status: string;
  exists: boolean;
}

const pages: Partial<Record<string, string>> = { video: '/videos/', gallery: '/galleries/', product: '/products/', post: '/posts/', performer: '/performers/' };
const pageOf = (type: string | null | undefined, id: string | null | undefined) => (type && id && pages[type] ? `${pages[type]}${encodeURIComponent(id)}` : null);

function describe(type: ReportTargetType, row: TargetDetailRow | undefined): DescribedTarget {
  if (!row) return { title: null, url: null, ownerId: null, ownerKind: 'user', status: 'deleted', exists: false };
  // A message is judged in its conversation, which admins may read (and its recipient, told the outcome, too).
  const url =
    type === 'message'
      ? `/messages/${encodeURIComponent(row.objectId ?? '')}`
      : type === 'comment'
        ? pageOf(row.objectType, row.objectId)
        : pageOf(type, type === 'performer' ? (row.username ?? row.id) : row.id);
  const ownerKind = type === 'comment' || type === 'message' ? 'user' : 'performer';
  return { title: row.title, url, ownerId: row.ownerId, ownerKind, status: row.status, exists: true };
}

/** Messages shown before and after a reported message in the console. */
const THREAD_BEFORE = 4;
const THREAD_AFTER = 2;

/** A reported message's context in its conversation (null when it is gone), its senders by name. */
async function messageThread(db: DbOrTrx, id: string): Promise<ReportThreadLine[] | null> {
  const message = await findMessage(db, id);
  if (!message) return null;
  const lines = await messagesAround(db, message, THREAD_BEFORE, THREAD_AFTER);
  const refs = await describeRefs(db, lines.map((l) => ({ type: 'user', id: l.senderId })));
  return lines.map((l) => ({ _id: l.id, sender: personOf(refs, 'user', l.senderId), text: l.body, attachments: l.attachments, createdAt: l.createdAt, reported: l.id === id }));
}

async function describeTargets(db: DbOrTrx, targets: Array<{ targetType: ReportTargetType; targetId: string }>): Promise<Map<string, DescribedTarget>> {
  const byType = new Map<ReportTargetType, string[]>();
  for (const t of targets) byType.set(t.targetType, [...(byType.get(t.targetType) ?? []), t.targetId]);
  const out = new Map<string, DescribedTarget>();
  await Promise.all(
    [...byType].map(async ([type, ids]) => {
      const rows = new Map((await targetDetails(db, type, ids)).map((r) => [r.id, r]));
      for (const id of ids) out.set(`${type}:${id}`, describe(type, rows.get(id)));
    }),
  );
  return out;
}

/**
 * What an admin may do with a target's reports: dismiss them always; remove an item or a comment (a target already
 * gone is "removed" without more); suspend the account behind it, when there is one. A performer is not "removed":
 * suspending is how a performer leaves the site.
 */
function actionsFor(type: ReportTargetType, t: DescribedTarget): ReportAction[] {
  const actions: ReportAction[] = [];
  if (type !== 'performer') actions.push('remove');
  if (t.ownerId) actions.push('suspend');
  actions.push('dismiss');
  return actions;
}

/** The queue: one entry per reported target with its reports, reporters and target by name, and the open / overdue counts. */
export async function listReportQueue(db: DbOrTrx, q: AdminReportQuery, now = new Date()): Promise<AdminReportList> {
  const overdueBefore = reportsOverdueBefore(now);
  const [{ rows, total }, counts] = await Promise.all([listReportGroups(db, q), reportCounts(db, overdueBefore)]);
  const [reports, targets, threads] = await Promise.all([
    reportsOfTargets(db, q.status, rows),
    describeTargets(db, rows),
    Promise.all(rows.map(async (g) => [g.targetId, g.targetType === 'message' ? await messageThread(db, g.targetId) : null] as const)).then((e) => new Map(e)),
  ]);
  const refs = await describeRefs(db, [
    ...reports.flatMap((r) => [{ type: 'user', id: r.reporterId }, { type: 'user', id: r.resolvedBy }]),
    ...[...targets.values()].map((t) => ({ type: t.ownerKind, id: t.ownerId })),
  ]);
  const items = rows.map((g): AdminReportGroup => {
    const target = targets.get(`${g.targetType}:${g.targetId}`)!;
    return {
      targetType: g.targetType,
      targetId: g.targetId,
      target: { title: target.title, url: target.exists ? target.url : null, owner: personOf(refs, target.ownerKind, target.ownerId), status: target.status },
      status: q.status,
      count: g.n,
      firstAt: g.firstAt,
      lastAt: g.lastAt,
      overdue: q.status === 'open' && g.firstAt < overdueBefore,
      thread: threads.get(g.targetId) ?? null,
      actions: q.status === 'open' ? actionsFor(g.targetType, target) : [],
      reports: reports
        .filter((r) => r.targetType === g.targetType && r.targetId === g.targetId)
        .map((r) => ({
          _id: r.id,
          reporter: personOf(refs, 'user', r.reporterId),
          reason: r.reason,
          details: r.details,
          createdAt: r.createdAt,
          outcome: r.outcome,
          resolvedAt: r.resolvedAt,
          resolvedBy: personOf(refs, 'user', r.resolvedBy),
        })),
    };
  });
  return { items, total, open: counts.open, overdue: counts.overdue };
}

const outcomeOf: Record<ReportAction, ReportOutcome> = { remove: 'removed', suspend: 'suspended', dismiss: 'dismissed' };

export interface ResolveDeps extends AfterCommitDeps {
  db: Db;
  realtime: AfterCommitDeps['realtime'] & RealtimeEmitter;
}

/**
 * Resolves every open report of one target with `action`, inside the admin's audited transaction: the action itself
 * (the console's moderation, with its own audit entry), the reports resolved, a `report.resolve` audit entry and a
 * notification to each reporter. 404 when the target has no open report (another admin resolved it first: the
 * moderation action is then rolled back with the rest); 400 for an action its target does not take.
 */
export async function resolveTargetReports(
  trx: DbOrTrx,
  audit: Audit,
  deps: ResolveDeps,
  actorId: string,
  type: ReportTargetType,
  id: string,
  action: ReportAction,
  note: string | null,
): Promise<Moderated<{ targetType: ReportTargetType; targetId: string; outcome: ReportOutcome; resolved: number }>> {
  const target = (await describeTargets(trx, [{ targetType: type, targetId: id }])).get(`${type}:${id}`)!;
  if (!actionsFor(type, target).includes(action)) throw new AppError(400, 'ACTION_NOT_ALLOWED', `A reported ${type} cannot be given "${action}"`);
  let after: () => Promise<void> = async () => {};
  if (action === 'remove' && target.exists) {
    if (type === 'comment') after = (await removeComment(trx, audit, deps, id)).after;
    else if (type === 'message') after = (await removeMessage(trx, audit, deps, id)).after;
    else if (type !== 'performer') await setItemStatus(trx, audit, type, id, 'hidden');
  } else if (action === 'suspend' && target.ownerId) {
    after = (await suspendAccount(trx, audit, deps, actorId, target.ownerId, note ?? `Reported ${type}`)).after;
  }
  const outcome = outcomeOf[action];
  const resolved = await resolveOpenReports(trx, type, id, outcome, actorId, nowIso());
  if (!resolved.length) throw notFound('Open report');
  await audit('report.resolve', type, id, { outcome, reports: resolved.length, reportIds: resolved.map((r) => r.id), note });
  const url = target.url ?? '/';
  for (const r of resolved) {
    await addNotification(trx, r.reporterId, 'report', { reportId: r.id, outcome, targetType: type, actorName: null, url });
  }
  const reporters = [...new Set(resolved.map((r) => r.reporterId))];
  return {
    result: { targetType: type, targetId: id, outcome, resolved: resolved.length },
    after: async () => {
      await after();
      for (const reporter of reporters) await pushNotificationCount(deps.db, deps.realtime, reporter);
    },
  };
}
