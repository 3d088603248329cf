import { useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import type { OrderView } from '../../common/schemas/money.js';
import type { DeliveryStatus } from '../../common/enums.js';
import { createOrderDeliveryStore } from '../lib/stores/payments.js';

export interface OrderDeliveryProps {
  order: Pick<OrderView, '_id' | 'orderNumber' | 'status' | 'deliveryStatus' | 'trackingCode'>;
}

const statuses: DeliveryStatus[] = ['created', 'processing', 'shipping', 'delivered', 'cancelled'];

/** The performer moves an order's delivery along and sets its tracking code. */
export default function OrderDelivery({ order }: OrderDeliveryProps) {
  const [status, setStatus] = useState<DeliveryStatus>(order.deliveryStatus);
  const [tracking, setTracking] = useState(order.trackingCode ?? '');
  const [delivery] = useState(() => createOrderDeliveryStore(order));
  const { busy } = useStore(delivery.store);
  if (order.status !== 'paid') return <span data-testid="order-delivery-readonly">{order.deliveryStatus}</span>;
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const updated = await delivery.save(status, tracking.trim() || null);
    if (updated) {
      setStatus(updated.deliveryStatus);
      setTracking(updated.trackingCode ?? '');
    }
  };
  return (
    <form className="order-delivery inline-fields" onSubmit={onSubmit} data-testid="order-delivery">
      <select aria-label={`Delivery status of ${order.orderNumber}`} value={status} onChange={(e) => setStatus(e.target.value as DeliveryStatus)} data-testid="delivery-status">
        {statuses.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
      <input aria-label={`Tracking code of ${order.orderNumber}`} placeholder="Tracking code" maxLength={100} value={tracking} onChange={(e) => setTracking(e.target.value)} data-testid="tracking-code" />
      <button className="btn" type="submit" disabled={busy} data-testid="delivery-save">
        {busy ? 'Saving…' : 'Save'}
      </button>
    </form>
  );
}
