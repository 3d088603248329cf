import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import type { DbOrTrx } from '../db/database.js';
import { newId } from '../db/ids.js';
import { AppError, notFound } from '../http/errors.js';
import { decryptSecret, encryptSecret } from '../settings/secrets.js';
import type { SettingsService } from '../settings/settings.service.js';
import { OPEN_PAYOUT_STATUSES, type PayoutStatus } from '../../common/enums.js';
import { formatMoney } from '../../common/money.js';
import { maskAccount, maskEmail } from '../../common/payout-details.js';
import type { ListResult } from '../../common/schemas/http.js';
import type { PayoutAccount, PayoutBalance, PayoutDetailsAnswer, PayoutDetailsInput, PayoutDetailsView, PayoutRequest } from '../../common/schemas/money.js';
import type { AdminPayoutRequest, PayoutDetailsFull } from '../../common/schemas/admin.js';
import { lockPerformer } from '../studio/studio.repository.js';
import { claimAvailableEarnings, claimUnpaidEarnings, markPayoutEarningsPaid, payoutBalance, payoutTotal, releasePayoutEarnings } from '../earnings/earnings.repository.js';
import { sendMoneyMails, type MoneyMailDeps } from '../payments/money-mail.js';
import {
  findOpenPayout, findPayout, findPayoutDetails, insertPayout, listPayoutQueue, listPerformerPayouts, payoutRecipient, setPayoutAmount, transitionPayout, upsertPayoutDetails,
  type PayoutQueueFilters, type PayoutRow,
} from './payouts.repository.js';
import { DAY_MS } from '../../common/time.js';
import { addNotification, pushNotificationCount } from '../notifications/notifications.service.js';

/**
 * Payouts (server/payments/README.md, "Payouts"): a performer's payout details, their balance, a request of the
 * available balance, and the admin's approve / reject / pay. Functions take a `DbOrTrx`; the routes own the
 * transaction, and every change here is meant to run inside one.
 */


/** The site's payout rules, from the settings (admin: payment settings). */
export interface PayoutRules {
  holdDays: number;
  minimum: number;
  currency: string;
  /** For messages: "$50.00". */
  symbol: string;
}

export async function payoutRules(settings: Pick<SettingsService, 'get'>): Promise<PayoutRules> {
  return {
    holdDays: Number(await settings.get('payoutHoldDays')),
    minimum: Number(await settings.get('payoutMinimum')),
    currency: String(await settings.get('currency')),
    symbol: String(await settings.get('currencySymbol')),
  };
}

/** Earnings credited at or before this instant are past the hold. */
export function holdCutoff(holdDays: number, now: Date): string {
  return new Date(now.getTime() - holdDays * DAY_MS).toISOString();
}

// ---------------------------------------------------------------------------------------------------------------
// Payout details

/** The stored details, decrypted; null when there are none or they cannot be read (APP_SECRET changed: ask again). */
function readDetails(appSecret: string, stored: string | null | undefined): PayoutDetailsInput | null {
  const plain = decryptSecret(appSecret, stored);
  if (!plain) return null;
  try {
    return JSON.parse(plain) as PayoutDetailsInput;
  } catch {
    return null;
  }
}

export function maskedAccount(d: PayoutDetailsInput): PayoutAccount {
  return d.method === 'bank'
    ? { method: 'bank', accountHolder: d.accountHolder, account: maskAccount(d.accountNumber), bankCode: d.bankCode, bankCountry: d.bankCountry }
    : { method: 'paypal', accountHolder: null, account: maskEmail(d.paypalEmail), bankCode: null, bankCountry: null };
}

export async function getPayoutDetails(db: DbOrTrx, appSecret: string, performerId: string): Promise<PayoutDetailsAnswer> {
  const row = await findPayoutDetails(db, performerId);
  const details = readDetails(appSecret, row?.detailsEnc);
  return { details: row && details ? { ...maskedAccount(details), updatedAt: row.updatedAt } : null };
}

