import { atom, map, type MapStore } from 'nanostores';
import type { MessagePolicy } from '../../../common/enums.js';
import type { ListResult } from '../../../common/schemas/http.js';
import type { BlockedFan, Conversation, MassMessage, MessageItem } from '../../../common/schemas/messages.js';
import { errorMessage } from '../api/error.js';
import { call } from './client.js';
import { onRealtime } from './realtime-events.js';
import { pushToast } from './toast.js';
import { registerReset } from './reset.js';
import { setBellCount } from './notifications.js';

/**
 * Direct messages in the browser (docs/product.md, Messages): the header's unread badge, the inbox (conversation list
 * and the open thread, updated live by `message/created`, `message/read`, `message/deleted` and `messages/unread`), the performer page's
 * Message button, and the studio's messaging settings and blocked fans.
 */

/** The signed-in user's unread messages (the header's badge); the page renders the first value. */
export const unreadMessages = atom<number>(0);

/**
 * Whether this page has had a count newer than the one it was rendered with (a read's answer, a live event). The
 * header's badge hydrates when the browser is idle, often after the open thread has already been marked read: its
 * rendered count is then older than what the store holds and must not put the old number back.
 */
let liveCount = false;

function setUnread(count: number): void {
  liveCount = true;
  unreadMessages.set(count);
}

/** The count the page was rendered with, unless a newer one has arrived since. */
export function seedUnread(count: number): void {
  if (!liveCount) unreadMessages.set(count);
}

/** Keeps the badge live until the returned function is called. */
export function listenUnread(): () => void {
  return onRealtime('messages/unread', ({ count }) => setUnread(count));
}

export interface InboxState {
  conversations: Conversation[];
  conversationsCursor: string | null;
  /** The open thread, oldest first as it is shown; null on the list alone. */
  active: Conversation | null;
  messages: MessageItem[];
  /** Cursor of the next older page. */
  olderCursor: string | null;
  loadingOlder: boolean;
  sending: boolean;
  error: string | null;
}

export interface Inbox {
  store: MapStore<InboxState>;
  loadOlder(): Promise<void>;
  loadMoreConversations(): Promise<void>;
  /** Sends text and files (a performer's `price` in minor units locks the files); true when it was sent (the composer then clears). */
  send(text: string, files: File[], price?: number): Promise<boolean>;
  markRead(): Promise<void>;
  /** The performer blocks (or unblocks) the fan of the open conversation. */
  setBlocked(blocked: boolean): Promise<void>;
  listen(): () => void;
}

