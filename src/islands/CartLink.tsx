import { useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { cartTotal } from '../lib/stores/cart.js';

/** How the count is said: "Cart", "Cart, 1 item", "Cart, 3 items". */
export function cartLabel(count: number): string {
  return count > 0 ? `Cart, ${count} ${count === 1 ? 'item' : 'items'}` : 'Cart';
}

/**
 * The header's cart link with the number of items in the cart (rendered by the UserMenu island). The cart lives in this browser's localStorage, so
 * the server renders the link without a count and the count appears once the island has hydrated (rendering it
 * during hydration would not match the server's markup). It follows the store, other tabs included.
 */
export default function CartLink() {
  const total = useStore(cartTotal);
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  const count = mounted ? total : 0;
  return (
    <a className="cart-link" href="/cart" aria-label={cartLabel(count)} data-testid="cart-link" data-count={mounted ? count : undefined}>
      <svg className="cart-link__icon" viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" focusable="false">
        <path d="M3 4h2.2l2.1 10.2a2 2 0 0 0 2 1.6h7.6a2 2 0 0 0 2-1.5L20.5 8H6.4" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
        <circle cx="10" cy="19.5" r="1.5" fill="currentColor" />
        <circle cx="17" cy="19.5" r="1.5" fill="currentColor" />
      </svg>
      {count > 0 && (
        <span className="cart-link__count" data-testid="cart-count" aria-hidden="true">
          {count > 99 ? '99+' : count}
        </span>
      )}
    </a>
  );
}
