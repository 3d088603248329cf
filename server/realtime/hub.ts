import type { Server } from 'socket.io';
import type { EngagementObjectType } from '../../common/enums.js';
import type { ClientToServerEvents, ServerToClientEvents } from '../../common/realtime.js';

/** Room of one user's sockets (every tab, every instance). */
export const userRoom = (userId: string) => `user:${userId}`;
/** Room of the sockets authenticated with one session: what ends when that session is signed out. */
export const sessionRoom = (sessionId: string) => `session:${sessionId}`;
/** Room of the sockets viewing one object (joined with the client's `object/watch`). */
export const objectRoom = (objectType: EngagementObjectType | string, objectId: string) => `object:${objectType}:${objectId}`;

export type ServerEvent = keyof ServerToClientEvents;
export type ServerPayload<E extends ServerEvent> = Parameters<ServerToClientEvents[E]>[0];

/**
 * What the rest of the server uses to push events to browsers: `ctx.realtime`. Fire and forget: an emit
 * reaches the sockets in the room on every instance (through the Redis adapter when REDIS_URL is set) and
 * is dropped when nobody listens; nothing is queued for sockets that connect later. Emit after the
 * transaction that made the change has committed. See server/realtime/README.md.
 */
export interface RealtimeEmitter {
  emitToUser<E extends ServerEvent>(userId: string, event: E, payload: ServerPayload<E>): void;
  emitToObject<E extends ServerEvent>(objectType: EngagementObjectType, objectId: string, event: E, payload: ServerPayload<E>): void;
  /** One event to many users' rooms at once (one adapter message for the batch; a socket in several gets it once). */
  emitToUsers<E extends ServerEvent>(userIds: readonly string[], event: E, payload: ServerPayload<E>): void;
}

export type RealtimeServer = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

export interface SocketData {
  user: import('../auth/auth.service.js').SessionUser | null;
  /** The token the socket authenticated with (query, auth payload or cookie), to check it again on auth/login. */
  token: string | null;
  /** The visitor's country at the handshake (null when unknown), for performers' own country blocks. */
  country: string | null;
}

/**
 * The emitter on `ctx`: built with the context (before the HTTP server exists), bound to socket.io by
 * `attachRealtime`. Emits before binding or after close are dropped.
 */
export class RealtimeHub implements RealtimeEmitter {
  private io: RealtimeServer | undefined;

  attach(io: RealtimeServer): void {
    this.io = io;
  }

  detach(): void {
    this.io = undefined;
  }

  emitToUser<E extends ServerEvent>(userId: string, event: E, payload: ServerPayload<E>): void {
    this.emit(userRoom(userId), event, payload);
  }

  emitToObject<E extends ServerEvent>(objectType: EngagementObjectType, objectId: string, event: E, payload: ServerPayload<E>): void {
    this.emit(objectRoom(objectType, objectId), event, payload);
  }

  emitToUsers<E extends ServerEvent>(userIds: readonly string[], event: E, payload: ServerPayload<E>): void {
    if (userIds.length) this.emit(userIds.map(userRoom), event, payload);
  }

  /**
   * Drops every socket of a user, on every instance (the Redis adapter carries it): used when an account is
   * suspended or its password reset.
   */
  disconnectUser(userId: string): void {
    this.io?.in(userRoom(userId)).disconnectSockets(true);
  }

  /**
   * Drops the sockets authenticated with one session, on every instance: after a sign-out (or a revocation)
   * they no longer hold its rights, user room and object rooms alike. A browser reconnects only on a new page.
   */
  disconnectSession(sessionId: string): void {
    this.io?.in(sessionRoom(sessionId)).disconnectSockets(true);
  }

  /** Drops a user's sockets except those of one session (a password change signs out the other sessions). */
  disconnectOtherSessions(userId: string, keepSessionId: string): void {
    this.io?.in(userRoom(userId)).except(sessionRoom(keepSessionId)).disconnectSockets(true);
  }

  private emit<E extends ServerEvent>(room: string | string[], event: E, payload: ServerPayload<E>): void {
    if (!this.io) return;
    // socket.io's typed emit wants the exact tuple of the event's parameters.
    (this.io.to(room).emit as (ev: string, ...args: unknown[]) => boolean)(event, payload);
  }
}