const byTime = (a: MessageItem, b: MessageItem) => (a.createdAt === b.createdAt ? (a._id < b._id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1);

export function createInbox(me: string, initial: { conversations: ListResult<Conversation>; active: Conversation | null; messages: ListResult<MessageItem> | null }): Inbox {
  const store = map<InboxState>({
    conversations: initial.conversations.items,
    conversationsCursor: initial.conversations.nextCursor ?? null,
    active: initial.active,
    messages: [...(initial.messages?.items ?? [])].sort(byTime),
    olderCursor: initial.messages?.nextCursor ?? null,
    loadingOlder: false,
    sending: false,
    error: null,
  });

  function addMessage(message: MessageItem): void {
    const s = store.get();
    if (!s.active || s.active._id !== message.conversationId || s.messages.some((m) => m._id === message._id)) return;
    store.setKey('messages', [...s.messages, message].sort(byTime));
  }

  /** Moves the conversation to the top of the list with its new last message. */
  function touchConversation(conversationId: string, message: MessageItem, unreadDelta: number): void {
    const list = store.get().conversations;
    const found = list.find((c) => c._id === conversationId);
    const active = store.get().active;
    const base = found ?? (active?._id === conversationId ? active : null);
    if (!base) {
      // A conversation this page did not list yet (someone wrote first): the list's first page again.
      void call(({ engagement }) => engagement.conversations())
        .then((page) => store.setKey('conversations', page.items))
        .catch(() => {});
      return;
    }
    const updated: Conversation = {
      ...base,
      lastMessage: { text: message.text, senderId: message.senderId, createdAt: message.createdAt, attachments: message.attachments.length },
      lastMessageAt: message.createdAt,
      unreadCount: Math.max(0, (found?.unreadCount ?? 0) + unreadDelta),
    };
    store.setKey('conversations', [updated, ...list.filter((c) => c._id !== conversationId)]);
  }

  async function markRead(): Promise<void> {
    const active = store.get().active;
    if (!active) return;
    try {
      const state = await call(({ engagement }) => engagement.markRead(active._id));
      setUnread(state.count);
      setBellCount(state.notifications);
      store.setKey('conversations', store.get().conversations.map((c) => (c._id === active._id ? { ...c, unreadCount: 0 } : c)));
    } catch {
      // the next message or visit marks it again
    }
  }

  return {
    store,
    markRead,
    async loadOlder() {
      const s = store.get();
      if (!s.active || !s.olderCursor || s.loadingOlder) return;
      store.setKey('loadingOlder', true);
      try {
        const page = await call(({ engagement }) => engagement.messages(s.active!._id, { cursor: s.olderCursor }));
        const known = new Set(store.get().messages.map((m) => m._id));
        store.set({ ...store.get(), messages: [...page.items.filter((m) => !known.has(m._id)), ...store.get().messages].sort(byTime), olderCursor: page.nextCursor ?? null, loadingOlder: false });
      } catch (err) {
        store.set({ ...store.get(), loadingOlder: false, error: errorMessage(err, 'Could not load older messages') });
      }
    },
    async loadMoreConversations() {
      const cursor = store.get().conversationsCursor;
      if (!cursor) return;
      const page = await call(({ engagement }) => engagement.conversations({ cursor }));
      const known = new Set(store.get().conversations.map((c) => c._id));
      store.set({ ...store.get(), conversations: [...store.get().conversations, ...page.items.filter((c) => !known.has(c._id))], conversationsCursor: page.nextCursor ?? null });
    },
    async send(text, files, price = 0) {
      const active = store.get().active;
      if (!active || store.get().sending) return false;
      store.set({ ...store.get(), sending: true, error: null });
      try {
        const message = await call(({ engagement }) => engagement.sendMessage(active._id, text, files, price));
        addMessage(message);
        touchConversation(active._id, message, 0);
        store.setKey('sending', false);
        return true;
      } catch (err) {
        store.set({ ...store.get(), sending: false, error: errorMessage(err, 'The message was not sent, please try again') });
        return false;
      }
    },
    async setBlocked(blocked) {
      const active = store.get().active;
      if (!active) return;
      try {
        await call(({ engagement }) => (blocked ? engagement.block(active.fanId) : engagement.unblock(active.fanId)));
        store.setKey('active', { ...active, blocked });
        pushToast('success', blocked ? `${active.other.name} is blocked` : `${active.other.name} is unblocked`);
      } catch (err) {
        pushToast('error', errorMessage(err, 'Error occured, please try again later'));
      }
    },
    listen() {
      const offCreated = onRealtime('message/created', ({ conversationId, message }) => {
        const active = store.get().active;
        const open = active?._id === conversationId;
        const fromOther = message.senderId !== me;
        addMessage(message);
        touchConversation(conversationId, message, fromOther && !open ? 1 : 0);
        // A message arriving in the thread on screen is seen.
        if (open && fromOther && document.visibilityState === 'visible') void markRead();
      });
      const offRead = onRealtime('message/read', ({ conversationId, readerId, readAt }) => {
        if (readerId === me) {
          store.setKey('conversations', store.get().conversations.map((c) => (c._id === conversationId ? { ...c, unreadCount: 0 } : c)));
          return;
        }
        if (store.get().active?._id !== conversationId) return;
        store.setKey('messages', store.get().messages.map((m) => (m.senderId === me && !m.readAt ? { ...m, readAt } : m)));
      });
      // A paid message bought (here or in another tab): asked again, now with its files signed for this fan.
      const offPaid = onRealtime('payment/success', ({ type, targetId }) => {
        if (type !== 'message' || !targetId || !store.get().messages.some((m) => m._id === targetId)) return;
        void call(({ engagement }) => engagement.message(targetId))
          .then((fresh) => store.setKey('messages', store.get().messages.map((m) => (m._id === fresh._id ? fresh : m))))
          .catch(() => {});
      });
      // An admin removed a reported message: it leaves the open thread at once.
      const offDeleted = onRealtime('message/deleted', ({ conversationId, messageId }) => {
        if (store.get().active?._id !== conversationId) return;
        store.setKey('messages', store.get().messages.filter((m) => m._id !== messageId));
      });
      const onVisible = () => {
        if (document.visibilityState === 'visible' && store.get().messages.some((m) => m.senderId !== me && !m.readAt)) void markRead();
      };
      document.addEventListener('visibilitychange', onVisible);
      return () => {
        offCreated();
        offRead();
        offPaid();
        offDeleted();
        document.removeEventListener('visibilitychange', onVisible);
      };
    },
  };
}

/** The performer page's Message button: opens (or finds) the conversation, then goes to it. */
export async function openConversationWith(userId: string): Promise<void> {
  try {
    const conversation = await call(({ engagement }) => engagement.startConversation(userId));
    window.location.assign(`/messages/${conversation._id}`);
  } catch (err) {
    pushToast('error', errorMessage(err, 'Error occured, please try again later'));
  }
}

export interface MessagingSettingsState {
  messagePolicy: MessagePolicy;
  blocked: BlockedFan[];
  mass: MassMessage[];
  saving: boolean;
  sendingMass: boolean;
  massError: string | null;
}

/** While a mass message is being delivered, its progress is asked this often. */
const MASS_POLL_MS = 2000;

/** The studio's messaging settings: who may write first, the blocked fans with an Unblock each, and mass messages with their progress. */
export function createMessagingSettings(initial: { messagePolicy: MessagePolicy; blocked: BlockedFan[]; mass: MassMessage[] }) {
  const store = map<MessagingSettingsState>({ ...initial, saving: false, sendingMass: false, massError: null });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const poll = () => {
    clearTimeout(timer);
    if (!store.get().mass.some((m) => m.status === 'sending')) return;
    timer = setTimeout(async () => {
      try {
        store.setKey('mass', (await call(({ engagement }) => engagement.massMessages())).items);
      } catch {
        // asked again at the next tick
      }
      poll();
    }, MASS_POLL_MS);
  };
  return {
    store,
    /** Follows the progress of deliveries under way until the returned function is called. */
    watchProgress() {
      poll();
      return () => clearTimeout(timer);
    },
    async sendMass(text: string, audience: MassMessage['audience'], files: File[], price = 0): Promise<boolean> {
      store.set({ ...store.get(), sendingMass: true, massError: null });
      try {
        const sent = await call(({ engagement }) => engagement.sendMassMessage(text, audience, files, price));
        store.set({ ...store.get(), mass: [sent, ...store.get().mass], sendingMass: false });
        pushToast('success', `Sending to ${sent.total} ${sent.total === 1 ? 'fan' : 'fans'}`);
        poll();
        return true;
      } catch (err) {
        store.set({ ...store.get(), sendingMass: false, massError: errorMessage(err, 'The message was not sent, please try again') });
        return false;
      }
    },
    async setPolicy(messagePolicy: MessagePolicy) {
      const before = store.get().messagePolicy;
      store.set({ ...store.get(), messagePolicy, saving: true });
      try {
        await call(({ engagement }) => engagement.messageSettings(messagePolicy));
        store.setKey('saving', false);
        pushToast('success', 'Saved');
      } catch (err) {
        store.set({ ...store.get(), messagePolicy: before, saving: false });
        pushToast('error', errorMessage(err, 'Error occured, please try again later'));
      }
    },
    async unblock(userId: string) {
      try {
        await call(({ engagement }) => engagement.unblock(userId));
        store.setKey('blocked', store.get().blocked.filter((b) => b._id !== userId));
        pushToast('success', 'Unblocked');
      } catch (err) {
        pushToast('error', errorMessage(err, 'Error occured, please try again later'));
      }
    },
  };
}

registerReset('messages', () => {
  liveCount = false;
  unreadMessages.set(0);
});
