import { useState } from 'react';
import { useStore } from '@nanostores/react';
import { buyGallery, buyVideo, pending, pendingKey } from '../lib/stores/payments.js';
import { useMoneyFormat } from './money/useMoney.js';

export interface BuyButtonProps {
  itemType: 'video' | 'gallery';
  itemId: string;
  /** Minor units. */
  price: number;
}

/**
 * Buys a video or a gallery for sale (optionally with a coupon code) through the provider's hosted page. Signed-in
 * buyers only: a guest's paywall is plain links to sign up or log in (src/components/GuestOffer.astro).
 */
export default function BuyButton({ itemType, itemId, price }: BuyButtonProps) {
  const money = useMoneyFormat();
  const key = itemType === 'video' ? pendingKey.video(itemId) : pendingKey.gallery(itemId);
  const busy = Boolean(useStore(pending)[key]);
  const [coupon, setCoupon] = useState('');
  const buy = () => (itemType === 'video' ? buyVideo(itemId, coupon) : buyGallery(itemId, coupon));
  return (
    <div className="form__actions buy-item" data-testid={`buy-${itemType}`}>
      <input aria-label="Coupon code" placeholder="Coupon code" value={coupon} maxLength={64} onChange={(e) => setCoupon(e.target.value)} size={14} />
      <button type="button" className="btn btn--primary" disabled={busy} onClick={() => void buy()} data-testid="buy-button">
        {busy ? 'Redirecting…' : `Buy · ${money(price)}`}
      </button>
    </div>
  );
}
