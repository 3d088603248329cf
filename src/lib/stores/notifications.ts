import { atom, map, type MapStore } from 'nanostores';
import type { ListResult } from '../../../common/schemas/http.js';
import type { EmailPreference, NotificationItem } from '../../../common/schemas/notifications.js';
import type { NotificationType } from '../../../common/enums.js';
import { errorMessage } from '../api/error.js';
import { call } from './client.js';
import { onRealtime } from './realtime-events.js';
import { LOAD_ERROR } from './listing.js';
import { pushToast } from './toast.js';
import { registerReset } from './reset.js';

/**
 * Notifications in the browser (docs/product.md, Notifications): the list page's items and cursor, new ones prepended
 * as `notification/created` arrives, marking one or all read; the unread count of the header's bell; the email
 * choices of the account page; the unsubscribe page's one request.
 */

export interface NotificationListState {
  items: NotificationItem[];
  nextCursor: string | null;
  requesting: boolean;
  error: string | null;
}

export interface NotificationList {
  store: MapStore<NotificationListState>;
  loadMore(): Promise<void>;
  /** Marks one read (the server's answer replaces it); resolves whether or not that worked, so a click can go on. */
  markRead(id: string): Promise<void>;
  markAllRead(): Promise<void>;
  /** Prepends `notification/created` until the returned function is called. */
  listen(): () => void;
}

export function createNotificationList(initial: ListResult<NotificationItem>, pageSize: number): NotificationList {
  const store = map<NotificationListState>({ items: initial.items, nextCursor: initial.nextCursor ?? null, requesting: false, error: null });
  const replace = (item: NotificationItem) => store.setKey('items', store.get().items.map((i) => (i._id === item._id ? item : i)));

  async function loadMore(): Promise<void> {
    const s = store.get();
    if (s.requesting || !s.nextCursor) return;
    store.set({ ...s, requesting: true, error: null });
    try {
      const page = await call(({ engagement }) => engagement.notifications({ limit: pageSize, cursor: s.nextCursor }));
      const seen = new Set(store.get().items.map((i) => i._id));
      store.set({ ...store.get(), items: [...store.get().items, ...page.items.filter((i) => !seen.has(i._id))], nextCursor: page.nextCursor ?? null, requesting: false });
    } catch (err) {
      store.set({ ...store.get(), requesting: false, error: errorMessage(err, LOAD_ERROR) });
    }
  }

  async function markRead(id: string): Promise<void> {
    const item = store.get().items.find((i) => i._id === id);
    if (!item || item.read) return;
    try {
      replace(await call(({ engagement }) => engagement.readNotification(id)));
    } catch {
      // the link is followed anyway; it stays unread until the next try
    }
  }

  async function markAllRead(): Promise<void> {
    // Up to the newest shown: one that arrives meanwhile stays unread.
    const before = store.get().items[0]?.createdAt ?? new Date().toISOString();
    try {
      const { count } = await call(({ engagement }) => engagement.readAllNotifications({ before }));
      const at = new Date().toISOString();
      store.setKey('items', store.get().items.map((i) => (i.read || i.createdAt > before ? i : { ...i, read: true, readAt: at })));
      unreadCount.set(count);
    } catch (err) {
      pushToast('error', errorMessage(err, 'Could not mark them read, please try again'));
    }
  }

  function listen(): () => void {
    return onRealtime('notification/created', ({ notification }) => {
      if (store.get().items.some((i) => i._id === notification._id)) return;
      store.setKey('items', [notification, ...store.get().items]);
    });
  }

  return { store, loadMore, markRead, markAllRead, listen };
}

/** The unread count the bell shows: the page's, then every newer one (followBellCount, setBellCount). */
export const unreadCount = atom(0);

/**
 * Whether this page has had a count newer than the one it was rendered with. The bell hydrates when the browser is
 * idle, often after the open thread was marked read (which reads its message notifications): its rendered count is
 * then older than the store's and must not put the old number back.
 */
let liveBell = false;

/** A count newer than the page's: a live event, or an answer that carries it (marking a conversation read). */
export function setBellCount(count: number): void {
  liveBell = true;
  unreadCount.set(count);
}

registerReset('notification-bell', () => {
  liveBell = false;
  unreadCount.set(0);
});

/**
 * The server's counts are followed from when this module loads (with the first island that shows or changes them:
 * the list, the inbox, the bell), not from when the bell hydrates: it hydrates when the browser is idle, and a count
 * pushed before then was lost, leaving the badge at the page's older figure.
 */
onRealtime('notification/count', ({ count }) => setBellCount(count));

/** Starts the bell's count at the page's figure, unless a newer one came first. */
export function followBellCount(initial: number): void {
  if (!liveBell) unreadCount.set(initial);
}

// -----------------------------------------------------------------------------------------------------------------
// Email choices and the unsubscribe link

export const emailPreferences = map<{ items: EmailPreference[]; saving: NotificationType | null; message: string | null; error: string | null }>({
  items: [], saving: null, message: null, error: null,
});

export function seedEmailPreferences(items: EmailPreference[]): void {
  emailPreferences.set({ items, saving: null, message: null, error: null });
}

export async function setEmailPreference(type: NotificationType, email: boolean): Promise<void> {
  const s = emailPreferences.get();
  if (s.saving) return;
  // Shown flipped at once; the server's answer (or the old state, on an error) replaces it.
  emailPreferences.set({ items: s.items.map((p) => (p.type === type ? { ...p, email } : p)), saving: type, message: null, error: null });
  try {
    const { preferences } = await call(({ engagement }) => engagement.updateEmailPreferences({ email: { [type]: email } }));
    emailPreferences.set({ items: preferences, saving: null, message: 'Saved', error: null });
  } catch (err) {
    emailPreferences.set({ items: s.items, saving: null, message: null, error: errorMessage(err, 'Could not save, please try again') });
  }
}

/** The unsubscribe page's request: 'done', or the error's words. */
export async function unsubscribeWithToken(token: string): Promise<{ ok: true } | { ok: false; message: string }> {
  try {
    await call(({ engagement }) => engagement.unsubscribe(token));
    return { ok: true };
  } catch (err) {
    return { ok: false, message: errorMessage(err, 'This link did not work') };
  }
}
