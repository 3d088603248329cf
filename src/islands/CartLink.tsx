import { useEffect, useState } from 'react';
import { CART_CHANGED_EVENT, storedCartCount } from '../lib/cart-state.js';
import { countOf } from '../../common/plural.js';

/** How the count is said: "Cart", "Cart, 1 item", "Cart, 3 items". */
export function cartLabel(count: number): string {
  return count > 0 ? `Cart, ${countOf(count, 'item')}` : 'Cart';
}

/**
 * The header's cart link with the number of items in the cart (rendered by the UserMenu island, on every page). The
 * cart lives in this browser's localStorage, so the server renders the link without a count and the count appears
 * once hydrated (rendering it while hydrating would not match the server's markup). It reads the stored cart rather
 * than loading the cart store, which pages without a cart button do not need: the store announces this page's
 * changes (CART_CHANGED_EVENT), the browser other tabs' (`storage`).
 */
export default function CartLink() {
  const [count, setCount] = useState<number | null>(null);
  useEffect(() => {
    const update = () => setCount(storedCartCount());
    update();
    window.addEventListener(CART_CHANGED_EVENT, update);
    window.addEventListener('storage', update);
    return () => {
      window.removeEventListener(CART_CHANGED_EVENT, update);
      window.removeEventListener('storage', update);
    };
  }, []);
  return (
    <a className="cart-link" href="/cart" aria-label={cartLabel(count ?? 0)} data-testid="cart-link" data-count={count ?? undefined}>
      {count !== null && count > 0 && (
        <span className="cart-link__count" data-testid="header-cart-count" aria-hidden="true">
          {count > 99 ? '99+' : count}
        </span>
      )}
    </a>
  );
}
