import { useStore } from '@nanostores/react';
import { pending, pendingKey, startSubscription } from '../lib/stores/payments.js';
import { goToLogin, useMoneyFormat } from './money/useMoney.js';

export interface SubscribeButtonProps {
  performerId: string;
  /**
   * Minor units, what the checkout charges (server/subscriptions/subscriptions.service.ts, subscriptionOffer). null:
   * that plan cannot be bought and has no button; 0: the price is not known here (the button shows none).
   */
  monthlyPrice: number | null;
  yearlyPrice: number | null;
  subscribed?: boolean;
  loggedIn: boolean;
}

/** "Subscribe · $4.99/month" (and the yearly plan): creates the checkout and sends the buyer to the provider's page. */
export default function SubscribeButton({ performerId, monthlyPrice, yearlyPrice, subscribed = false, loggedIn }: SubscribeButtonProps) {
  const money = useMoneyFormat();
  const busy = (useStore(pending)[pendingKey.subscribe(performerId)] ?? null) as 'monthly' | 'yearly' | null;
  if (subscribed) {
    return (
      <p className="form__success" data-testid="subscribe-active">
        You are subscribed. <a href="/account/subscriptions">Manage subscriptions</a>
      </p>
    );
  }
  if (monthlyPrice === null && yearlyPrice === null) return null;
  const subscribe = async (type: 'monthly' | 'yearly') => {
    if (!loggedIn) return goToLogin();
    await startSubscription(performerId, type);
  };
  const label = (type: 'monthly' | 'yearly', price: number) =>
    price > 0 ? `Subscribe · ${money(price)}/${type === 'monthly' ? 'month' : 'year'}` : type === 'monthly' ? 'Subscribe monthly' : 'Subscribe yearly';
  return (
    <div className="form__actions subscribe-buttons" data-testid="subscribe-buttons">
      {monthlyPrice !== null && (
        <button type="button" className="btn btn--primary" disabled={busy !== null} onClick={() => subscribe('monthly')} data-testid="subscribe-monthly">
          {busy === 'monthly' ? 'Redirecting…' : label('monthly', monthlyPrice)}
        </button>
      )}
      {yearlyPrice !== null && (
        <button type="button" className={monthlyPrice === null ? 'btn btn--primary' : 'btn'} disabled={busy !== null} onClick={() => subscribe('yearly')} data-testid="subscribe-yearly">
          {busy === 'yearly' ? 'Redirecting…' : label('yearly', yearlyPrice)}
        </button>
      )}
    </div>
  );
}
