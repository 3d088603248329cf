import type { Logger } from 'pino';
import type { Db, DbOrTrx } from '../db/database.js';
import { newId, nowIso } from '../db/ids.js';
import { AppError, isUniqueViolation, notFound } from '../http/errors.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Storage } from '../media/storage.js';
import type { RealtimeEmitter } from '../realtime/hub.js';
import type { SettingsService } from '../settings/settings.service.js';
import { mediaSigner } from '../media/signed-urls.js';
import { fileRow, insertFiles } from '../media/pipeline/pipeline.repository.js';
import { addNotification, pushNotificationCount } from '../notifications/notifications.service.js';
import { getPayoutDetails } from '../payouts/payouts.service.js';
import type { DataExport, DataExportList } from '../../common/schemas/privacy.js';
import {
  deleteFileRows, expireExport, exportAccount, exportComments, exportEarnings, exportEntitlements, exportFollows, exportMessages, exportNotificationPreferences,
  exportNotifications, exportOrderItems, exportOrders, exportPaymentItems, exportPayments, exportPayouts, exportPerformerItems, exportPerformerProfile, exportReactions,
  exportReports, exportSessions, exportSubscriptions, exportTipsGiven, exportTipsReceived, failExport, findExport, findOwnExport, findRunningExport, finishExport, insertDataExport,
  listOwnExports, startExport, type DataExportRow,
} from './privacy.repository.js';

/**
 * "Download my data" (docs/product.md, Your data): a request makes a `data_exports` row and its `data.export` job in
 * one transaction; the job gathers the user's rows into one JSON file in private storage (`private/exports/<user>/`),
 * marks the export ready, notifies the user and schedules `data.export.expire`, which deletes the file after
 * `dataExportDays`. The file opens only through a signed URL for its owner (`openProtectedFile`, objectType `export`).
 */

export const JOB_DATA_EXPORT = 'data.export';
export const JOB_DATA_EXPORT_EXPIRE = 'data.export.expire';
/** The notification type of a ready export (its words: common/notification-text.ts). */
export const DATA_EXPORT_NOTIFICATION = 'data_export';
/** The page that lists the exports. */
export const DATA_PAGE = '/account/data';
const FORMAT = 'fanstage-data-export';

export interface ExportDeps {
  db: Db;
  storage: Storage;
  settings: Pick<SettingsService, 'get'>;
  realtime: RealtimeEmitter;
  config: { appSecret: string; mediaUrlTtlSec: number };
  logger: Logger;
}

const exportRunning = () => new AppError(409, 'EXPORT_RUNNING', 'Your data export is already being prepared; it will be listed here when it is ready');

async function exportDays(settings: Pick<SettingsService, 'get'>): Promise<number> {
  const days = Number(await settings.get('dataExportDays'));
  return Number.isFinite(days) && days >= 1 ? Math.floor(days) : 7;
}

/** The owner's view of an export: a fresh signed URL (for the owner alone) while it is ready and not past its expiry. */
export function toDataExport(row: DataExportRow, ownerId: string, config: ExportDeps['config'], now = new Date()): DataExport {
  const downloadable = row.status === 'ready' && row.fileId && row.expiresAt && row.expiresAt > now.toISOString();
  let url: { url: string; expiresAt: string } | null = null;
  if (downloadable) {
    const signer = mediaSigner(config);
    // Never past the export's own expiry.
    const until = Math.min(Math.floor(now.getTime() / 1000) + signer.ttlSec, Math.floor(Date.parse(row.expiresAt!) / 1000));
    url = signer.sign({ objectType: 'export', objectId: row.id, fileId: row.fileId! }, ownerId, { expiresAt: until });
  }
  return {
    _id: row.id,
    status: row.status,
    createdAt: row.createdAt,
    readyAt: row.readyAt,
    expiresAt: row.status === 'ready' ? row.expiresAt : null,
    size: Number(row.size),
    downloadUrl: url?.url ?? null,
    downloadUrlExpiresAt: url?.expiresAt ?? null,
  };
}

export async function listDataExports(deps: Pick<ExportDeps, 'db' | 'settings' | 'config'>, userId: string): Promise<DataExportList> {
  const rows = await listOwnExports(deps.db, userId, 10);
  return { items: rows.map((r) => toDataExport(r, userId, deps.config)), days: await exportDays(deps.settings) };
}

