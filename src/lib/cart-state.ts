/**
 * The cart's rules that need no store: the shape kept in localStorage under `cart`, the limits, and how whatever is
 * stored there is reduced to a valid cart. The cart store (src/lib/stores/cart.ts) keeps the cart with them; the
 * header's count (src/islands/CartLink.tsx) reads the stored cart with them without loading the store, which every
 * page would otherwise ship (guests' JavaScript budget).
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

export function validQuantity(q: unknown): number | null {
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

/** The event the cart store raises on this page whenever the cart changes (other tabs raise `storage`). */
export const CART_CHANGED_EVENT = 'cart:changed';

/** The number of items (quantities summed) of the cart stored in this browser; 0 when there is none or no storage. */
export function storedCartCount(): number {
  try {
    return sanitizeCart(JSON.parse(localStorage.getItem(CART_STORAGE_KEY) ?? 'null')).total;
  } catch {
    return 0;
  }
}
