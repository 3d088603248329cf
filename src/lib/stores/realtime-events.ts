import type { EngagementObjectType } from '../../../common/enums.js';
import type { ServerToClientEvents } from '../../../common/realtime.js';

/**
 * The subscription side of the realtime connection, free of socket.io: islands that show live data (comments,
 * reaction counts) register their event handlers and watched rooms here, and the realtime store
 * (src/lib/stores/realtime.ts) attaches them to its socket when one exists. A guest's page never loads that store
 * or socket.io-client (only signed-in pages render the RealtimeStatus island that owns the connection), so the
 * handlers simply stay idle.
 */

type EventName = keyof ServerToClientEvents;
type Handler<E extends EventName> = ServerToClientEvents[E];
export type WatchRef = { objectType: EngagementObjectType; objectId: string };

/** The few socket operations the subscriptions need; the realtime store binds its socket here. */
export interface BoundSocket {
  connected: boolean;
  on(event: string, handler: (...args: never[]) => void): unknown;
  off(event: string, handler: (...args: never[]) => void): unknown;
  emit(event: 'object/watch' | 'object/unwatch', ref: WatchRef): unknown;
}

let socket: BoundSocket | null = null;
const handlers = new Map<EventName, Set<(...args: never[]) => void>>();
/** Watched rooms with how many subscribers each. */
const watched = new Map<string, { ref: WatchRef; count: number }>();

/** The realtime store's socket (null when closed); every registered handler is attached to a new one. */
export function bindRealtimeSocket(s: BoundSocket | null): void {
  socket = s;
  if (s) for (const [event, set] of handlers) for (const h of set) s.on(event, h);
}

/** The rooms to (re-)join after a connect. */
export function watchedObjects(): WatchRef[] {
  return [...watched.values()].map((w) => w.ref);
}

/** Subscribes to a server event on the current and any later socket; answers the unsubscribe function. */
export function onRealtime<E extends EventName>(event: E, handler: Handler<E>): () => void {
  let set = handlers.get(event);
  if (!set) handlers.set(event, (set = new Set()));
  set.add(handler as never);
  socket?.on(event, handler as never);
  return () => {
    set!.delete(handler as never);
    socket?.off(event, handler as never);
  };
}

/** Joins the room of an object (now and after every reconnect) until the returned function is called. */
export function watchObject(objectType: EngagementObjectType, objectId: string): () => void {
  const key = `${objectType}:${objectId}`;
  const entry = watched.get(key);
  if (entry) entry.count += 1;
  else {
    watched.set(key, { ref: { objectType, objectId }, count: 1 });
    if (socket?.connected) socket.emit('object/watch', { objectType, objectId });
  }
  let done = false;
  return () => {
    if (done) return;
    done = true;
    const current = watched.get(key);
    if (!current) return;
    current.count -= 1;
    if (current.count <= 0) {
      watched.delete(key);
      if (socket?.connected) socket.emit('object/unwatch', { objectType, objectId });
    }
  };
}