export async function getDataExport(deps: Pick<ExportDeps, 'db' | 'config'>, userId: string, id: string): Promise<DataExport> {
  const row = await findOwnExport(deps.db, userId, id);
  if (!row) throw notFound('Export');
  return toDataExport(row, userId, deps.config);
}

/** Asks for an export: 409 while one is queued or running (one at a time per user). */
export async function requestDataExport(deps: Pick<ExportDeps, 'db' | 'config'> & { jobs: Pick<JobQueue, 'enqueue' | 'wake'> }, userId: string): Promise<DataExport> {
  if (await findRunningExport(deps.db, userId)) throw exportRunning();
  const id = newId();
  try {
    await deps.db.transaction().execute(async (trx) => {
      await insertDataExport(trx, { id, userId, at: nowIso() });
      await deps.jobs.enqueue(trx, JOB_DATA_EXPORT, { exportId: id }, { subject: `data-export:${id}`, maxAttempts: 3 });
    });
  } catch (err) {
    // Two requests raced past the read above: the partial unique index lets one in.
    if (isUniqueViolation(err)) throw exportRunning();
    throw err;
  }
  deps.jobs.wake();
  return getDataExport(deps, userId, id);
}

const byKey = <T extends { messageId: string }>(rows: T[]) => {
  const map = new Map<string, Array<Omit<T, 'messageId'>>>();
  for (const { messageId, ...rest } of rows) map.set(messageId, [...(map.get(messageId) ?? []), rest]);
  return map;
};

async function messagesOf(db: DbOrTrx, userId: string, side: 'sent' | 'received') {
  const { messages, attachments } = await exportMessages(db, userId, side);
  const files = byKey(attachments);
  return messages.map((m) => ({
    id: m.id,
    conversationId: m.conversationId,
    from: m.senderId,
    to: m.recipientId,
    text: m.body,
    price: Number(m.price),
    createdAt: m.createdAt,
    readAt: m.readAt,
    attachments: (files.get(m.id) ?? []).map((a) => ({ fileId: a.fileId, kind: a.kind, name: a.originalName, mime: a.mime, size: a.size === null ? null : Number(a.size) })),
  }));
}

