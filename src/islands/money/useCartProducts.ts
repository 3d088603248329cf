import { useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import type { ProductItem } from '../../../common/schemas/catalogue.js';
import { ApiError } from '../../lib/api/error.js';
import { checkout } from '../../lib/stores/payments.js';
import { cart, type CartItem } from '../../lib/stores/cart.js';
import { useMounted } from '../../lib/use-mounted.js';

export interface CartLine {
  item: CartItem;
  /** Fresh from the server; null when the product is gone; undefined while loading. */
  product: ProductItem | null | undefined;
  unitPrice: number;
  total: number;
}

/** The cart's items with their current product data (prices are always the server's). */
export function useCartProducts() {
  const state = useStore(cart);
  const mounted = useMounted();
  const [products, setProducts] = useState<Record<string, ProductItem | null>>({});
  const ids = state.items.map((i) => i._id).join(',');
  useEffect(() => {
    let alive = true;
    const missing = state.items.map((i) => i._id).filter((id) => !(id in products));
    for (const id of missing) {
      checkout.product(id).then(
        (p) => alive && setProducts((all) => ({ ...all, [id]: p })),
        (err) => alive && err instanceof ApiError && err.status === 404 && setProducts((all) => ({ ...all, [id]: null })),
      );
    }
    return () => {
      alive = false;
    };
  }, [ids]);
  const lines: CartLine[] = (mounted ? state.items : []).map((item) => {
    const product = products[item._id];
    const unitPrice = product?.price ?? item.price ?? 0;
    return { item, product, unitPrice, total: unitPrice * item.quantity };
  });
  const loading = lines.some((l) => l.product === undefined);
  return { mounted, lines, total: mounted ? state.total : 0, subtotal: lines.reduce((n, l) => n + l.total, 0), loading };
}
