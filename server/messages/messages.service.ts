import type { Db, DbOrTrx } from '../db/database.js';
import { newId, nowIso } from '../db/ids.js';
import { AppError, badRequest, notFound } from '../http/errors.js';
import { encodeCursor, type Cursor } from '../http/pagination.js';
import type { RealtimeEmitter } from '../realtime/hub.js';
import { addNotification, pushNotificationCount, readConversationNotifications, unreadNotificationCount } from '../notifications/notifications.service.js';
import { mediaSigner, type MediaUrlSigner } from '../media/signed-urls.js';
import { publicMediaUrl } from '../media/storage.js';
import { fileRow, insertFiles } from '../media/pipeline/pipeline.repository.js';
import type { ReceivedFile } from '../media/pipeline/upload.js';
import { isSubscribed, openMessageIds, type Viewer } from '../access/access.service.js';
import { viewerFollows } from '../follows/follows.service.js';
import { assertNotBlocked, blockedError } from '../blocks/blocks.service.js';
import { DEFAULT_AVATAR } from '../../common/avatar.js';
import type { MessagePolicy, Role } from '../../common/enums.js';
import type { ListResult } from '../../common/schemas/http.js';
import {
  type Conversation, type MessageAttachment, type MessageItem, type MessagingState, type ReadState,
} from '../../common/schemas/messages.js';
import { MESSAGE_MAX_ATTACHMENTS, MESSAGE_MAX_CHARS } from '../../common/messages.js';
import {
  attachmentsOf, conversationsPage, countConversations, ensureConversation, findConversation, findConversationOf, findConversationToWrite, findCorrespondent, findMessage, hasSent,
  insertAttachments, insertMessage, markRead, messagePolicyOf, messagesPage, setMessagePolicy, touchConversation, unreadMessages,
  type ConversationRow, type AttachmentRow, type FanConversationFacts,
} from './messages.repository.js';

/**
 * Direct messages (docs/product.md, Messages; server/messages/README.md). A conversation is one fan and one performer.
 * Who may write first is the performer's setting (subscribers, any fan, nobody); once the other side has written in
 * a conversation, either may answer. A performer writes first only to a fan who follows or subscribes. A fan the
 * performer blocked writes nothing. Anyone else (another fan, another performer) finds no conversation: 404.
 */

export interface MessagesDeps {
  db: Db;
  realtime: RealtimeEmitter;
  signer: MediaUrlSigner;
}

type Me = { id: string; role: Role; name?: string };

/** The messages' dependencies from the app's context (routes and pages). */
export function messagesDeps(ctx: { db: Db; realtime: RealtimeEmitter; config: { appSecret: string; mediaUrlTtlSec: number } }): MessagesDeps {
  return { db: ctx.db, realtime: ctx.realtime, signer: mediaSigner(ctx.config) };
}

export const NOT_ALLOWED = 'MESSAGES_NOT_ALLOWED';
const notAllowed = (message: string) => new AppError(403, NOT_ALLOWED, message);

const policyRefusal: Record<Exclude<MessagePolicy, 'fans'>, string> = {
  subscribers: 'Only subscribers can message this performer first: subscribe to write to them',
  nobody: 'This performer does not take new messages',
};

