import { countOf } from '../../common/plural.js';
import { useMoneyFormat } from './money/useMoney.js';
import { useCartProducts } from './money/useCartProducts.js';
import { clearCart, MAX_QUANTITY, removeFromCart, updateCartQuantity } from '../lib/stores/cart.js';

/** The cart (docs/product.md): lines with quantities, remove, clear, and on to checkout. */
export default function Cart() {
  const money = useMoneyFormat();
  const { mounted, lines, total, subtotal } = useCartProducts();
  if (!mounted) return <p className="empty">Loading your cart…</p>;
  if (!lines.length) {
    return (
      <p className="empty" data-testid="cart-empty">
        Your cart is empty. <a href="/performers">Find something you like</a>.
      </p>
    );
  }
  return (
    <div className="cart" data-testid="cart">
      <table className="money-table money-table--cards">
        <thead>
          <tr>
            <th scope="col">Product</th>
            <th scope="col">Price</th>
            <th scope="col">Quantity</th>
            <th scope="col">Total</th>
            <th scope="col"><span className="sr-only">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          {lines.map(({ item, product, unitPrice, total: lineTotal }) => (
            <tr key={item._id} data-testid="cart-line">
              <td data-label="Product">
                {product === null ? (
                  <span>{item.name ?? 'Product'} <em>(no longer available)</em></span>
                ) : (
                  <a href={`/products/${item._id}`}>{product?.name ?? item.name ?? 'Product'}</a>
                )}
                {product?.type === 'digital' && <small> · download</small>}
              </td>
              <td data-label="Price">{money(unitPrice)}</td>
              <td data-label="Quantity">
                {product?.type === 'digital' ? (
                  1
                ) : (
                  <input
                    type="number"
                    min={1}
                    max={Math.min(MAX_QUANTITY, product?.stock ?? MAX_QUANTITY)}
                    value={item.quantity}
                    aria-label={`Quantity of ${product?.name ?? item.name ?? 'product'}`}
                    data-testid="cart-quantity"
                    className="qty-input"
                    onChange={(e) => {
                      const q = Number.parseInt(e.target.value, 10);
                      if (Number.isInteger(q) && q >= 1) updateCartQuantity(item._id, q);
                    }}
                  />
                )}
              </td>
              <td data-label="Total">{money(lineTotal)}</td>
              <td>
                <button type="button" className="btn btn--link" onClick={() => removeFromCart(item._id)} data-testid="cart-remove">
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="cart__summary">
        <span data-testid="cart-count">{countOf(total, 'item')}</span> · Subtotal <strong data-testid="cart-subtotal">{money(subtotal)}</strong>
      </p>
      <div className="form__actions">
        <button type="button" className="btn" onClick={() => clearCart()} data-testid="cart-clear">
          Clear cart
        </button>
        <a className="btn btn--primary" href="/checkout" data-testid="cart-checkout">
          Checkout
        </a>
      </div>
    </div>
  );
}
