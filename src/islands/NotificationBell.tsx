import { useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { followBellCount, unreadCount } from '../lib/stores/notifications.js';
import { loadMemberHeader } from '../lib/stores/member-header.js';
import { badgeFigure } from '../../common/limits.js';
import '../styles/notifications.css';

export interface NotificationBellProps {
  /**
   * Unread notifications when the page was rendered; `notification/count` keeps it current. Null on a page shown
   * alike to every member: the member header brings it.
   */
  initialCount: number | null;
}

/** The header's bell for a signed-in user: a link to the notifications page with the unread count as a badge. */
export default function NotificationBell({ initialCount }: NotificationBellProps) {
  // The page's figure until hydrated (the server renders it too), then the store's.
  const [mounted, setMounted] = useState(false);
  useEffect(() => {
    if (initialCount === null) void loadMemberHeader();
    else followBellCount(initialCount);
    setMounted(true);
  }, [initialCount]);
  const live = useStore(unreadCount);
  const shown = mounted ? live : (initialCount ?? 0);
  const label = shown ? `Notifications, ${badgeFigure(shown)} unread` : 'Notifications';
  return (
    <a className="bell" href="/notifications" aria-label={label} title={label} data-testid="notification-bell" data-count={shown}>
      <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" focusable="false">
        <path d="M12 3a6 6 0 0 0-6 6v3.6L4.3 15.4A1 1 0 0 0 5.2 17h13.6a1 1 0 0 0 .9-1.6L18 12.6V9a6 6 0 0 0-6-6Zm-2 15a2 2 0 0 0 4 0" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinejoin="round" />
      </svg>
      {shown > 0 ? (
        <span className="bell__badge" data-testid="notification-badge" aria-hidden="true">
          {badgeFigure(shown)}
        </span>
      ) : null}
    </a>
  );
}
