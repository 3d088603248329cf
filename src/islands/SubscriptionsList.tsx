import { useState } from 'react';
import { useStore } from '@nanostores/react';
import type { SubscriptionItem } from '../../common/schemas/money.js';
import { createSubscriptionsStore } from '../lib/stores/payments.js';

export interface SubscriptionsListProps {
  initial: SubscriptionItem[];
}

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '—');

/** My subscriptions, with cancel (at the end of the paid period). */
export default function SubscriptionsList({ initial }: SubscriptionsListProps) {
  const [subscriptions] = useState(() => createSubscriptionsStore(initial));
  const { items, busy } = useStore(subscriptions.store);
  if (!items.length) {
    return (
      <p className="empty" data-testid="subscriptions-empty">
        No subscriptions yet. <a href="/performers">Find performers</a>
      </p>
    );
  }
  const cancel = async (s: SubscriptionItem) => {
    if (busy) return;
    if (typeof window !== 'undefined' && !window.confirm(`Cancel your subscription to ${s.performer?.name ?? 'this performer'}? You keep access until ${day(s.expiresAt)}.`)) return;
    await subscriptions.cancel(s._id);
  };
  return (
    <table className="money-table money-table--cards" data-testid="subscriptions">
      <thead>
        <tr>
          <th scope="col">Performer</th>
          <th scope="col">Plan</th>
          <th scope="col">Status</th>
          <th scope="col">Access until</th>
          <th scope="col"><span className="sr-only">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        {items.map((s) => (
          <tr key={s._id} data-testid="subscription-row" data-live={String(s.isLive)}>
            <td data-label="Performer">{s.performer ? <a href={`/performers/${s.performer.username}`}>{s.performer.name}</a> : '—'}</td>
            <td data-label="Plan">{s.type}</td>
            <td data-label="Status" data-testid="subscription-status">{s.isLive ? (s.cancelAtPeriodEnd ? 'Cancelled (active until the end of the period)' : 'Active') : s.status}</td>
            <td data-label="Access until">{day(s.expiresAt)}</td>
            <td>
              {s.isLive && !s.cancelAtPeriodEnd && (
                <button type="button" className="btn btn--link" disabled={busy === s._id} onClick={() => cancel(s)} data-testid="subscription-cancel">
                  Cancel
                </button>
              )}
              {!s.isLive && s.performer && <a href={`/performers/${s.performer.username}`}>Subscribe again</a>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
