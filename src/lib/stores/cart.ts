import { persistentAtom } from '@nanostores/persistent';
import { computed } from 'nanostores';
import { registerReset } from './reset.js';

/**
 * The cart (SPEC §3, §4): items `{ _id, quantity }` (quantity defaults to 1) and `total`, the sum of the
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

export const CART_STORAGE_KEY = 'cart';
export const MAX_QUANTITY = 100;
export const MAX_ITEMS = 50;

export interface CartItem {
  _id: string;
  quantity: number;
  name?: string;
  /** Minor units, as shown when added. */
  price?: number;
  type?: 'physical' | 'digital';
  image?: string | null;
  performerId?: string;
}

export interface CartState {
  total: number;
  items: CartItem[];
}

const EMPTY: CartState = { total: 0, items: [] };

export function totalOf(items: readonly CartItem[]): number {
  return items.reduce((n, i) => n + i.quantity, 0);
}

function validQuantity(q: unknown): number | null {
  return typeof q === 'number' && Number.isInteger(q) && q >= 1 ? Math.min(q, MAX_QUANTITY) : null;
}

/** Whatever is in storage, reduced to a valid state (another script or an old version may have written it). */
export function sanitizeCart(value: unknown): CartState {
  const raw = (value as { items?: unknown } | null)?.items;
  if (!Array.isArray(raw)) return { ...EMPTY, items: [] };
  const seen = new Set<string>();
  const items: CartItem[] = [];
  for (const entry of raw) {
    const e = entry as Partial<CartItem> | null;
    if (!e || typeof e._id !== 'string' || !e._id || seen.has(e._id)) continue;
    const quantity = e.quantity === undefined ? 1 : validQuantity(e.quantity);
    if (quantity === null) continue;
    seen.add(e._id);
    items.push({ ...e, _id: e._id, quantity });
    if (items.length >= MAX_ITEMS) break;
  }
  return { total: totalOf(items), items };
}

export const cart = persistentAtom<CartState>(CART_STORAGE_KEY, { ...EMPTY, items: [] }, {
  encode: (value) => JSON.stringify(value),
  decode: (encoded) => {
    try {
      return sanitizeCart(JSON.parse(encoded));
    } catch {
      return { ...EMPTY, items: [] };
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
