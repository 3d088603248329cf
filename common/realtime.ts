import type { EngagementObjectType, ReactionAction } from './enums.js';
import type { CommentItem } from './schemas/engagement.js';

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
 * to an object room: comment/*, reaction/count; to a user room: notification/count, payment/success,
 * subscription/success, content/new.
 */
export interface ServerToClientEvents {
  'comment/created': (payload: { comment: CommentItem; commentCount: number }) => void;
  'comment/updated': (payload: { comment: CommentItem }) => void;
  'comment/deleted': (payload: ObjectRef & { _id: string; commentCount: number }) => void;
  'reaction/count': (payload: ObjectRef & { action: ReactionAction; count: number }) => void;
  'notification/count': (payload: { count: number }) => void;
  'payment/success': (payload: { paymentId: string; type: string; targetId?: string | null; [key: string]: unknown }) => void;
  'subscription/success': (payload: { subscriptionId: string; performerId: string; [key: string]: unknown }) => void;
  'content/new': (payload: ObjectRef & { performerId: string; title?: string; [key: string]: unknown }) => void;
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
