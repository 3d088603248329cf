import { useStore } from '@nanostores/react';
import { useEffect } from 'react';
import type { RealtimeStatus as Status } from '../../common/realtime.js';
import { realtimeStatus } from '../lib/stores/realtime.js';
import { loggedIn as loggedInStore } from '../lib/stores/auth.js';
import RealtimeConnection from './RealtimeConnection.js';
import { listenForTips } from '../lib/stores/tips.js';
import '../styles/engagement.css';
import { useMounted } from '../lib/use-mounted.js';

const LABELS: Record<Status, string> = {
  initialized: 'Connecting…',
  connected: 'Live',
  disconnected: 'Offline',
  reconnecting: 'Reconnecting…',
  failed: 'Connection problem',
};

export interface RealtimeStatusProps {
  loggedIn: boolean;
}

/** A small dot in the header showing the realtime connection's state; it also owns the connection. */
export function StatusIndicator() {
  const status = useStore(realtimeStatus);
  // The server renders nothing; the state exists only in the browser.
  const mounted = useMounted();
  if (!mounted) return null;
  return (
    <span className="realtime-status" data-testid="realtime-status" data-status={status} title={`Realtime: ${LABELS[status]}`}>
      <span className="realtime-status__dot" aria-hidden="true" />
      <span className="sr-only">{LABELS[status]}</span>
    </span>
  );
}

export default function RealtimeStatus({ loggedIn }: RealtimeStatusProps) {
  const signedIn = useStore(loggedInStore);
  // A performer's open pages say when a tip arrives (only performers are sent `tip/received`).
  useEffect(() => listenForTips(), []);
  return <RealtimeConnection loggedIn={loggedIn}>{loggedIn || signedIn ? <StatusIndicator /> : null}</RealtimeConnection>;
}
