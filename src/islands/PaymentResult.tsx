import { useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import type { TransactionItem } from '../../common/schemas/money.js';
import type { PaymentStatus } from '../../common/enums.js';
import { clearCart } from '../lib/stores/cart.js';
import { createPaymentResultStore } from '../lib/stores/payments.js';

export interface PaymentResultProps {
  paymentId: string;
  status: PaymentStatus;
  type: TransactionItem['type'];
  /** Where to look at what was bought. */
  next: { href: string; label: string };
}

const messages: Record<PaymentStatus, string> = {
  pending: 'We are waiting for the payment provider to confirm your payment…',
  success: 'Payment received. Thank you!',
  failed: 'The payment was declined. Nothing was charged.',
  cancelled: 'The payment was cancelled. Nothing was charged.',
  refunded: 'This payment was refunded.',
  chargeback: 'This payment was disputed.',
};

/** The outcome of a checkout: waits (polling) while the provider's webhook has not arrived; empties the cart once paid. */
export default function PaymentResult({ paymentId, status: initial, type, next }: PaymentResultProps) {
  const [payment] = useState(() => createPaymentResultStore(paymentId, initial));
  const status = useStore(payment.status);
  useEffect(() => payment.follow(), [payment, status]);
  useEffect(() => {
    if (status === 'success' && type === 'products') clearCart();
  }, [status, type]);
  return (
    <div className="payment-result" data-testid="payment-result" data-status={status}>
      <p className={status === 'success' ? 'form__success' : status === 'pending' ? '' : 'form__error'} role="status">
        {messages[status]}
      </p>
      {status === 'success' && (
        <a className="btn btn--primary" href={next.href} data-testid="payment-next">
          {next.label}
        </a>
      )}
      {(status === 'failed' || status === 'cancelled') && type === 'products' && (
        <a className="btn" href="/cart">
          Back to the cart
        </a>
      )}
    </div>
  );
}
