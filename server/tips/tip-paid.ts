import type { DbOrTrx } from '../db/database.js';
import { addNotification } from '../notifications/notifications.service.js';
import type { Notification } from '../payments/settlement.service.js';
import { tipOfPayment } from './tips.repository.js';

/**
 * What a tip adds when its payment is paid, apart from the money (which is the settlement's, as for any item): the
 * performer's notification. Its own module so the settlement can call it without loading the tip checkout.
 */

/** Where the performer sees their tips. */
export const TIPS_URL = '/studio/earnings';

/**
 * The settlement calls this in the transaction that marks a tip's payment paid (once: a payment enters `success` at
 * most once): the performer's notification row, and the live notice to push after the commit. Answers the pushes.
 */
export async function tipPaid(trx: DbOrTrx, payment: { id: string; amount: number; currency: string }): Promise<Notification[]> {
  const tip = await tipOfPayment(trx, payment.id);
  if (!tip) return [];
  const context = tip.contextType && tip.contextType !== 'performer' ? { objectType: tip.contextType, objectId: tip.contextId } : {};
  // A tip given in a conversation leads the performer to that conversation (to answer the fan); others to their earnings.
  const url = tip.contextType === 'conversation' && tip.contextId ? `/messages/${tip.contextId}` : TIPS_URL;
  await addNotification(trx, tip.performerId, 'tip', {
    tipId: tip.id, paymentId: payment.id, amount: payment.amount, actorId: tip.userId, actorName: tip.fanName, ...context, url,
  });
  return [
    {
      userId: tip.performerId,
      event: 'tip/received',
      payload: {
        tipId: tip.id, paymentId: payment.id, amount: payment.amount, currency: payment.currency, actorName: tip.fanName,
        contextType: tip.contextType, contextId: tip.contextId, url,
      },
    },
  ];
}

