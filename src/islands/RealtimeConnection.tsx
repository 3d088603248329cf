import { useEffect, useRef, type ReactNode } from 'react';
import { loggedIn as loggedInStore } from '../lib/stores/auth.js';
import { disconnectRealtime, syncRealtime } from '../lib/stores/realtime.js';

export interface RealtimeConnectionProps {
  /** Whether the page was rendered for a signed-in user (the session cookie is httpOnly, so this is how the browser knows). */
  loggedIn: boolean;
  children?: ReactNode;
}

/**
 * Owns the page's realtime connection (docs/product.md): opens it when a session exists, re-attempts it whenever the
 * `loggedIn` flag changes (the auth store, e.g. after a login or logout on this page) and closes it when removed.
 */
export default function RealtimeConnection({ loggedIn, children }: RealtimeConnectionProps) {
  const initial = useRef(loggedIn);
  useEffect(() => {
    syncRealtime({ loggedIn: initial.current });
    // `listen` fires on changes only: the server-rendered flag decides the start.
    const off = loggedInStore.listen((value) => syncRealtime({ loggedIn: value }));
    return () => {
      off();
      disconnectRealtime();
    };
  }, []);
  return <>{children}</>;
}
