import { io, type ManagerOptions, type Socket, type SocketOptions } from 'socket.io-client';
import type { ClientToServerEvents, ServerToClientEvents } from '../../common/realtime.js';
import { getRuntimeConfig } from './runtime.js';

/**
 * The socket.io connection settings (docs/product.md, Realtime), in one place: the endpoint from the runtime config
 * (`socketUrl`, `socketPath`) or an explicit address, transports websocket then polling, unlimited
 * reconnection from 1000 ms up to 10000 ms. The browser's handshake carries the httpOnly session cookie;
 * other clients pass their token, which goes in the connection query as `token`.
 */

export type RealtimeSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

export const RECONNECTION_DELAY_MS = 1000;
export const RECONNECTION_DELAY_MAX_MS = 10_000;
export const TRANSPORTS = ['websocket', 'polling'] as const;

export interface SocketTarget {
  /** Explicit address (e.g. `http://host:port`); default: the runtime config's socketUrl, else this page's origin. */
  url?: string;
  /** Default: the runtime config's socketPath. */
  path?: string;
  /** A session token known to the client (never in the browser, where the cookie is httpOnly). */
  token?: string | null;
  /** Extra handshake headers (Node clients only, e.g. a cookie). */
  extraHeaders?: Record<string, string>;
}

/** The address to connect to: an explicit one, the configured one, or the page's own origin. */
export function socketAddress(url?: string): string | undefined {
  if (url) return url;
  const configured = getRuntimeConfig().socketUrl;
  if (typeof window !== 'undefined' && window.location?.origin) {
    // Same origin when the configured address is this page's host: the session cookie goes with the handshake.
    try {
      if (!configured || new URL(configured, window.location.origin).origin === window.location.origin) return window.location.origin;
    } catch {
      return window.location.origin;
    }
  }
  return configured || undefined;
}

export function socketOptions(target: SocketTarget = {}): Partial<ManagerOptions & SocketOptions> {
  return {
    path: target.path ?? getRuntimeConfig().socketPath,
    transports: [...TRANSPORTS],
    reconnection: true,
    reconnectionAttempts: Infinity,
    reconnectionDelay: RECONNECTION_DELAY_MS,
    reconnectionDelayMax: RECONNECTION_DELAY_MAX_MS,
    withCredentials: true,
    autoConnect: true,
    ...(target.token ? { query: { token: target.token } } : {}),
    ...(target.extraHeaders ? { extraHeaders: target.extraHeaders } : {}),
  };
}

export function createSocket(target: SocketTarget = {}): RealtimeSocket {
  const address = socketAddress(target.url);
  const options = socketOptions(target);
  return (address ? io(address, options) : io(options)) as RealtimeSocket;
}
