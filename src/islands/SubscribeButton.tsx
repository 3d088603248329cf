import { useStore } from '@nanostores/react';
import { pending, pendingKey, startSubscription } from '../lib/stores/payments.js';
import { goToLogin, useMoneyFormat } from './money/useMoney.js';

export interface SubscribeButtonProps {
  performerId: string;
  /** Minor units; 0 = the site's package price applies (shown as "Subscribe"). */
  monthlyPrice: number;
  yearlyPrice: number;
  subscribed?: boolean;
  loggedIn: boolean;
}

/** Monthly / yearly subscription: creates the checkout and sends the buyer to the provider's hosted page. */
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
  const subscribe = async (type: 'monthly' | 'yearly') => {
    if (!loggedIn) return goToLogin();
    await startSubscription(performerId, type);
  };
  const label = (type: 'monthly' | 'yearly', price: number) =>
    `${type === 'monthly' ? 'Subscribe monthly' : 'Subscribe yearly'}${price > 0 ? ` · ${money(price)}` : ''}`;
  return (
    <div className="form__actions subscribe-buttons" data-testid="subscribe-buttons">
      <button type="button" className="btn btn--primary" disabled={busy !== null} onClick={() => subscribe('monthly')} data-testid="subscribe-monthly">
        {busy === 'monthly' ? 'Redirecting…' : label('monthly', monthlyPrice)}
      </button>
      <button type="button" className="btn" disabled={busy !== null} onClick={() => subscribe('yearly')} data-testid="subscribe-yearly">
        {busy === 'yearly' ? 'Redirecting…' : label('yearly', yearlyPrice)}
      </button>
    </div>
  );
}
