import { useState } from 'react';
import { useStore } from '@nanostores/react';
import { buyVideo, pending, pendingKey } from '../lib/stores/payments.js';
import { goToLogin, useMoneyFormat } from './money/useMoney.js';

export interface BuyVideoButtonProps {
  videoId: string;
  price: number;
  loggedIn: boolean;
}

/** Buys a video for sale (optionally with a coupon code) through the provider's hosted page. */
export default function BuyVideoButton({ videoId, price, loggedIn }: BuyVideoButtonProps) {
  const money = useMoneyFormat();
  const busy = Boolean(useStore(pending)[pendingKey.video(videoId)]);
  const [coupon, setCoupon] = useState('');
  const buy = async () => {
    if (!loggedIn) return goToLogin();
    await buyVideo(videoId, coupon);
  };
  return (
    <div className="form__actions buy-video" data-testid="buy-video">
      {loggedIn && (
        <input aria-label="Coupon code" placeholder="Coupon code" value={coupon} maxLength={64} onChange={(e) => setCoupon(e.target.value)} size={14} />
      )}
      <button type="button" className="btn btn--primary" disabled={busy} onClick={buy} data-testid="buy-video-button">
        {busy ? 'Redirecting…' : `Buy · ${money(price)}`}
      </button>
    </div>
  );
}