/** Stores the performer's payout details (encrypted), replacing any before; answers them masked. */
export async function savePayoutDetails(db: DbOrTrx, appSecret: string, performerId: string, input: PayoutDetailsInput, now = new Date()): Promise<PayoutDetailsView> {
  // Only the fields of the method: a bank transfer's body never carries a PayPal address, and the other way round.
  const details: PayoutDetailsInput =
    input.method === 'bank'
      ? { method: 'bank', accountHolder: input.accountHolder, accountNumber: input.accountNumber, bankCode: input.bankCode, bankCountry: input.bankCountry }
      : { method: 'paypal', paypalEmail: input.paypalEmail };
  const at = now.toISOString();
  await upsertPayoutDetails(db, { performerId, method: details.method, detailsEnc: encryptSecret(appSecret, JSON.stringify(details)) }, at);
  return { ...maskedAccount(details), updatedAt: at };
}

// ---------------------------------------------------------------------------------------------------------------
// Views

const maskedOf = (r: PayoutRow): PayoutAccount | null => {
  if (!r.detailsMasked) return null;
  try {
    return JSON.parse(r.detailsMasked) as PayoutAccount;
  } catch {
    return null;
  }
};

export function payoutView(r: PayoutRow): PayoutRequest {
  return {
    _id: r.id, performerId: r.performerId, status: r.status, amount: r.amount, currency: r.currency, earningsCount: r.earningsCount, account: maskedOf(r),
    reference: r.reference, reason: r.reason, note: r.note, createdAt: r.createdAt, approvedAt: r.approvedAt, paidAt: r.paidAt, rejectedAt: r.rejectedAt,
  };
}

export function adminPayoutView(r: PayoutRow & { username: string | null; displayName: string | null }): AdminPayoutRequest {
  return {
    ...payoutView(r),
    performer: r.username ? { _id: r.performerId, username: r.username, name: r.displayName || r.username } : null,
    actorId: r.actorId,
  };
}

export async function adminPayoutOf(db: DbOrTrx, id: string): Promise<AdminPayoutRequest | undefined> {
  const row = await findPayout(db, id);
  return row ? adminPayoutView(row) : undefined;
}

export async function listOwnPayouts(db: DbOrTrx, performerId: string, p: { limit: number; offset: number }): Promise<ListResult<PayoutRequest>> {
  const { rows, total } = await listPerformerPayouts(db, performerId, p);
  return { items: rows.map(payoutView), total };
}

/** The console's queue (GET /admin/payout-requests and src/pages/admin/payouts.astro). */
export async function payoutQueue(db: DbOrTrx, f: PayoutQueueFilters): Promise<ListResult<AdminPayoutRequest>> {
  const { rows, total } = await listPayoutQueue(db, f);
  return { items: rows.map(adminPayoutView), total };
}

// ---------------------------------------------------------------------------------------------------------------
// Balance and request

/** `appSecret`: details that cannot be read (the secret changed) count as none, as a request would find. */
export async function payoutBalanceOf(db: DbOrTrx, appSecret: string, rules: PayoutRules, performerId: string, now = new Date()): Promise<PayoutBalance> {
  const sums = await payoutBalance(db, performerId, holdCutoff(rules.holdDays, now));
  const hasDetails = readDetails(appSecret, (await findPayoutDetails(db, performerId))?.detailsEnc) !== null;
  const open = await findOpenPayout(db, performerId);
  const blocked = open ? 'open' : !hasDetails ? 'details' : sums.available < rules.minimum ? 'minimum' : null;
  return { currency: rules.currency, ...sums, holdDays: rules.holdDays, minimum: rules.minimum, hasDetails, openRequest: open ? payoutView(open) : null, blocked };
}

export const payoutOpen = () => new AppError(409, 'PAYOUT_OPEN', 'You already have a payout request in progress; you can ask again once it is paid or rejected');

/** A payout after a change of status, and whom it concerns: what the hook (announcePayoutChange) receives. */
export interface PayoutChange {
  payout: PayoutRequest;
  /** The status before (null: the payout is new). */
  previous: PayoutStatus | null;
  performer: { id: string; username: string; name: string; email: string } | null;
}

