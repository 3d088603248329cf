import { useStore } from '@nanostores/react';
import { addToCart, cart } from '../lib/stores/cart.js';
import { toast } from '../lib/stores/toast.js';
import { useMounted } from '../lib/use-mounted.js';

export interface AddToCartButtonProps {
  product: { _id: string; name: string; price: number; type: 'physical' | 'digital'; image?: string | null; performerId?: string };
  inStock: boolean;
  /** A digital product the viewer already owns. */
  owned?: boolean;
}

/** Puts a product in the cart (once; the cart page changes quantities). */
export default function AddToCartButton({ product, inStock, owned = false }: AddToCartButtonProps) {
  const state = useStore(cart);
  // localStorage is only known after hydration: render the server's view first.
  const mounted = useMounted();
  const inCart = mounted && state.items.some((i) => i._id === product._id);
  if (owned) return null;
  if (!inStock) return <p className="empty">Sold out</p>;
  if (inCart) {
    return (
      <p data-testid="in-cart">
        In your cart. <a href="/cart" className="btn btn--link">Go to cart ({state.total})</a>
      </p>
    );
  }
  return (
    <button
      type="button"
      className="btn btn--primary"
      data-testid="add-to-cart"
      onClick={() => {
        if (addToCart({ _id: product._id, name: product.name, price: product.price, type: product.type, image: product.image ?? null, performerId: product.performerId })) {
          toast.success(`${product.name} was added to your cart`);
        }
      }}
    >
      Add to cart
    </button>
  );
}
