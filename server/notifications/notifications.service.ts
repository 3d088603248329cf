import type { DbOrTrx } from '../db/database.js';
import { newId, nowIso } from '../db/ids.js';
import { notFound } from '../http/errors.js';
import { encodeCursor, type Cursor } from '../http/pagination.js';
import type { RealtimeEmitter } from '../realtime/hub.js';
import { insertJob } from '../jobs/jobs.repository.js';
import { readAllSettings } from '../settings/settings.repository.js';
import { settingDefs } from '../settings/settings.defaults.js';
import { notificationTypeSchema, type NotificationType } from '../../common/enums.js';
import { notificationText } from '../../common/notification-text.js';
import type { EmailPreferences, NotificationItem } from '../../common/schemas/notifications.js';
import type { ListResult } from '../../common/schemas/http.js';
import {
  claimUnpushed, emailChoicesOf, findOwnNotification, insertNotification, insertNotificationForMail, markAllNotificationsRead, markNotificationRead, markThreadNotificationsRead, notificationPage, notificationTotal,
  displayNameOf, setEmailChoice, unreadNotificationCount, userExists, type MailBatch, type NotificationRow,
} from './notifications.repository.js';
import { readUnsubscribeToken } from './unsubscribe.js';

export { unreadNotificationCount };

/**
 * Notifications (server/notifications/README.md): a row per event in `notifications` (read_at null = unread), the
 * `notification/created` and `notification/count` pushes to the user's sockets, the list, and the email choices.
 * Call `addNotification` inside the transaction that made the change, then `pushNotificationCount` after it committed.
 */

/** The job that mails one notification (notification-mail.ts). */
export const JOB_NOTIFICATION_EMAIL = 'notification.email';
/** Types mailed through the job. `subscriber` is the money mail "new subscriber" (it obeys the choice itself); `order` and `payout` have their money mails, always sent. */
export const MAILED_BY_JOB: ReadonlySet<string> = new Set<NotificationType>(['message', 'tip', 'comment', 'purchase', 'report', 'co_performer']);
/** Types whose mail is a money mail sent whatever the choice: shown in the choices as always on. */
export const ALWAYS_MAILED: ReadonlySet<string> = new Set<NotificationType>(['order', 'payout', 'verification']);

/**
 * How long a batch's mail covers its later rows: no mail while another unread row of the batch was mailed this
 * recently (notification-mail.ts).
 */
const BATCH_MS = 10 * 60_000;

/** The start of the batch window that ends at `at` (ms): a batch mailed since then holds its new rows' mails back. */
export function batchSince(at: number): string {
  return new Date(at - BATCH_MS).toISOString();
}

/** The thread of a conversation's `message` notifications (reading the conversation reads them). */
const conversationThread = (conversationId: string) => `conversation:${conversationId}`;

/**
 * What a row is about: a conversation's messages, or the comments on one item. Reading a conversation reads its
 * thread's rows; the comments' thread is their mails' batch.
 */
function threadOf(type: string, payload: Record<string, unknown>): string | null {
  if (type === 'message' && typeof payload.conversationId === 'string') return conversationThread(payload.conversationId);
  if (type === 'comment' && typeof payload.objectType === 'string' && typeof payload.objectId === 'string') return `comments:${payload.objectType}:${payload.objectId}`;
  return null;
}

/**
 * The rows a row's mail is batched with. A person's messages, from every conversation: one mail says they have a
 * message waiting, and the next comes once they read it (or after `BATCH_MS`), not one per fan who writes. The
 * comments on one item: a performer whose video is being discussed gets one mail, not one per comment.
 */
export function mailBatchOf(row: { type: string; thread: string | null }): MailBatch | null {
  if (row.type === 'message') return { type: 'message' };
  return row.thread ? { thread: row.thread } : null;
}

/**
 * Marks the user's unread `message` notifications of one conversation read, in the caller's transaction (reading the
 * conversation reads them: docs/product.md, Notifications): how many were. Push the count after the commit.
 */