async function changeOf(db: DbOrTrx, id: string, previous: PayoutStatus | null): Promise<PayoutChange> {
  const row = (await findPayout(db, id))!;
  // The performer's 'payout' notification, in the change's transaction: for what others did to their payout (a
  // request is their own doing). Each change is one conditional update, so it is told once.
  if (row.status !== 'requested') {
    await addNotification(db, row.performerId, 'payout', { payoutId: row.id, status: row.status, amount: row.amount, url: '/studio/earnings' });
  }
  const who = await payoutRecipient(db, row.performerId);
  return { payout: payoutView(row), previous, performer: who ? { id: who.id, username: who.username, name: who.displayName || who.username, email: who.email } : null };
}

/**
 * The performer asks to be paid their whole available balance. In the caller's transaction: the performer row is
 * locked, then the payout row written (payouts_one_open_uq: at most one open request, even if the lock were gone), then
 * the available earnings are claimed for it (exclusive: `payout_id IS NULL`), and the amount is what was claimed.
 * Refused, with nothing written: with a request still open (409), without readable payout details (409), under the
 * minimum (400). Test money is never claimed. The details are copied onto the payout as they are now.
 */
export async function requestPayout(trx: DbOrTrx, appSecret: string, rules: PayoutRules, performerId: string, now = new Date()): Promise<PayoutChange> {
  // One claim of a performer's earnings at a time (requests, and the admin's direct payout): they queue here instead
  // of locking the same earnings rows in different orders.
  await lockPerformer(trx, performerId);
  if (await findOpenPayout(trx, performerId)) throw payoutOpen();
  const stored = await findPayoutDetails(trx, performerId);
  const details = readDetails(appSecret, stored?.detailsEnc);
  if (!stored || !details) throw new AppError(409, 'PAYOUT_DETAILS_MISSING', 'Add your payout details (bank account or PayPal) before you request a payout');
  const id = newId();
  const at = now.toISOString();
  await insertPayout(trx, {
    id, performerId, amount: 0, earningsCount: 0, currency: rules.currency, note: null, actorId: null, createdAt: at, updatedAt: at, status: 'requested',
    method: details.method, detailsEnc: stored.detailsEnc, detailsMasked: JSON.stringify(maskedAccount(details)),
  });
  await claimAvailableEarnings(trx, performerId, id, holdCutoff(rules.holdDays, now));
  const { amount, count } = await payoutTotal(trx, id);
  if (count === 0 || amount < rules.minimum) {
    const has = formatMoney(Math.max(0, amount), rules.symbol);
    throw new AppError(400, 'BELOW_MINIMUM', `The smallest payout is ${formatMoney(rules.minimum, rules.symbol)}; ${has} is available now`, { available: amount, minimum: rules.minimum });
  }
  await setPayoutAmount(trx, id, amount, count);
  return changeOf(trx, id, null);
}

// ---------------------------------------------------------------------------------------------------------------
// The admin's actions

const notOpen = (r: PayoutRow) => new AppError(409, 'PAYOUT_NOT_OPEN', `This payout is already ${r.status}`, { status: r.status });

/** Moves an open payout on, or says why it cannot: 404 when there is none, 409 when it is not in a `from` status. */
async function transition(trx: DbOrTrx, id: string, from: readonly PayoutStatus[], changes: Parameters<typeof transitionPayout>[3]): Promise<PayoutRow> {
  const before = await findPayout(trx, id);
  if (!before) throw notFound('Payout');
  if (!(await transitionPayout(trx, id, from, changes))) throw notOpen((await findPayout(trx, id)) ?? before);
  return before;
}

/** Requested → approved: the admin agrees to pay it (the transfer comes next). */
export async function approvePayout(trx: DbOrTrx, id: string, actorId: string, now = new Date()): Promise<PayoutChange> {
  const at = now.toISOString();
  const before = await transition(trx, id, ['requested'], { status: 'approved', approvedAt: at, actorId, updatedAt: at });
  return changeOf(trx, id, before.status);
}

/** Requested or approved → rejected, with the reason the performer reads; its earnings are available again. */
export async function rejectPayout(trx: DbOrTrx, id: string, actorId: string, reason: string, now = new Date()): Promise<PayoutChange & { released: number }> {
  const at = now.toISOString();
  // The full details are not needed any more: only the masked copy stays.
  const before = await transition(trx, id, OPEN_PAYOUT_STATUSES, { status: 'rejected', reason, rejectedAt: at, detailsEnc: null, actorId, updatedAt: at });
  const released = await releasePayoutEarnings(trx, id);
  return { ...(await changeOf(trx, id, before.status)), released };
}

