import { useEffect, useMemo, useState } from 'react';
import { useStore } from '@nanostores/react';
import type { ListResult } from '../../common/schemas/http.js';
import type { NotificationItem } from '../../common/schemas/notifications.js';
import { createNotificationList } from '../lib/stores/notifications.js';
import '../styles/notifications.css';

export interface NotificationListProps {
  initial: ListResult<NotificationItem>;
  pageSize: number;
  /** The server's clock when it rendered the page: the first render in the browser must print the same "min ago". */
  renderedAt: number;
}

const timeFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });

/** "5 min ago" for the last hour, then the day and time in UTC (the same text on the server and in the browser). */
function when(iso: string, now: number): string {
  const ms = now - Date.parse(iso);
  if (ms < 60_000) return 'just now';
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ago`;
  return timeFormat.format(new Date(iso));
}

/**
 * The notifications page's list: newest first, unread ones marked, a click marks it read and follows its link; new ones
 * arrive on top while the page is open; "Mark all read"; more by cursor.
 */
export default function NotificationList({ initial, pageSize, renderedAt }: NotificationListProps) {
  const list = useMemo(() => createNotificationList(initial, pageSize), []);
  const state = useStore(list.store);
  useEffect(() => list.listen(), [list]);
  // Hydration must print what the server printed ("just now" may have become "1 min ago" since): the server's clock
  // first, then the browser's, moving on each minute.
  const [now, setNow] = useState(renderedAt);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  const unread = state.items.filter((i) => !i.read).length;

  const follow = async (event: React.MouseEvent<HTMLAnchorElement>, item: NotificationItem) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    await list.markRead(item._id);
    window.location.assign(item.url);
  };

  return (
    <div className="notifications" data-testid="notification-list">
      <div className="notifications__bar">
        <p className="notifications__summary" role="status" data-testid="notification-unread">
          {unread ? `${unread} unread` : 'All caught up'}
        </p>
        <button type="button" className="btn" onClick={() => void list.markAllRead()} disabled={!unread} data-testid="notification-read-all">
          Mark all read
        </button>
      </div>
      {state.items.length === 0 ? (
        <p className="empty" data-testid="notification-empty">No notifications yet.</p>
      ) : (
        <ul className="notifications__items">
          {state.items.map((item) => (
            <li key={item._id} className={item.read ? 'notification' : 'notification is-unread'} data-testid="notification-item" data-read={item.read} data-type={item.type}>
              <a className="notification__link" href={item.url} onClick={(e) => void follow(e, item)}>
                {item.read ? null : <span className="sr-only">Unread: </span>}
                <span className="notification__text">{item.text}</span>
                <time className="notification__time" dateTime={item.createdAt}>
                  {when(item.createdAt, now)}
                </time>
              </a>
            </li>
          ))}
        </ul>
      )}
      {state.error ? <p className="form__error" role="alert">{state.error}</p> : null}
      {state.nextCursor ? (
        <p className="listing__more">
          <button type="button" className="btn" onClick={() => void list.loadMore()} disabled={state.requesting} data-testid="notification-more">
            {state.requesting ? 'Loading…' : 'More'}
          </button>
        </p>
      ) : null}
    </div>
  );
}
