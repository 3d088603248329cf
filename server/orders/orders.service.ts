import type { DbOrTrx } from '../db/database.js';
import { AppError, notFound } from '../http/errors.js';
import type { ListResult } from '../../common/schemas/http.js';
import type { OrderLineView, OrderView } from '../../common/schemas/money.js';
import { loadPerformerSummaries, loadUserSummaries } from '../payments/summaries.repository.js';
import { currenciesOfPayments } from '../payments/payments.repository.js';
import type { MoneyMail } from '../payments/money-mail.js';
import { findOrder, itemsOfOrders, listBuyerOrderItems, listOrders, lockOrder, updateDelivery, type DeliveryStatus, type OrderFilters, type OrderRow } from './orders.repository.js';
import { addNotification } from '../notifications/notifications.service.js';

/** Product orders: the buyer sees theirs, the performer the ones of their products and updates delivery. */

type Viewer = { id: string; role: string };

export async function toOrderViews(db: DbOrTrx, rows: OrderRow[]): Promise<OrderView[]> {
  const [items, buyers, performers, currencies] = await Promise.all([
    itemsOfOrders(db, rows.map((r) => r.id)),
    loadUserSummaries(db, rows.map((r) => r.buyerId)),
    loadPerformerSummaries(db, rows.map((r) => r.performerId)),
    currenciesOfPayments(db, rows.map((r) => r.paymentId)),
  ]);
  return rows.map((o) => ({
    _id: o.id, orderNumber: o.orderNumber, paymentId: o.paymentId, buyer: buyers.get(o.buyerId) ?? null, performer: performers.get(o.performerId) ?? null,
    status: o.status ?? 'pending', deliveryStatus: o.deliveryStatus ?? 'created', shippingAddress: o.shippingAddress, trackingCode: o.trackingCode,
    totalPrice: o.totalPrice, currency: currencies.get(o.paymentId) ?? 'USD',
    items: items
      .filter((i) => i.orderId === o.id)
      .map((i) => ({ _id: i.id, productId: i.productId, name: i.name, productType: i.productType, quantity: i.quantity, unitPrice: i.unitPrice, totalPrice: i.totalPrice })),
    createdAt: o.createdAt, updatedAt: o.updatedAt,
  }));
}

export async function searchOrders(db: DbOrTrx, f: OrderFilters): Promise<ListResult<OrderView>> {
  const { rows, total } = await listOrders(db, f);
  return { items: await toOrderViews(db, rows), total };
}

export async function searchBuyerOrderLines(db: DbOrTrx, buyerId: string, f: Parameters<typeof listBuyerOrderItems>[2]): Promise<ListResult<OrderLineView>> {
  const { rows, total } = await listBuyerOrderItems(db, buyerId, f);
  const performers = await loadPerformerSummaries(db, rows.map((r) => r.performerId));
  return {
    items: rows.map((r) => ({
      _id: r.id, productId: r.productId, name: r.name, productType: r.productType, quantity: r.quantity, unitPrice: r.unitPrice, totalPrice: r.totalPrice,
      orderId: r.orderId, orderNumber: r.orderNumber, status: r.status ?? 'pending', deliveryStatus: r.deliveryStatus ?? 'created',
      performer: performers.get(r.performerId) ?? null, createdAt: r.createdAt,
    })),
    total,
  };
}

/** One order, for its buyer, its performer or an admin. */
export async function getOrder(db: DbOrTrx, viewer: Viewer, id: string): Promise<OrderView> {
  const row = await findOrder(db, id);
  if (!row || (row.buyerId !== viewer.id && row.performerId !== viewer.id && viewer.role !== 'admin')) throw notFound('Order');
  return (await toOrderViews(db, [row]))[0]!;
}

/**
 * The performer (or an admin) moves delivery along and sets the tracking code, on paid orders only. In the caller's
 * transaction: the order row is locked before it is compared, so of two updates at once only one sees it move to
 * shipping. `mails`: the buyer's "shipped" mail when the order now ships and did not before, or ships under a new
 * tracking code; the caller sends it after the commit. `notified`: the buyer, when an 'order' notification was written.
 */
export async function updateOrderDelivery(
  db: DbOrTrx,
  viewer: Viewer,
  id: string,
  changes: { deliveryStatus?: DeliveryStatus; trackingCode?: string | null },
): Promise<{ order: OrderView; mails: MoneyMail[]; notified: string | null }> {
  const found = await findOrder(db, id);
  if (!found || (found.performerId !== viewer.id && viewer.role !== 'admin')) throw notFound('Order');
  const row = (await lockOrder(db, id))!;
  if (row.status !== 'paid') throw new AppError(409, 'ORDER_NOT_PAID', `A ${row.status} order cannot be updated`);
  await updateDelivery(db, id, { ...changes, ...(changes.trackingCode !== undefined ? { trackingCode: changes.trackingCode || null } : {}) });
  const after = (await findOrder(db, id))!;
  const shipped = after.deliveryStatus === 'shipping' && (row.deliveryStatus !== 'shipping' || (!!after.trackingCode && after.trackingCode !== row.trackingCode));
  // The buyer's notification: the delivery moved on (or shipped under a new tracking code); pushed by the caller after the commit.
  const notified = after.deliveryStatus !== row.deliveryStatus || shipped;
  if (notified) {
    await addNotification(db, after.buyerId, 'order', { orderId: after.id, status: after.deliveryStatus, url: `/account/orders/${after.id}` });
  }
  const mails: MoneyMail[] = shipped
    ? [{ kind: 'order-shipped', userId: after.buyerId, performerId: after.performerId, orderId: after.id, orderNumber: after.orderNumber, trackingCode: after.trackingCode }]
    : [];
  return { order: (await toOrderViews(db, [after]))[0]!, mails, notified: notified ? after.buyerId : null };
}
