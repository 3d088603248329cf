import { persistentAtom } from '@nanostores/persistent';
import { computed } from 'nanostores';
import { registerReset } from './reset.js';
import { CART_CHANGED_EVENT, CART_STORAGE_KEY, MAX_ITEMS, MAX_QUANTITY, sanitizeCart, totalOf, validQuantity, type CartItem, type CartState } from '../cart-state.js';

/**
 * The cart (docs/product.md): items `{ _id, quantity }` (quantity defaults to 1) and `total`, the sum of the
 * quantities. Kept in localStorage under the key `cart` (the whole state as JSON) and shared between tabs.
 *
 *   add     — ignored when an item with the same _id is already there
 *   remove  — by _id
 *   clear
 *   update quantity — an integer; below 1 removes the item, above MAX_QUANTITY is capped
 *
 * Items may carry what the shop showed when they were added (name, price, type, image) so the cart can render at
 * once; prices are always taken again from the server at checkout.
 */

export { CART_STORAGE_KEY, MAX_ITEMS, MAX_QUANTITY, sanitizeCart, totalOf, type CartItem, type CartState } from '../cart-state.js';

export const cart = persistentAtom<CartState>(CART_STORAGE_KEY, { total: 0, items: [] }, {
  encode: (value) => JSON.stringify(value),
  decode: (encoded) => {
    try {
      return sanitizeCart(JSON.parse(encoded));
    } catch {
      return { total: 0, items: [] };
    }
  },
});

export const cartTotal = computed(cart, (s) => s.total);

function set(items: CartItem[]): void {
  cart.set({ total: totalOf(items), items });
}

/** Adds an item (quantity 1 unless given); returns false when an item with that _id is already in the cart. */
export function addToCart(item: Omit<CartItem, 'quantity'> & { quantity?: number }): boolean {
  const { items } = cart.get();
  if (!item._id || items.some((i) => i._id === item._id) || items.length >= MAX_ITEMS) return false;
  const quantity = item.quantity === undefined ? 1 : validQuantity(item.quantity);
  if (quantity === null) return false;
  set([...items, { ...item, quantity }]);
  return true;
}

export function removeFromCart(id: string): void {
  const { items } = cart.get();
  if (items.some((i) => i._id === id)) set(items.filter((i) => i._id !== id));
}

export function clearCart(): void {
  set([]);
}

/** Sets an item's quantity (integer). Below 1 removes it; above MAX_QUANTITY is capped; anything else is ignored. */
export function updateCartQuantity(id: string, quantity: number): void {
  const { items } = cart.get();
  if (!items.some((i) => i._id === id) || typeof quantity !== 'number' || !Number.isFinite(quantity) || !Number.isInteger(quantity)) return;
  if (quantity < 1) return removeFromCart(id);
  set(items.map((i) => (i._id === id ? { ...i, quantity: Math.min(quantity, MAX_QUANTITY) } : i)));
}

export function isInCart(id: string): boolean {
  return cart.get().items.some((i) => i._id === id);
}

registerReset('cart', clearCart);

// The header's count reads the stored cart without this store (src/islands/CartLink.tsx): tell it when this page
// changes the cart. The store writes localStorage before it tells its listeners, so the count reads the new cart.
if (typeof window !== 'undefined') cart.listen(() => window.dispatchEvent(new Event(CART_CHANGED_EVENT)));
