import type { DbOrTrx } from '../db/database.js';
import { addNotification, buyerName } from '../notifications/notifications.service.js';
import type { PaymentItemRow, PaymentRow } from './payments.repository.js';

/**
 * The performers' notifications of a settled payment (server/notifications/README.md), written by `settlePaid` in the
 * settlement's transaction: a repeated provider event never gets this far (its unique key stops it), and a payment
 * paid twice is `already_paid`, so each sale is told once. A payment given back in the same transaction (out of stock,
 * or its refund came first) is not news and tells nobody.
 */

/** A new paid subscriber: the performer's 'subscriber' notification. */
export async function notifyNewSubscriber(trx: DbOrTrx, p: PaymentRow, performerId: string, subscriptionId: string): Promise<void> {
  await addNotification(trx, performerId, 'subscriber', { subscriptionId, actorId: p.userId, actorName: await buyerName(trx, p.userId), url: '/studio' });
}

/** What is sold as an item: a payment of anything else (a subscription, a tip) is told by its own notification. */
const SOLD_ITEMS: ReadonlySet<string> = new Set(['video', 'gallery', 'post', 'message', 'product']);

/**
 * An item sold: one 'purchase' notification per performer of the payment's items, with their part of the amount.
 * Returns the performers told.
 */
export async function notifySale(trx: DbOrTrx, p: PaymentRow, items: readonly PaymentItemRow[], description: string): Promise<string[]> {
  const byPerformer = new Map<string, PaymentItemRow[]>();
  for (const item of items) {
    if (!item.performerId || !SOLD_ITEMS.has(item.objectType)) continue;
    byPerformer.set(item.performerId, [...(byPerformer.get(item.performerId) ?? []), item]);
  }
  if (!byPerformer.size) return [];
  const actorName = await buyerName(trx, p.userId);
  for (const [performerId, own] of byPerformer) {
    const amount = own.reduce((sum, i) => sum + i.unitPrice * i.quantity - i.discount, 0);
    // The checkout's description names the whole payment; a cart shared with other performers is told by its count.
    const title = own.length === items.length ? description : `${own.reduce((n, i) => n + i.quantity, 0)} items`;
    const url = own.some((i) => i.objectType === 'product') ? '/studio/orders' : '/studio/earnings';
    await addNotification(trx, performerId, 'purchase', { paymentId: p.id, actorName, title, amount, url });
  }
  return [...byPerformer.keys()];
}
