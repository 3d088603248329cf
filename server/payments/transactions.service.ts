import type { DbOrTrx } from '../db/database.js';
import { nowIso } from '../db/ids.js';
import { notFound } from '../http/errors.js';
import type { ListResult } from '../../common/schemas/http.js';
import type { TransactionItem } from '../../common/schemas/money.js';
import { findPayment, listUserPayments, type PaymentRow, type TransactionFilters } from './payments.repository.js';
import { paymentDetails } from './settlement.service.js';
import { loadPerformerSummaries } from './summaries.repository.js';
import type { SandboxGateway } from './sandbox.gateway.js';

/** A user's payments, as "transactions" (docs/product.md, Money). */

export async function toTransactions(db: DbOrTrx, rows: PaymentRow[]): Promise<TransactionItem[]> {
  const performers = await loadPerformerSummaries(db, rows.map((r) => r.performerId).filter((x): x is string => !!x));
  const now = nowIso();
  return rows.map((p) => {
    const details = paymentDetails(p);
    const open = p.status === 'pending' && !!p.expiresAt && p.expiresAt > now;
    return {
      _id: p.id,
      type: p.type,
      status: p.status,
      gateway: p.gateway,
      description: typeof details.description === 'string' ? details.description : p.type,
      originalPrice: p.originalPrice,
      discount: p.discount,
      amount: p.amount,
      refundedAmount: p.refundedAmount,
      currency: p.currency,
      couponCode: typeof details.couponCode === 'string' ? details.couponCode : null,
      performer: (p.performerId && performers.get(p.performerId)) || null,
      targetId: p.targetId,
      checkoutUrl: open ? p.checkoutUrl : null,
      expiresAt: p.expiresAt,
      paidAt: p.paidAt,
      createdAt: p.createdAt,
    };
  });
}

export async function userTransactions(db: DbOrTrx, userId: string, f: TransactionFilters): Promise<ListResult<TransactionItem>> {
  const { rows, total } = await listUserPayments(db, userId, f);
  return { items: await toTransactions(db, rows), total };
}

/** One payment, for its buyer (and admins). */
export async function paymentStatus(db: DbOrTrx, viewer: { id: string; role: string }, id: string): Promise<TransactionItem> {
  const p = await findPayment(db, id);
  if (!p || (p.userId !== viewer.id && viewer.role !== 'admin')) throw notFound('Payment');
  return (await toTransactions(db, [p]))[0]!;
}

/**
 * A sandbox checkout as the provider's hosted page shows it to its buyer: the charge and its payment, or undefined
 * when there is none or it is someone else's (the page and its buttons are the buyer's only).
 */
export async function buyersSandboxCheckout(db: DbOrTrx, sandbox: Pick<SandboxGateway, 'charge'>, chargeId: string, buyerId: string) {
  const charge = await sandbox.charge(chargeId);
  const payment = charge ? await findPayment(db, charge.paymentId) : undefined;
  if (!charge || !payment || payment.gateway !== 'sandbox' || payment.userId !== buyerId) return undefined;
  return { charge, payment };
}
