import type { EngagementObjectType, ReactionAction, TipContextType } from './enums.js';
import type { CommentItem } from './schemas/engagement.js';
import type { MessageItem } from './schemas/messages.js';
import type { NotificationItem } from './schemas/notifications.js';

/** The realtime connection (socket.io, server/realtime/README.md): its status, rooms and events; not part of the HTTP API. */

/** The realtime client's status (docs/product.md, Realtime). */
export type RealtimeStatus = 'initialized' | 'connected' | 'disconnected' | 'reconnecting' | 'failed';

/** Rooms: `user:<userId>` (joined when the socket is authenticated), `object:<type>:<id>` (joined by `object/watch`). */
export interface ObjectRef {
  objectType: EngagementObjectType;
  objectId: string;
}

/**
 * Events the server sends (socket.io). Emitted through `ctx.realtime` (server/realtime/README.md):
 * to an object room: comment/*, reaction/count; to a user room: notification/count, notification/created, payment/success,
 * subscription/success, content/new, message/created, message/read, message/deleted, messages/unread, tip/received.
 */
export interface ServerToClientEvents {
  'comment/created': (payload: { comment: CommentItem; commentCount: number }) => void;
  'comment/updated': (payload: { comment: CommentItem }) => void;
  'comment/deleted': (payload: ObjectRef & { _id: string; commentCount: number }) => void;
  'reaction/count': (payload: ObjectRef & { action: ReactionAction; count: number }) => void;
  'notification/count': (payload: { count: number }) => void;
  /** A new notification of the user, rendered as the list shows it (sent once, before the new count). */
  'notification/created': (payload: { notification: NotificationItem }) => void;
  'payment/success': (payload: { paymentId: string; type: string; targetId?: string | null; [key: string]: unknown }) => void;
  'subscription/success': (payload: { subscriptionId: string; performerId: string; [key: string]: unknown }) => void;
  /**
   * A followed or subscribed performer published a post, video or gallery (to each follower's and live subscriber's
   * user room). Ids and time only: the feed is then asked over HTTP, which applies the access and country rules.
   */
  'content/new': (payload: NewContent) => void;
  /**
   * A direct message, to both participants' user rooms (the sender's other tabs too); each gets attachments signed
   * for themself. server/messages/README.md.
   */
  'message/created': (payload: { conversationId: string; message: MessageItem }) => void;
  /** A participant saw the conversation up to `readAt` (to both participants). */
  'message/read': (payload: { conversationId: string; readerId: string; readAt: string }) => void;
  /** An admin removed a reported message (to both participants): open threads drop it. */
  'message/deleted': (payload: { conversationId: string; messageId: string }) => void;
  /** The user's unread direct messages over all conversations (the header's badge). */
  'messages/unread': (payload: { count: number }) => void;
  /** A fan's tip to this performer was paid (to the performer's user room, after the settlement committed). */
  'tip/received': (payload: TipReceived) => void;
}

/** `tip/received`: how much, from whom (their display name), where it was given, and where the performer sees it. */
export interface TipReceived {
  tipId: string;
  paymentId: string;
  /** Minor units of `currency`. */
  amount: number;
  currency: string;
  actorName: string | null;
  contextType: TipContextType | null;
  contextId: string | null;
  url: string;
}

/** `content/new`: what was published, by whom, when. No title or picture: a performer's country block is decided per visitor, by HTTP. */
export interface NewContent {
  objectType: 'video' | 'gallery' | 'post';
  objectId: string;
  performerId: string;
  publishedAt: string;
}

/** Acknowledgement of the client's events. */
export interface RealtimeAck {
  ok: boolean;
  /** After auth/login: the user the socket now belongs to, null for a guest. */
  userId?: string | null;
  message?: string;
  /** Why an `object/watch` was refused: `NOT_FOUND`, or `LOCKED` (the viewer may not read its comments). */
  code?: string;
}

/** Events the client sends. */
export interface ClientToServerEvents {
  /** Sent after connect and reconnect (docs/product.md, Realtime). Without a token the session cookie of the handshake is used. */
  'auth/login': (payload: { token?: string } | undefined, ack?: (res: RealtimeAck) => void) => void;
  'auth/logout': (payload: unknown, ack?: (res: RealtimeAck) => void) => void;
  'object/watch': (payload: ObjectRef, ack?: (res: RealtimeAck) => void) => void;
  'object/unwatch': (payload: ObjectRef, ack?: (res: RealtimeAck) => void) => void;
}
