import { useState } from 'react';
import { useStore } from '@nanostores/react';
import { buyPost, pending, pendingKey } from '../lib/stores/payments.js';
import { goToLogin, useMoneyFormat } from './money/useMoney.js';

export interface BuyPostButtonProps {
  postId: string;
  price: number;
  loggedIn: boolean;
}

/** Buys a pay-per-view post (optionally with a coupon code) through the provider's hosted page. */
export default function BuyPostButton({ postId, price, loggedIn }: BuyPostButtonProps) {
  const money = useMoneyFormat();
  const busy = Boolean(useStore(pending)[pendingKey.post(postId)]);
  const [coupon, setCoupon] = useState('');
  const buy = async () => {
    if (!loggedIn) return goToLogin();
    await buyPost(postId, coupon);
  };
  return (
    <div className="form__actions buy-video" data-testid="buy-post">
      {loggedIn && (
        <input aria-label="Coupon code" placeholder="Coupon code" value={coupon} maxLength={64} onChange={(e) => setCoupon(e.target.value)} size={14} />
      )}
      <button type="button" className="btn btn--primary" disabled={busy} onClick={buy} data-testid="buy-post-button">
        {busy ? 'Redirecting…' : `Buy · ${money(price)}`}
      </button>
    </div>
  );
}