export function readConversationNotifications(db: DbOrTrx, userId: string, conversationId: string): Promise<number> {
  return markThreadNotificationsRead(db, userId, 'message', conversationThread(conversationId), nowIso());
}

/**
 * Writes a notification in the caller's transaction and, when the user wants mail of this type, the job that mails
 * it (the same transaction: the mail exists exactly when the row does). A row of a batch whose mail is out (another
 * unread row of it mailed within `BATCH_MS`) gets no job: the job would only find it batched. A busy performer's
 * messages, or a busy item's comments, then cost no job each (four statements of a job's run, and a mail, on a
 * crowd's every message or comment). The row is written with what deciding its mail reads, in one statement. `opts.email: false` writes the row only (the demo seed).
 */
export async function addNotification(
  db: DbOrTrx,
  userId: string,
  type: string,
  payload: Record<string, unknown> = {},
  opts: { email?: boolean } = {},
): Promise<string> {
  const id = newId();
  const now = nowIso();
  const thread = threadOf(type, payload);
  const row = { id, userId, type, payload: JSON.stringify(payload), createdAt: now, thread };
  if (opts.email === false || !MAILED_BY_JOB.has(type)) {
    await insertNotification(db, row);
    return id;
  }
  // The row, whether its batch's mail is out and the person's choice: one statement.
  const facts = await insertNotificationForMail(db, row, mailBatchOf(row), batchSince(Date.parse(now)));
  if (facts.batched || !choiceWantsEmail(type, facts.choice)) return id;
  await insertJob(db, { type: JOB_NOTIFICATION_EMAIL, payload: { notificationId: id }, subject: `notification:${id}`, runAt: now, maxAttempts: 5, now });
  return id;
}

/** Pushed as `notification/created` only when this recent: an old row found unpushed (demo data) is not news. */
const PUSH_WINDOW_MS = 10 * 60_000;

/**
 * Sends the user's new notifications (`notification/created`, each once, oldest first) and then their unread count
 * (`notification/count`) to all of their sockets. Never throws (a push is best effort).
 */
export async function pushNotificationCount(db: DbOrTrx, realtime: RealtimeEmitter, userId: string): Promise<void> {
  try {
    const { rows: fresh, unread } = await claimUnpushed(db, userId, new Date(Date.now() - PUSH_WINDOW_MS).toISOString(), nowIso(), 20);
    if (fresh.length) {
      // Only an amount is written with the site's currency: a message's or a comment's words need no settings read.
      const symbol = fresh.some((r) => 'amount' in parsePayload(r.payload)) ? await currencySymbol(db) : settingDefs.currencySymbol.default;
      for (const row of fresh) realtime.emitToUser(userId, 'notification/created', { notification: toItem(row, symbol) });
    }
    realtime.emitToUser(userId, 'notification/count', { count: unread ?? (await unreadNotificationCount(db, userId)) });
  } catch {
    // the database is closing or gone: the next connect sends the count again
  }
}

/** The site's currency symbol, for amounts in the texts. */
export async function currencySymbol(db: DbOrTrx): Promise<string> {
  const v = (await readAllSettings(db)).get('currencySymbol');
  return typeof v === 'string' ? v : settingDefs.currencySymbol.default;
}

