import { useEffect } from 'react';
import { useStore } from '@nanostores/react';
import { listenUnread, seedUnread, unreadMessages } from '../../lib/stores/messages.js';

/** The header's messages icon with the unread count, live (`messages/unread`); for signed-in visitors only. */
export default function MessagesLink({ initialCount }: { initialCount: number }) {
  useEffect(() => {
    seedUnread(initialCount);
    return listenUnread();
  }, [initialCount]);
  const count = useStore(unreadMessages) || 0;
  const label = count ? `Messages, ${count} unread` : 'Messages';
  return (
    <a href="/messages" className="messages-link" aria-label={label} title={label} data-testid="messages-link">
      <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" focusable="false">
        <path d="M4 5h16v11H8l-4 4z" fill="none" stroke="currentColor" strokeWidth="2" strokeLinejoin="round" />
      </svg>
      {count ? <span className="messages-link__badge" data-testid="messages-badge">{count > 99 ? '99+' : count}</span> : null}
    </a>
  );
}
