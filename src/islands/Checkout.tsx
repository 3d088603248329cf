import { useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import type { ApplyCouponResponse } from '../../common/schemas/money.js';
import { ApiError, errorMessage } from '../lib/api/error.js';
import { checkout as checkoutRequests } from '../lib/stores/payments.js';
import { navigate } from '../lib/navigation.js';
import { toast } from '../lib/stores/toast.js';
import { ui } from '../lib/stores/ui.js';
import { Field, FormAlert } from './shared/Field.js';
import { useMoneyFormat } from './money/useMoney.js';
import { useCartProducts } from './money/useCartProducts.js';

/**
 * Checkout of the cart: shipping address when a physical product is in it, an optional coupon, then the order is
 * created (stock held) and the buyer goes to the provider's hosted page. The cart is emptied once paid.
 */
export default function Checkout() {
  const money = useMoneyFormat();
  const { currency } = useStore(ui);
  const { mounted, lines, subtotal, loading } = useCartProducts();
  const [address, setAddress] = useState('');
  const [code, setCode] = useState('');
  const [applied, setApplied] = useState<ApplyCouponResponse | null>(null);
  const [errors, setErrors] = useState<{ address?: string; coupon?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);

  if (!mounted) return <p className="empty">Loading your cart…</p>;
  const available = lines.filter((l) => l.product);
  if (!lines.length) {
    return (
      <p className="empty" data-testid="checkout-empty">
        Your cart is empty. <a href="/performers">Find something you like</a>.
      </p>
    );
  }
  const physical = available.some((l) => l.product?.type === 'physical');
  const items = available.map((l) => ({ _id: l.item._id, quantity: l.item.quantity }));

  const applyCoupon = async () => {
    setErrors((e) => ({ ...e, coupon: undefined }));
    if (!code.trim()) return setApplied(null);
    try {
      setApplied(await checkoutRequests.applyCoupon(code.trim(), { items }));
    } catch (err) {
      setApplied(null);
      setErrors((e) => ({ ...e, coupon: errorMessage(err, 'This coupon cannot be used') }));
    }
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    setErrors({});
    if (physical && address.trim().length < 5) return setErrors({ address: 'Enter a full shipping address' });
    setBusy(true);
    try {
      const checkout = await checkoutRequests.purchaseProducts({
        items,
        ...(physical ? { shippingAddress: address.trim() } : {}),
        ...(applied ? { couponCode: applied.coupon.code } : {}),
      });
      navigate(checkout.redirectUrl);
    } catch (err) {
      setBusy(false);
      const fields = err instanceof ApiError ? err.fieldErrors() : {};
      if (fields.shippingAddress) return setErrors({ address: fields.shippingAddress });
      if (fields.couponCode) return setErrors({ coupon: fields.couponCode });
      const message = errorMessage(err, 'Could not place the order, please try again');
      setErrors({ form: message });
      toast.error(message);
    }
  };

  const total = applied?.price ?? subtotal;
  return (
    <form className="form checkout" onSubmit={onSubmit} data-testid="checkout-form" aria-busy={busy}>
      <ul className="checkout__lines">
        {lines.map((l) => (
          <li key={l.item._id} data-testid="checkout-line">
            {l.product?.name ?? l.item.name ?? 'Product'} × {l.item.quantity} — {l.product === null ? <em>no longer available</em> : money(l.total)}
          </li>
        ))}
      </ul>
      {physical && (
        <Field label="Shipping address" error={errors.address} hint="Name, street, city, postcode and country">
          {(p) => <textarea {...p} name="shippingAddress" rows={3} maxLength={500} required value={address} onChange={(e) => setAddress(e.target.value)} data-testid="shipping-address" />}
        </Field>
      )}
      <Field label="Coupon code" error={errors.coupon}>
        {(p) => (
          <div className="inline-fields">
            <input {...p} name="couponCode" maxLength={64} value={code} onChange={(e) => setCode(e.target.value)} data-testid="coupon-code" />
            <button type="button" className="btn" onClick={applyCoupon} data-testid="coupon-apply">
              Apply
            </button>
          </div>
        )}
      </Field>
      {applied && (
        <p className="form__success" data-testid="coupon-applied">
          {applied.coupon.name}: −{money(applied.discount ?? 0)} ({Math.round(applied.coupon.value * 10000) / 100} % off)
        </p>
      )}
      <p className="cart__summary">
        Total <strong data-testid="checkout-total">{money(total)}</strong> <small>({currency})</small>
      </p>
      <FormAlert message={errors.form} />
      <div className="form__actions">
        <a className="btn btn--link" href="/cart">Back to cart</a>
        <button className="btn btn--primary" type="submit" disabled={busy || loading || !available.length} data-testid="checkout-submit">
          {busy ? 'Redirecting to payment…' : `Pay ${money(total)}`}
        </button>
      </div>
    </form>
  );
}