/** Plain text: control characters other than line breaks and tabs dropped, at most two blank lines in a row, trimmed. */
export function cleanMessageText(raw: string): string {
  return raw
    .normalize('NFC')
    .replace(/\r\n?/g, '\n')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Throws why `senderId` may not write in the conversation of (fan, performer), `conversationId` when it exists.
 * 403 BLOCKED_BY_PERFORMER, 403 MESSAGES_NOT_ALLOWED, 404 for someone who is not a participant.
 */
async function assertMayWrite(
  db: DbOrTrx, pair: { id?: string; fanId: string; performerId: string }, senderId: string, now = new Date(), known: KnownFacts = {},
): Promise<void> {
  if (senderId === pair.fanId) {
    if (known.conversation) {
      if (known.conversation.blocked) throw blockedError('message');
    } else await assertNotBlocked(db, pair.performerId, pair.fanId, 'message');
    if (pair.id && (known.conversation?.performerWrote ?? (await hasSent(db, pair.id, pair.performerId)))) return;
    const policy = known.policy ?? (await messagePolicyOf(db, pair.performerId)) ?? 'nobody';
    if (policy === 'fans') return;
    if (policy === 'subscribers' && (known.subscribed ?? (await isSubscribed(db, { id: pair.fanId, role: 'user' }, pair.performerId, now)))) return;
    throw notAllowed(policyRefusal[policy]);
  }
  if (senderId === pair.performerId) {
    if (pair.id && (await hasSent(db, pair.id, pair.fanId))) return;
    const fan = { id: pair.fanId, role: 'user' as const };
    if ((await viewerFollows(db, fan, pair.performerId)) || (await isSubscribed(db, fan, pair.performerId, now))) return;
    throw notAllowed('You can write first only to fans who follow you or subscribe to you');
  }
  throw notFound('Conversation');
}

/**
 * What the caller read moments before in the same request, not read again: a performer's page reads the performer's
 * row with the fan's subscription and conversation facts in one statement; sending reads them with the conversation.
 */
interface KnownFacts {
  policy?: MessagePolicy;
  subscribed?: boolean;
  conversation?: FanConversationFacts;
}

/** Why not, in words, or null when the sender may write now. */
async function whyNot(db: DbOrTrx, pair: { id?: string; fanId: string; performerId: string }, senderId: string, known?: KnownFacts): Promise<{ code: string; message: string } | null> {
  try {
    await assertMayWrite(db, pair, senderId, new Date(), known);
    return null;
  } catch (err) {
    if (err instanceof AppError) return { code: err.code, message: err.message };
    throw err;
  }
}

type Correspondent = NonNullable<Awaited<ReturnType<typeof findCorrespondent>>>;

/**
 * The pair (fan, performer) of the caller and the account `key` names, with that account's row; 404 for no such
 * account, 403 unless one of each. For a fan, the performer's message policy comes with it (`known`), so that the
 * checks after it do not read it again.
 */
async function pairWith(db: DbOrTrx, me: Me, key: string): Promise<{ pair: { fanId: string; performerId: string }; other: Correspondent; known: KnownFacts }> {
  const other = await findCorrespondent(db, key);
  if (!other || other.id === me.id || other.status !== 'active') throw notFound('User');
  if (me.role === 'user' && other.role === 'performer') {
    // A performer who is not active and approved cannot be found by fans, here as in the catalogue.
    if (other.performerStatus !== 'active' || Number(other.approved) !== 1) throw notFound('User');
    return { pair: { fanId: me.id, performerId: other.id }, other, known: { policy: other.messagePolicy ?? 'nobody' } };
  }
  if (me.role === 'performer' && other.role === 'user') return { pair: { fanId: other.id, performerId: me.id }, other, known: {} };
  throw notAllowed('Conversations are between a fan and a performer');
}

/** The conversation if the viewer is in it (or an admin); 404 otherwise, so an outsider learns nothing. */
async function visibleConversation(db: DbOrTrx, viewer: Me, id: string): Promise<ConversationRow> {
  const row = await findConversation(db, id);
  if (!row || !(viewer.role === 'admin' || viewer.id === row.fanId || viewer.id === row.performerId)) throw notFound('Conversation');
  return row;
}

function participantView(id: string, u: Correspondent | undefined) {
  return { _id: id, name: u?.name ?? 'Deleted account', username: u?.username ?? '', avatar: publicMediaUrl(u?.avatarPath) ?? DEFAULT_AVATAR, role: u?.role ?? 'user' };
}

/**
 * What the caller of conversationView read moments before: the other participant's row, the facts the check of who
 * may write needs, or that check's outcome itself (`mayWrite`: the viewer was just allowed to open it).
 */
interface ViewFacts {
  other?: Correspondent;
  known?: KnownFacts;
  mayWrite?: true;
}

/** A conversation shaped for `viewer` (for an admin, "other" is the fan). */
async function conversationView(db: DbOrTrx, viewer: Me, row: ConversationRow, facts: ViewFacts = {}): Promise<Conversation> {
  const otherId = viewer.id === row.fanId ? row.performerId : row.fanId;
  const side = viewer.id === row.performerId ? 'performerId' : 'fanId';
  const [other, list] = await Promise.all([
    facts.other?.id === otherId ? facts.other : findCorrespondent(db, otherId),
    conversationsPage(db, row[side], side, 1, undefined, row.id),
  ]);
  const summary = list[0];
  const participant = viewer.id === row.fanId || viewer.id === row.performerId;
  const refusal = !participant
    ? { code: 'FORBIDDEN', message: 'Only its two participants write in a conversation' }
    : facts.mayWrite
      ? null
      : await whyNot(db, row, viewer.id, facts.known);
  return {
    _id: row.id,
    fanId: row.fanId,
    performerId: row.performerId,
    other: participantView(otherId, other),
    lastMessage: summary?.lastCreatedAt
      ? { text: summary.lastBody ?? '', senderId: summary.lastSenderId ?? '', createdAt: summary.lastCreatedAt, attachments: Number(summary.lastAttachments ?? 0) }
      : null,
    lastMessageAt: row.lastMessageAt,
    unreadCount: participant ? Number(summary?.unreadCount ?? 0) : 0,
    blocked: refusal?.code === 'BLOCKED_BY_PERFORMER' || Boolean(summary?.blockedFan),
    canSend: !refusal,
    whyNot: refusal?.message ?? null,
  };
}

/**
 * Opens (or finds) the caller's conversation with another account. An existing one is answered as it is; a new one
 * only when the caller may write first (403 MESSAGES_NOT_ALLOWED / BLOCKED_BY_PERFORMER otherwise).
 */
export async function startConversation(deps: MessagesDeps, me: Me, key: string): Promise<Conversation> {
  const { db } = deps;
  const { pair, other, known } = await pairWith(db, me, key);
  const existing = await findConversationOf(db, pair.fanId, pair.performerId);
  if (existing) return conversationView(db, me, existing, { other, known });
  await assertMayWrite(db, pair, me.id, new Date(), known);
  const now = nowIso();
  const row = await ensureConversation(db, { id: newId(), ...pair, createdAt: now, lastMessageAt: now, lastMessageId: null });
  // Whoever may open a conversation may write in it (a message in it only adds who may answer): not checked twice.
  return conversationView(db, me, row, { other, mayWrite: true });
}

export async function getConversation(deps: MessagesDeps, viewer: Me, id: string): Promise<Conversation> {
  return conversationView(deps.db, viewer, await visibleConversation(deps.db, viewer, id));
}

/** The caller's conversations that hold a message, newest activity first, keyset paged by (last message time, id). */
export async function listConversations(deps: MessagesDeps, me: Me, p: { limit: number; cursor?: Cursor }): Promise<ListResult<Conversation>> {
  const { db } = deps;
  // A fan's conversations are on the fan's side, a performer's on theirs; an admin has none of their own.
  const side = me.role === 'performer' ? 'performerId' : 'fanId';
  const rows = await conversationsPage(db, me.id, side, p.limit, p.cursor);
  const page = rows.slice(0, p.limit);
  const items: Conversation[] = page.map((r) => ({
    _id: r.id,
    fanId: r.fanId,
    performerId: r.performerId,
    other: { _id: r.otherId, name: r.otherName, username: r.otherUsername, avatar: publicMediaUrl(r.otherAvatarPath) ?? DEFAULT_AVATAR, role: r.otherRole },
    lastMessage: r.lastCreatedAt ? { text: r.lastBody ?? '', senderId: r.lastSenderId ?? '', createdAt: r.lastCreatedAt, attachments: Number(r.lastAttachments ?? 0) } : null,
    lastMessageAt: r.lastMessageAt,
    unreadCount: Number(r.unreadCount ?? 0),
    blocked: Boolean(r.blockedFan),
    // Decided when the thread is opened (getConversation); the list only links to it.
    canSend: !r.blockedFan,
    whyNot: null,
  }));
  const last = page[page.length - 1];
  return { items, total: await countConversations(db, me.id, side), nextCursor: rows.length > p.limit && last ? encodeCursor({ v: last.lastMessageAt, id: last.id }) : null };
}

function attachmentView(signer: MediaUrlSigner, viewerId: string, messageId: string, a: { fileId: string; kind: MessageAttachment['kind']; mime: string; width: number | null; height: number | null }): MessageAttachment {
  return { _id: a.fileId, kind: a.kind, mime: a.mime, width: a.width, height: a.height, url: signer.sign({ objectType: 'message', objectId: messageId, fileId: a.fileId }, viewerId).url };
}

type MessageRow = { id: string; conversationId: string; senderId: string; recipientId: string; body: string; createdAt: string; readAt: string | null; price: number };

/**
 * Messages shaped for one viewer, their files as URLs signed for that viewer. A priced message the viewer may not open
 * yet (its recipient before buying) carries no URL and no file id: only what kind of files it holds and their size.
 */
export async function messageViews(
  deps: MessagesDeps, viewerId: string, rows: MessageRow[], viewerRole: Role = 'user', attachments?: AttachmentRow[],
): Promise<MessageItem[]> {
  const [files, access] = await Promise.all([attachments ?? attachmentsOf(deps.db, rows.map((r) => r.id)), openMessageIds(deps.db, { id: viewerId, role: viewerRole }, rows)]);
  return rows.map((r) => {
    const own = files.filter((f) => f.messageId === r.id);
    const locked = !access.open.has(r.id);
    return {
      _id: r.id,
      conversationId: r.conversationId,
      senderId: r.senderId,
      text: r.body,
      attachments: locked ? [] : own.map((f) => attachmentView(deps.signer, viewerId, r.id, f)),
      createdAt: r.createdAt,
      readAt: r.readAt,
      price: Number(r.price),
      locked,
      lockedAttachments: locked ? own.map((f) => ({ kind: f.kind, width: f.width, height: f.height })) : [],
      purchased: access.bought.has(r.id),
    };
  });
}

/** One message for a participant of its conversation or an admin (e.g. again after buying it); 404 for anyone else. */
export async function getMessage(deps: MessagesDeps, viewer: Me, id: string): Promise<MessageItem> {
  const row = await findMessage(deps.db, id);
  if (!row) throw notFound('Message');
  await visibleConversation(deps.db, viewer, row.conversationId).catch(() => {
    throw notFound('Message');
  });
  return (await messageViews(deps, viewer.id, [row], viewer.role))[0]!;
}

/** The conversation of a message, when the viewer takes part in it (the payment result page's way back); else null. */
export async function conversationOfMessage(db: DbOrTrx, viewer: Me, messageId: string): Promise<string | null> {
  const row = await findMessage(db, messageId);
  return row && (viewer.id === row.senderId || viewer.id === row.recipientId) ? row.conversationId : null;
}

/** A thread, newest first, keyset paged by (time, id): stable when messages share a timestamp. */
export async function listMessages(deps: MessagesDeps, viewer: Me, conversationId: string, p: { limit: number; cursor?: Cursor }): Promise<ListResult<MessageItem>> {
  const conv = await visibleConversation(deps.db, viewer, conversationId);
  const rows = await messagesPage(deps.db, conv.id, p.limit, p.cursor);
  const page = rows.slice(0, p.limit);
  const last = page[page.length - 1];
  return {
    items: await messageViews(deps, viewer.id, page, viewer.role),
    // Not counted: a thread is read by scrolling, and counting it would cost a walk of the whole thread.
    total: page.length,
    nextCursor: rows.length > p.limit && last ? encodeCursor({ v: last.createdAt, id: last.id }) : null,
  };
}

export interface OutgoingMessage {
  text: string;
  files: ReceivedFile[];
  /** Minor units; 0 (or left out) for a free message. */
  price?: number;
}

/**
 * A price is the performer's, on a message with files (what it sells): 400 otherwise. The amount itself is checked by
 * the request schema (0 … MAX_PRICE_MINOR); the checkout refuses anything under 1 again.
 */
export function assertPriceAllowed(sender: { role: Role }, price: number, fileCount: number): void {
  if (price <= 0) return;
  if (sender.role !== 'performer') throw new AppError(400, 'PRICE_NOT_ALLOWED', 'Only performers can put a price on a message');
  if (fileCount === 0) throw new AppError(400, 'PRICE_NEEDS_ATTACHMENT', 'A paid message needs at least one picture or video');
}

/**
 * Sends a message: the row, its files and the conversation's last message in one transaction with the recipient's
 * notification; then both participants' rooms hear `message/created` (each with URLs signed for themself) and the
 * recipient's badge its new unread count.
 */
export async function sendMessage(deps: MessagesDeps, me: Me, conversationId: string, input: OutgoingMessage): Promise<MessageItem> {
  const { db, realtime } = deps;
  const text = cleanMessageText(input.text);
  if (text.length > MESSAGE_MAX_CHARS) throw new AppError(400, 'MESSAGE_TOO_LONG', `A message is at most ${MESSAGE_MAX_CHARS} characters`);
  if (input.files.length > MESSAGE_MAX_ATTACHMENTS) throw badRequest(`Send at most ${MESSAGE_MAX_ATTACHMENTS} files in one message`);
  if (!text && input.files.length === 0) throw new AppError(400, 'EMPTY_MESSAGE', 'Write something or attach a picture or a video');
  const price = input.price ?? 0;
  assertPriceAllowed(me, price, input.files.length);
  const conv = await findConversationToWrite(db, conversationId);
  if (!conv || (me.id !== conv.fanId && me.id !== conv.performerId)) throw notFound('Conversation');
  await assertMayWrite(db, conv, me.id, new Date(), { conversation: { id: conv.id, blocked: conv.blocked, performerWrote: conv.performerWrote }, policy: conv.policy ?? 'nobody' });
  const recipientId = me.id === conv.fanId ? conv.performerId : conv.fanId;
  const id = newId();
  const at = nowIso();
  // What the transaction writes of the files is what the views show: not read back.
  const attachments: AttachmentRow[] = input.files.map((f, position) => ({
    messageId: id, fileId: f.id, kind: f.type.kind === 'video' ? 'video' : 'image', position, mime: f.type.mime, width: f.width, height: f.height,
  }));
  await db.transaction().execute(async (trx) => {
    await insertMessage(trx, { id, conversationId: conv.id, senderId: me.id, recipientId, body: text, massMessageId: null, createdAt: at, price });
    await insertFiles(
      trx,
      input.files.map((f, i) =>
        fileRow({ id: f.id, ownerId: me.id, kind: attachments[i]!.kind, storageKey: f.storageKey, mime: f.type.mime, size: f.size, width: f.width, height: f.height, originalName: f.originalName, status: 'ready' }, at),
      ),
    );
    await insertAttachments(trx, attachments.map(({ messageId, fileId, kind, position }) => ({ messageId, fileId, kind, position })));
    await touchConversation(trx, conv.id, id, at);
    await notifyMessage(trx, recipientId, { conversationId: conv.id, messageId: id, actorId: me.id, actorName: me.name ?? null });
  });
  const row = { id, conversationId: conv.id, senderId: me.id, recipientId, body: text, createdAt: at, readAt: null, price };
  const [mine, theirs] = await Promise.all([messageViews(deps, me.id, [row], 'user', attachments), messageViews(deps, recipientId, [row], 'user', attachments)]);
  realtime.emitToUser(me.id, 'message/created', { conversationId: conv.id, message: mine[0]! });
  realtime.emitToUser(recipientId, 'message/created', { conversationId: conv.id, message: theirs[0]! });
  await pushUnread(deps, recipientId);
  await pushNotificationCount(db, realtime, recipientId);
  return mine[0]!;
}

/**
 * The recipient's `message` notification (the bell's entry, linking to the conversation; a mail when they chose one),
 * written in the sender's transaction. One shape for a sent message, a mass message's copy and the demo's messages.
 */
export function notifyMessage(
  db: DbOrTrx,
  recipientId: string,
  m: { conversationId: string; messageId: string; actorId: string; actorName: string | null },
  opts: { email?: boolean } = {},
): Promise<string> {
  return addNotification(db, recipientId, 'message', { ...m, url: `/messages/${m.conversationId}` }, opts);
}

/** Sends the user's unread message count to all of their sockets; best effort. */
export async function pushUnread(deps: MessagesDeps, userId: string): Promise<number> {
  try {
    const count = await unreadMessages(deps.db, userId);
    deps.realtime.emitToUser(userId, 'messages/unread', { count });
    return count;
  } catch {
    return 0;
  }
}

/**
 * Marks what the caller received in the conversation read, and in the same transaction the caller's unread `message`
 * notifications of it (so the bell and the messages badge agree). Both participants hear `message/read` when a
 * message changed; the reader's tabs their new `messages/unread` and, when a notification changed, `notification/count`.
 */
export async function markConversationRead(deps: MessagesDeps, me: Me, conversationId: string): Promise<ReadState> {
  const conv = await findConversation(deps.db, conversationId);
  if (!conv || (me.id !== conv.fanId && me.id !== conv.performerId)) throw notFound('Conversation');
  const at = nowIso();
  const { changed, notifications } = await deps.db.transaction().execute(async (trx) => ({
    changed: await markRead(trx, conv.id, me.id, at),
    notifications: await readConversationNotifications(trx, me.id, conv.id),
  }));
  if (notifications > 0) await pushNotificationCount(deps.db, deps.realtime, me.id);
  // The answer carries the bell's count too: the page that marked the thread read may not have a bell listening yet
  // (islands hydrate when the browser is idle), and the pushed count would then be lost.
  const unreadNotifications = await unreadNotificationCount(deps.db, me.id);
  if (changed > 0) {
    for (const userId of [conv.fanId, conv.performerId]) deps.realtime.emitToUser(userId, 'message/read', { conversationId: conv.id, readerId: me.id, readAt: at });
    return { conversationId: conv.id, readAt: at, count: await pushUnread(deps, me.id), notifications: unreadNotifications };
  }
  return { conversationId: conv.id, readAt: at, count: await unreadMessages(deps.db, me.id), notifications: unreadNotifications };
}

export function unreadMessageCount(db: DbOrTrx, userId: string): Promise<number> {
  return unreadMessages(db, userId);
}

/**
 * What the performer's page offers the viewer: a Message button, or why not. The page reads the fan's conversation
 * facts with the performer's row (`findPerformerForViewer`), so they come in `known`, not read here.
 */
export async function messagingState(db: DbOrTrx, viewer: Viewer, performerId: string, known: KnownFacts & { conversation: FanConversationFacts }): Promise<MessagingState> {
  if (!viewer) return { allowed: false, reason: 'Log in to send a message', conversationId: null };
  if (viewer.id === performerId) return { allowed: false, reason: null, conversationId: null };
  if (viewer.role !== 'user') return { allowed: false, reason: 'Messages are between fans and performers', conversationId: null };
  const existingId = known.conversation.id;
  const refusal = await whyNot(db, { id: existingId ?? undefined, fanId: viewer.id, performerId }, viewer.id, known);
  // An existing conversation can always be read, even when writing is not allowed any more.
  return { allowed: !refusal || Boolean(existingId), reason: refusal?.message ?? null, conversationId: existingId };
}

export async function getMessagePolicy(db: DbOrTrx, performerId: string): Promise<{ messagePolicy: MessagePolicy }> {
  return { messagePolicy: (await messagePolicyOf(db, performerId)) ?? 'subscribers' };
}

export async function updateMessagePolicy(db: DbOrTrx, performerId: string, messagePolicy: MessagePolicy): Promise<{ messagePolicy: MessagePolicy }> {
  await setMessagePolicy(db, performerId, messagePolicy);
  return { messagePolicy };
}

/**
 * What the messages pages render: the viewer's conversations and, for /messages/<id>, that conversation with its
 * newest messages; null when the conversation is not the viewer's (the page answers 404).
 */
export async function inboxView(deps: MessagesDeps, me: Me, conversationId?: string) {
  const conversations = await listConversations(deps, me, { limit: 30 });
  if (!conversationId) return { conversations, active: null, messages: null };
  try {
    const active = await getConversation(deps, me, conversationId);
    return { conversations, active, messages: await listMessages(deps, me, conversationId, { limit: 30 }) };
  } catch (err) {
    if (err instanceof AppError && err.statusCode === 404) return null;
    throw err;
  }
}
