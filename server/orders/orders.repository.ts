import type { Insertable, Selectable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { offsetPage } from '../catalogue/catalogue.repository.js';
import { nowIso } from '../db/ids.js';
import type { OrderItemsTable, OrdersTable } from '../db/schema.js';
import type { ProductType } from '../../common/enums.js';

/** SQL of product orders: one order per performer per payment (orders_payment_performer_uq). */

export type OrderRow = Selectable<OrdersTable>;
export type OrderItemRow = Selectable<OrderItemsTable>;
export type DeliveryStatus = OrderRow['deliveryStatus'];
export type OrderStatus = OrderRow['status'];

export async function insertOrder(db: DbOrTrx, order: Insertable<OrdersTable>, items: Array<Insertable<OrderItemsTable>>): Promise<void> {
  await db.insertInto('orders').values(order).execute();
  if (items.length) await db.insertInto('orderItems').values(items).execute();
}

export function findOrder(db: DbOrTrx, id: string) {
  return db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst();
}

export function ordersOfPayment(db: DbOrTrx, paymentId: string) {
  return db.selectFrom('orders').selectAll().where('paymentId', '=', paymentId).orderBy('id').execute();
}

export function itemsOfOrders(db: DbOrTrx, orderIds: readonly string[]) {
  if (!orderIds.length) return Promise.resolve([] as OrderItemRow[]);
  return db.selectFrom('orderItems').selectAll().where('orderId', 'in', [...orderIds]).orderBy('id').execute();
}

/** Settlement: the orders of a payment move together (pending|cancelled → paid, pending → cancelled, paid → refunded). */
export async function markOrdersPaid(db: DbOrTrx, paymentId: string): Promise<void> {
  const now = nowIso();
  const orders = await ordersOfPayment(db, paymentId);
  const items = await itemsOfOrders(db, orders.map((o) => o.id));
  for (const o of orders) {
    if (o.status !== 'pending' && o.status !== 'cancelled') continue;
    // Digital-only orders are delivered the moment they are paid (the download opens).
    const digitalOnly = items.filter((i) => i.orderId === o.id).every((i) => i.productType === 'digital');
    await db
      .updateTable('orders')
      .set({ status: 'paid', deliveryStatus: digitalOnly ? 'delivered' : 'created', updatedAt: now })
      .where('id', '=', o.id)
      .where('status', 'in', ['pending', 'cancelled'])
      .execute();
  }
}

export async function markOrdersCancelled(db: DbOrTrx, paymentId: string): Promise<void> {
  await db
    .updateTable('orders')
    .set({ status: 'cancelled', deliveryStatus: 'cancelled', updatedAt: nowIso() })
    .where('paymentId', '=', paymentId)
    .where('status', '=', 'pending')
    .execute();
}

export async function markOrdersRefunded(db: DbOrTrx, paymentId: string): Promise<void> {
  await db.updateTable('orders').set({ status: 'refunded', updatedAt: nowIso() }).where('paymentId', '=', paymentId).where('status', '=', 'paid').execute();
}

/** Locks an order's row (see lockPayment) and returns it as it is once the lock is held. */
export async function lockOrder(db: DbOrTrx, id: string): Promise<OrderRow | undefined> {
  await db.updateTable('orders').set({ updatedAt: nowIso() }).where('id', '=', id).execute();
  return findOrder(db, id);
}

export async function updateDelivery(db: DbOrTrx, id: string, changes: { deliveryStatus?: DeliveryStatus; trackingCode?: string | null }): Promise<void> {
  await db.updateTable('orders').set({ ...changes, updatedAt: nowIso() }).where('id', '=', id).execute();
}

// -----------------------------------------------------------------------------------------------------------------
// Lists.

export interface OrderFilters {
  buyerId?: string;
  performerId?: string;
  status?: OrderStatus;
  deliveryStatus?: DeliveryStatus;
  q?: string;
  limit: number;
  offset: number;
}

function filtered(db: DbOrTrx, f: OrderFilters) {
  let base = db.selectFrom('orders');
  if (f.buyerId) base = base.where('orders.buyerId', '=', f.buyerId);
  if (f.performerId) base = base.where('orders.performerId', '=', f.performerId);
  if (f.status) base = base.where('orders.status', '=', f.status);
  if (f.deliveryStatus) base = base.where('orders.deliveryStatus', '=', f.deliveryStatus);
  if (f.q) base = base.where('orders.orderNumber', '=', f.q.toUpperCase());
  return base;
}

export async function listOrders(db: DbOrTrx, f: OrderFilters) {
  const base = filtered(db, f);
  const { rows, total } = await offsetPage(base, f, (qb) => qb.selectAll('orders').orderBy('orders.createdAt', 'desc').orderBy('orders.id', 'desc'));
  return { rows, total };
}

/** A buyer's order lines across orders, newest first. */
export async function listBuyerOrderItems(db: DbOrTrx, buyerId: string, f: { status?: OrderStatus; productType?: ProductType; limit: number; offset: number }) {
  let base = db.selectFrom('orderItems').innerJoin('orders', 'orders.id', 'orderItems.orderId').where('orders.buyerId', '=', buyerId);
  if (f.status) base = base.where('orders.status', '=', f.status);
  if (f.productType) base = base.where('orderItems.productType', '=', f.productType);
  const { rows, total } = await offsetPage(base, f, (qb) =>
    qb
      .selectAll('orderItems')
      .select(['orders.orderNumber', 'orders.status', 'orders.deliveryStatus', 'orders.performerId', 'orders.createdAt'])
      .orderBy('orders.createdAt', 'desc')
      .orderBy('orderItems.id', 'desc')
  );
  return { rows, total };
}