function parsePayload(raw: string | null | undefined): Record<string, unknown> {
  try {
    const v = JSON.parse(raw || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

export function toItem(row: NotificationRow, symbol: string): NotificationItem {
  const { text, url, actorName } = notificationText(row.type, parsePayload(row.payload), symbol);
  return { _id: row.id, type: row.type, text, url, actorName, read: row.readAt !== null, readAt: row.readAt, createdAt: row.createdAt };
}

/** The user's notifications, newest first, keyset paged. */
export async function listNotifications(db: DbOrTrx, userId: string, q: { limit: number; cursor?: Cursor }): Promise<ListResult<NotificationItem>> {
  const [rows, total, symbol] = await Promise.all([notificationPage(db, userId, q.limit, q.cursor), notificationTotal(db, userId), currencySymbol(db)]);
  const last = rows[rows.length - 1];
  return { items: rows.map((r) => toItem(r, symbol)), total, nextCursor: last && rows.length === q.limit ? encodeCursor({ v: last.createdAt, id: last.id }) : null };
}

/** Marks one of the user's notifications read; 404 for an unknown id or someone else's. */
export async function readNotification(db: DbOrTrx, userId: string, id: string): Promise<NotificationItem> {
  if (!(await findOwnNotification(db, userId, id))) throw notFound('Notification');
  await markNotificationRead(db, userId, id, nowIso());
  return toItem((await findOwnNotification(db, userId, id))!, await currencySymbol(db));
}

/** Marks read every notification of the user created up to `before` (what the reader has seen). */
export async function readAllNotifications(db: DbOrTrx, userId: string, before: string): Promise<{ marked: number; count: number }> {
  const marked = await markAllNotificationsRead(db, userId, new Date(before).toISOString(), nowIso());
  return { marked, count: await unreadNotificationCount(db, userId) };
}

// -----------------------------------------------------------------------------------------------------------------
// Email choices

/** Whether the user wants mail of this type: their choice, on by default; always for the money mails. */
export async function wantsEmail(db: DbOrTrx, userId: string, type: string): Promise<boolean> {
  // The always-mailed types need no read.
  return ALWAYS_MAILED.has(type) || choiceWantsEmail(type, (await emailChoicesOf(db, userId)).get(type));
}

/** THE email choice rule, from a choice already read (undefined: never set): the always-mailed types, else the choice, on by default. */
export function choiceWantsEmail(type: string, choice: boolean | undefined): boolean {
  return ALWAYS_MAILED.has(type) || (choice ?? true);
}

export async function emailPreferencesOf(db: DbOrTrx, userId: string): Promise<EmailPreferences> {
  const choices = await emailChoicesOf(db, userId);
  return {
    preferences: notificationTypeSchema.options.map((type) => ({
      type, locked: ALWAYS_MAILED.has(type), email: choiceWantsEmail(type, choices.get(type)),
    })),
  };
}

/** Changes the named types' choices (the always-mailed ones stay on: a choice for them is ignored). */
export async function updateEmailPreferences(db: DbOrTrx, userId: string, email: Partial<Record<NotificationType, boolean>>): Promise<EmailPreferences> {
  const at = nowIso();
  for (const [type, on] of Object.entries(email)) {
    if (on === undefined || ALWAYS_MAILED.has(type)) continue;
    await setEmailChoice(db, userId, type, on, at);
  }
  return emailPreferencesOf(db, userId);
}

/** Turns off the type a valid token names (idempotent); null for a bad token or a user who is gone. */
export async function unsubscribeByToken(db: DbOrTrx, appSecret: string, token: string): Promise<{ userId: string; type: NotificationType } | null> {
  const target = readUnsubscribeToken(appSecret, token);
  if (!target || !(await userExists(db, target.userId))) return null;
  await setEmailChoice(db, target.userId, target.type, false, nowIso());
  return target;
}

/** Whether the user behind a token still wants this type of mail, for the confirm page. */
export async function unsubscribeState(db: DbOrTrx, appSecret: string, token: string): Promise<{ type: NotificationType; email: boolean } | null> {
  const target = readUnsubscribeToken(appSecret, token);
  if (!target || !(await userExists(db, target.userId))) return null;
  return { type: target.type, email: await wantsEmail(db, target.userId, target.type) };
}

/** The name shown for who caused a notification (a performer's stage name, else the account's name). */
export async function buyerName(db: DbOrTrx, userId: string): Promise<string | null> {
  return displayNameOf(db, userId);
}