const parsed = (text: string | null) => {
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

/** Everything the site keeps about one user, as one document (read in one pass; ids name the other side of a row). */
export async function collectUserData(db: DbOrTrx, appSecret: string, userId: string, now = new Date()) {
  const account = await exportAccount(db, userId);
  if (!account) return null;
  const [sessions, subscriptions, payments, paymentItems, orders, orderItems, entitlements, tips, comments, reactions, follows, sent, received, notifications, preferences, reports] = await Promise.all([
    exportSessions(db, userId),
    exportSubscriptions(db, userId),
    exportPayments(db, userId),
    exportPaymentItems(db, userId),
    exportOrders(db, userId),
    exportOrderItems(db, userId),
    exportEntitlements(db, userId),
    exportTipsGiven(db, userId),
    exportComments(db, userId),
    exportReactions(db, userId),
    exportFollows(db, userId),
    messagesOf(db, userId, 'sent'),
    messagesOf(db, userId, 'received'),
    exportNotifications(db, userId),
    exportNotificationPreferences(db, userId),
    exportReports(db, userId),
  ]);
  const itemsOf = new Map<string, typeof orderItems>();
  for (const i of orderItems) itemsOf.set(i.orderId, [...(itemsOf.get(i.orderId) ?? []), i]);
  const linesOf = new Map<string, typeof paymentItems>();
  for (const i of paymentItems) linesOf.set(i.paymentId, [...(linesOf.get(i.paymentId) ?? []), i]);
  let performer = null;
  if (account.role === 'performer') {
    const [profile, items, earnings, payouts, payoutDetails, tipsReceived] = await Promise.all([
      exportPerformerProfile(db, userId),
      exportPerformerItems(db, userId),
      exportEarnings(db, userId),
      exportPayouts(db, userId),
      getPayoutDetails(db, appSecret, userId),
      exportTipsReceived(db, userId),
    ]);
    performer = {
      profile,
      items,
      earnings,
      // The masked view the performer was shown when asking, never the stored account details.
      payouts: payouts.map(({ detailsMasked, ...p }) => ({ ...p, account: parsed(detailsMasked) })),
      payoutAccount: payoutDetails.details,
      tipsReceived,
    };
  }
  const { avatarPath, coverPath, ...profile } = account;
  return {
    format: FORMAT,
    version: 1,
    generatedAt: now.toISOString(),
    account: { ...profile, avatar: avatarPath, cover: coverPath },
    sessions,
    subscriptions,
    payments: payments.map((p) => ({ ...p, items: linesOf.get(p.id) ?? [] })),
    orders: orders.map((o) => ({ ...o, items: itemsOf.get(o.id) ?? [] })),
    entitlements,
    tips,
    comments,
    reactions,
    follows,
    messages: { sent, received },
    notifications: notifications.map((n) => ({ ...n, payload: parsed(n.payload) })),
    notificationPreferences: preferences,
    reports,
    performer,
  };
}

/** A storage key of a user's export. */
export const exportKey = (userId: string, exportId: string) => `private/exports/${userId}/${exportId}.json`;

/** The `data.export` job: builds the file, marks the export ready, notifies, schedules the expiry. Idempotent (same key). */
export async function buildDataExport(deps: ExportDeps & { jobs: Pick<JobQueue, 'enqueue' | 'wake'> }, exportId: string): Promise<void> {
  const { db, storage } = deps;
  const started = await db.transaction().execute(async (trx) => {
    const row = await findExport(trx, exportId);
    return row && (await startExport(trx, exportId, nowIso())) ? row.userId : null;
  });
  if (!started) return; // deleted with its account, or already done
  const userId = started;
  const data = await collectUserData(db, deps.config.appSecret, userId);
  if (!data) return;
  const body = Buffer.from(JSON.stringify(data, null, 2));
  const key = exportKey(userId, exportId);
  const { size } = await storage.put(key, body);
  const now = new Date();
  const expiresAt = new Date(now.getTime() + (await exportDays(deps.settings)) * 86_400_000);
  const fileId = newId();
  const done = await db.transaction().execute(async (trx) => {
    await insertFiles(trx, [fileRow({ id: fileId, ownerId: userId, kind: 'file', storageKey: key, mime: 'application/json', size, originalName: `data-export-${now.toISOString().slice(0, 10)}.json`, status: 'ready' }, now.toISOString())]);
    if (!(await finishExport(trx, exportId, { fileId, size, at: now.toISOString(), expiresAt: expiresAt.toISOString() }))) throw new ExportGone();
    await deps.jobs.enqueue(trx, JOB_DATA_EXPORT_EXPIRE, { exportId }, { subject: `data-export:${exportId}`, runAt: expiresAt, maxAttempts: 5 });
    await addNotification(trx, userId, DATA_EXPORT_NOTIFICATION, { url: DATA_PAGE });
    return true;
  }).catch(async (err: unknown) => {
    if (!(err instanceof ExportGone)) throw err;
    // The export went while the file was written (its account was deleted): the file goes too.
    await storage.delete(key).catch(() => {});
    return false;
  });
  if (!done) return;
  deps.jobs.wake();
  await pushNotificationCount(db, deps.realtime, userId);
}

class ExportGone extends Error {}

/** The `data.export.expire` job: the export becomes `expired` and its file is deleted (row, then bytes). */
export async function expireDataExport(deps: Pick<ExportDeps, 'db' | 'storage' | 'logger'>, exportId: string): Promise<void> {
  const keys = await deps.db.transaction().execute(async (trx) => {
    const fileId = await expireExport(trx, exportId, nowIso());
    return fileId ? deleteFileRows(trx, [fileId]) : [];
  });
  for (const key of keys) await deps.storage.delete(key);
}

export function registerDataExportJobs(queue: JobQueue, deps: ExportDeps): void {
  queue.register<{ exportId: string }>(JOB_DATA_EXPORT, {
    run: (payload) => buildDataExport({ ...deps, jobs: queue }, payload.exportId),
    onFailed: async (trx, payload, error) => failExport(trx, payload.exportId, error, nowIso()),
    maxAttempts: 3,
  });
  queue.register<{ exportId: string }>(JOB_DATA_EXPORT_EXPIRE, {
    run: (payload) => expireDataExport(deps, payload.exportId),
    maxAttempts: 5,
  });
}
