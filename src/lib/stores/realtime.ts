import { atom } from 'nanostores';
import type { RealtimeAck, RealtimeStatus } from '../../../common/realtime.js';
import { getRuntimeConfig } from '../runtime.js';
import { createSocket, type RealtimeSocket, type SocketTarget } from '../socket.js';
import { bindRealtimeSocket, onRealtime, watchedObjects, watchObject, type BoundSocket } from './realtime-events.js';
import { registerReset } from './reset.js';

/**
 * The realtime connection (docs/product.md): one socket per page, owned by the RealtimeConnection
 * wrapper (src/islands/RealtimeConnection.tsx); islands subscribe to server events with `onRealtime` and
 * to an object's room with `watchObject`, whether or not the socket exists yet.
 *
 * - Created only when a session exists (the page's `loggedIn`; the token itself is an httpOnly cookie the
 *   handshake carries) and no socket is initialized yet: status `initialized`.
 * - connect / reconnect → `connected`, then `auth/login` is sent again (with the token when the client
 *   holds one), and watched objects are re-joined.
 * - disconnect → `disconnected`; each reconnection attempt → `reconnecting`; an error or a failed
 *   reconnection attempt → `failed` (console only outside production, no user-facing message).
 * - Reconnection is unlimited, 1000 ms initial and 10000 ms maximum delay (src/lib/socket.ts).
 */

/** `disconnected` until a socket is created. */
export const realtimeStatus = atom<RealtimeStatus>('disconnected');
/** The user the server attached the socket to (from the `auth/login` acknowledgement), null for none. */
export const realtimeUserId = atom<string | null>(null);
/** Unread notifications, from `notification/count`. */
export const notificationCount = atom(0);

let socket: RealtimeSocket | null = null;
let target: SocketTarget = {};

function report(what: string, err?: unknown): void {
  if (getRuntimeConfig().env === 'production') return;
  console.warn(`[realtime] ${what}`, err instanceof Error ? err.message : (err ?? ''));
}

export function getRealtimeSocket(): RealtimeSocket | null {
  return socket;
}

function sendLogin(s: RealtimeSocket): void {
  s.emit('auth/login', target.token ? { token: target.token } : {}, (ack?: RealtimeAck) => {
    realtimeUserId.set(ack?.ok ? (ack.userId ?? null) : null);
  });
}

/**
 * Opens the connection if a session exists and none is initialized; answers the socket (or null).
 * `target` is for other environments (tests, scripts): an explicit url, path, token or headers.
 */
export function connectRealtime(opts: { loggedIn: boolean } & SocketTarget): RealtimeSocket | null {
  if (!opts.loggedIn) return null;
  if (socket) return socket;
  const { loggedIn: _ignored, ...rest } = opts;
  target = rest;
  let s: RealtimeSocket;
  try {
    s = createSocket(target);
  } catch (err) {
    realtimeStatus.set('failed');
    report('could not create the connection', err);
    return null;
  }
  socket = s;
  realtimeStatus.set('initialized');
  s.on('connect', () => {
    realtimeStatus.set('connected');
    sendLogin(s);
    for (const ref of watchedObjects()) s.emit('object/watch', ref);
  });
  s.on('disconnect', (reason) => {
    realtimeStatus.set('disconnected');
    realtimeUserId.set(null);
    // The server closed this socket on purpose (not a network failure): socket.io does not retry; neither do we.
    if (reason === 'io server disconnect') report('closed by the server');
  });
  s.on('connect_error', (err) => {
    realtimeStatus.set('failed');
    report('connection error', err);
  });
  s.on('notification/count', ({ count }) => notificationCount.set(count));
  s.io.on('reconnect_attempt', () => realtimeStatus.set('reconnecting'));
  s.io.on('reconnect_error', (err) => {
    realtimeStatus.set('failed');
    report('reconnection failed', err);
  });
  s.io.on('reconnect_failed', () => {
    realtimeStatus.set('failed');
    report('gave up reconnecting');
  });
  bindRealtimeSocket(s as unknown as BoundSocket);
  return s;
}

/** Closes the connection (the wrapper unmounts, or the session ended). */
export function disconnectRealtime(): void {
  const s = socket;
  socket = null;
  bindRealtimeSocket(null);
  if (s) {
    s.removeAllListeners();
    s.io.removeAllListeners();
    s.close();
  }
  realtimeStatus.set('disconnected');
  realtimeUserId.set(null);
}

/**
 * docs/product.md: re-attempted whenever the loggedIn flag changes. Logged in: connect if there is no socket,
 * reconnect a closed one and send `auth/login` again on a live one. Logged out: close.
 */
export function syncRealtime(opts: { loggedIn: boolean } & SocketTarget): void {
  if (!opts.loggedIn) return disconnectRealtime();
  if (!socket) {
    connectRealtime(opts);
    return;
  }
  if (socket.connected) sendLogin(socket);
  else if (!socket.active) socket.connect();
}

/** Subscriptions live in realtime-events.ts (no socket.io there, so the comments and reactions stores stay light). */
export { onRealtime, watchObject };

/**
 * Back to the initial state: no socket, counts cleared. Subscriptions (`onRealtime`, `watchObject`) belong
 * to the mounted islands and stay; they apply to the next socket.
 */
export function resetRealtime(): void {
  disconnectRealtime();
  notificationCount.set(0);
  target = {};
}

registerReset('realtime', resetRealtime);
