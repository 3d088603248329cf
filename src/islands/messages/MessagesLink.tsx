import { useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { listenUnread, seedUnread, unreadMessages } from '../../lib/stores/messages.js';
import { loadMemberHeader } from '../../lib/stores/member-header.js';
import { badgeFigure } from '../../../common/limits.js';

/**
 * The header's messages icon with the unread count, live (`messages/unread`); for signed-in visitors only. On a page
 * shown alike to every member the count is not in the page (`initialCount` null): the member header brings it.
 */
export default function MessagesLink({ initialCount }: { initialCount: number | null }) {
  // The first render (on the server, then hydrating) shows the count the page was rendered with: the store may
  // already hold a newer one (the open thread was marked read before this island hydrated), which would not match.
  const [mounted, setMounted] = useState(false);
  useEffect(() => {
    if (initialCount === null) void loadMemberHeader();
    else seedUnread(initialCount);
    setMounted(true);
    return listenUnread();
  }, [initialCount]);
  const live = useStore(unreadMessages) || 0;
  const count = mounted ? live : (initialCount ?? 0);
  const label = count ? `Messages, ${badgeFigure(count)} unread` : 'Messages';
  return (
    <a href="/messages" className="messages-link" aria-label={label} title={label} data-testid="messages-link">
      <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" focusable="false">
        <path d="M4 5h16v11H8l-4 4z" fill="none" stroke="currentColor" strokeWidth="2" strokeLinejoin="round" />
      </svg>
      {count ? <span className="messages-link__badge" data-testid="messages-badge">{badgeFigure(count)}</span> : null}
    </a>
  );
}