/** Requested or approved → paid, with the transfer's reference; its earnings become paid. */
export async function payPayout(trx: DbOrTrx, id: string, actorId: string, reference: string, now = new Date()): Promise<PayoutChange> {
  const at = now.toISOString();
  const before = await transition(trx, id, OPEN_PAYOUT_STATUSES, { status: 'paid', reference, paidAt: at, detailsEnc: null, actorId, updatedAt: at });
  await markPayoutEarningsPaid(trx, id, at);
  return changeOf(trx, id, before.status);
}

/**
 * The full details an open payout is to be sent to, for the admin making the transfer. Only while it is open: once
 * paid or rejected the full copy is erased (409).
 */
export async function revealPayoutDetails(db: DbOrTrx, appSecret: string, id: string): Promise<PayoutDetailsFull & { performerId: string }> {
  const row = await findPayout(db, id);
  if (!row) throw notFound('Payout');
  const details = (OPEN_PAYOUT_STATUSES as readonly string[]).includes(row.status) ? readDetails(appSecret, row.detailsEnc) : null;
  if (!details) throw new AppError(409, 'PAYOUT_DETAILS_GONE', `The full details are kept only while a payout is open (this one is ${row.status})`);
  const bank = details.method === 'bank' ? details : null;
  return {
    payoutId: id, performerId: row.performerId, method: details.method, accountHolder: bank?.accountHolder ?? null, accountNumber: bank?.accountNumber ?? null,
    bankCode: bank?.bankCode ?? null, bankCountry: bank?.bankCountry ?? null, paypalEmail: details.method === 'paypal' ? details.paypalEmail : null,
  };
}

/**
 * A payout the admin records as made (POST /admin/earnings/payout, "mark paid"): every earning of the performer that
 * is unpaid, real money and in no open request, whatever its age, paid at once. Open requests are left to the queue.
 * 400 when nothing is left to pay.
 */
export async function payOutDirectly(trx: DbOrTrx, o: { performerId: string; actorId: string; currency: string; note: string | null; now?: Date }) {
  const id = newId();
  const at = (o.now ?? new Date()).toISOString();
  await lockPerformer(trx, o.performerId);
  // Claim the rows first: a concurrent payout or request of the same performer then finds nothing left.
  await claimUnpaidEarnings(trx, o.performerId, id, at);
  const { amount, count } = await payoutTotal(trx, id);
  if (count === 0) throw new AppError(400, 'NOTHING_TO_PAY', 'This performer has no unpaid earnings outside an open payout request');
  if (amount <= 0) throw new AppError(400, 'NOTHING_TO_PAY', 'The unpaid earnings of this performer do not add up to a positive amount');
  const row = {
    id, performerId: o.performerId, amount, earningsCount: count, currency: o.currency, note: o.note, actorId: o.actorId, createdAt: at, updatedAt: at, status: 'paid' as const,
    paidAt: at,
  };
  await insertPayout(trx, row);
  return { row, change: await changeOf(trx, id, null) };
}

// ---------------------------------------------------------------------------------------------------------------
// After a change

/**
 * Called by every route that changes a payout's status (request, approve, reject, paid, and the direct payout), after
 * its transaction has committed, with the payout as it now is, its previous status and its performer: logs it and
 * mails the performer the new status (one mail per change; a mail failure is logged and never undoes the change).
 */
export async function announcePayoutChange(deps: MoneyMailDeps & Partial<Pick<AppContext, 'realtime'>>, change: PayoutChange): Promise<void> {
  deps.logger.info({ payoutId: change.payout._id, performerId: change.payout.performerId, from: change.previous, to: change.payout.status }, 'payout status changed');
  if (deps.realtime && change.payout.status !== 'requested') await pushNotificationCount(deps.db, deps.realtime, change.payout.performerId);
  const { payout } = change;
  await sendMoneyMails(deps, [
    {
      kind: 'payout-status', performerId: payout.performerId,
      payout: { id: payout._id, status: payout.status, amount: payout.amount, currency: payout.currency, reason: payout.reason, reference: payout.reference },
    },
  ]);
}
