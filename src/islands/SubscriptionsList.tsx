import { useState } from 'react';
import { useStore } from '@nanostores/react';
import type { SubscriptionItem } from '../../common/schemas/money.js';
import { createSubscriptionsStore } from '../lib/stores/payments.js';
import { formatMoney } from '../../common/money.js';

export interface SubscriptionsListProps {
  initial: SubscriptionItem[];
  /** The site's currency and its symbol: other currencies are written with their code. */
  currency?: string;
  currencySymbol?: string;
}

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '—');

/** The plan in words: "Monthly", "Yearly", or a bundle's "3 months". */
const planName = (s: SubscriptionItem) => (s.bundleMonths ? `${s.bundleMonths} months` : s.type === 'yearly' ? 'Yearly' : 'Monthly');

/** What the next period will cost and when, or why there is none. */
function billing(s: SubscriptionItem, price: (minor: number, currency: string | null) => string): string {
  if (s.renewalFailedAt) return `Payment failed: we retry until ${day(s.graceUntil)}, then the subscription ends`;
  if (s.nextBillingAt && s.renewalAmount != null) return `Renews ${day(s.nextBillingAt)} for ${price(s.renewalAmount, s.renewalCurrency)}`;
  if (s.isLive) return s.cancelAtPeriodEnd ? `Ends ${day(s.expiresAt)}, no further charge` : `Ends ${day(s.expiresAt)} (paid once, does not renew)`;
  return '—';
}

/** My subscriptions: when each renews and for how much, with cancel (no further charge; access to the end of the paid period). */
export default function SubscriptionsList({ initial, currency = 'USD', currencySymbol = '$' }: SubscriptionsListProps) {
  const price = (minor: number, code: string | null) => formatMoney(minor, !code || code === currency ? currencySymbol : `${code} `);
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
    const until = s.isLive ? ` You keep access until ${day(s.expiresAt)}.` : '';
    if (typeof window !== 'undefined' && !window.confirm(`Cancel your subscription to ${s.performer?.name ?? 'this performer'}? You will not be charged again.${until}`)) return;
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
          <th scope="col">Billing</th>
          <th scope="col"><span className="sr-only">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        {items.map((s) => (
          <tr key={s._id} data-testid="subscription-row" data-live={String(s.isLive)}>
            <td data-label="Performer">{s.performer ? <a href={`/performers/${s.performer.username}`}>{s.performer.name}</a> : '—'}</td>
            <td data-label="Plan" data-testid="subscription-plan">{planName(s)}</td>
            <td data-label="Status" data-testid="subscription-status">
              {s.isLive ? (s.cancelAtPeriodEnd ? 'Cancelled (active until the end of the period)' : 'Active') : s.renewalFailedAt ? 'Payment failed' : s.status}
            </td>
            <td data-label="Access until">{s.isLive ? day(s.expiresAt) : '—'}</td>
            <td data-label="Billing" data-testid="subscription-billing">{billing(s, price)}</td>
            <td>
              {((s.isLive && !s.cancelAtPeriodEnd) || s.autoRenew) && (
                <button type="button" className="btn btn--link" disabled={busy === s._id} onClick={() => cancel(s)} data-testid="subscription-cancel">
                  Cancel
                </button>
              )}
              {!s.isLive && !s.autoRenew && s.performer && <a href={`/performers/${s.performer.username}`}>Subscribe again</a>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
