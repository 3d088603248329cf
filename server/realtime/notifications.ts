import type { DbOrTrx } from '../db/database.js';
import { newId, nowIso } from '../db/ids.js';
import type { RealtimeEmitter } from './hub.js';
import { insertNotification, unreadNotificationCount } from './notifications.repository.js';

export { unreadNotificationCount };

/**
 * Notifications: a row per event in `notifications` (read_at null = unread) and a `notification/count`
 * push to the user's sockets. Call `addNotification` inside the transaction that made the change, then
 * `pushNotificationCount` after it committed.
 */

export async function addNotification(db: DbOrTrx, userId: string, type: string, payload: Record<string, unknown> = {}): Promise<string> {
  const id = newId();
  await insertNotification(db, { id, userId, type, payload: JSON.stringify(payload), readAt: null, createdAt: nowIso() });
  return id;
}

/** Sends the user's current unread count to all of their sockets. Never throws (a push is best effort). */
export async function pushNotificationCount(db: DbOrTrx, realtime: RealtimeEmitter, userId: string): Promise<void> {
  try {
    realtime.emitToUser(userId, 'notification/count', { count: await unreadNotificationCount(db, userId) });
  } catch {
    // the database is closing or gone: the next connect sends the count again
  }
}
