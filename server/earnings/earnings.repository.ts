import { sql, type ExpressionBuilder, type Insertable, type Selectable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { offsetPage } from '../catalogue/catalogue.repository.js';
import type { Database, EarningsTable } from '../db/schema.js';
import type { EarningEntry } from '../../common/enums.js';

/**
 * SQL of performer earnings: one 'credit' row per payment item when paid, a negative 'partial_refund' row per item
 * for each partial refund, one negative 'reversal' row (what is left) when the payment is refunded whole or charged
 * back. earnings_item_entry_uq (item, entry, refunded_to) makes each at most once.
 */

export type EarningRow = Selectable<EarningsTable>;

/** Inserts the rows whose (payment item, entry, refunded_to) is new; returns how many were inserted. */
export async function insertEarnings(db: DbOrTrx, rows: Array<Insertable<EarningsTable>>): Promise<number> {
  let n = 0;
  for (const row of rows) {
    const res = await db
      .insertInto('earnings')
      .values(row)
      .onConflict((oc) => oc.columns(['paymentItemId', 'entry', 'refundedTo']).doNothing())
      .executeTakeFirst();
    n += Number(res.numInsertedOrUpdatedRows ?? 0);
  }
  return n;
}

export function creditsOfPayment(db: DbOrTrx, paymentId: string) {
  return db.selectFrom('earnings').selectAll().where('paymentId', '=', paymentId).where('entry', '=', 'credit').orderBy('id').execute();
}

/** The partial refunds already taken from a payment's items: per payment item, the gross, commission and net (negative). */
export async function partialRefundsOfPayment(db: DbOrTrx, paymentId: string): Promise<Map<string, { gross: number; commission: number; net: number }>> {
  const rows = await db
    .selectFrom('earnings')
    .select(['paymentItemId', sql<number | string>`sum(gross)`.as('gross'), sql<number | string>`sum(commission)`.as('commission'), sql<number | string>`sum(net)`.as('net')])
    .where('paymentId', '=', paymentId)
    .where('entry', '=', 'partial_refund')
    .groupBy('paymentItemId')
    .execute();
  return new Map(rows.map((r) => [r.paymentItemId ?? '', { gross: Number(r.gross), commission: Number(r.commission), net: Number(r.net) }]));
}

export interface EarningFilters {
  performerId: string;
  sourceType?: string;
  entry?: EarningEntry;
  from?: string;
  to?: string;
  limit: number;
  offset: number;
}

function filtered(db: DbOrTrx, f: Omit<EarningFilters, 'limit' | 'offset'>) {
  let base = db.selectFrom('earnings').where('earnings.performerId', '=', f.performerId);
  if (f.sourceType) base = base.where('earnings.sourceType', '=', f.sourceType);
  if (f.entry) base = base.where('earnings.entry', '=', f.entry);
  if (f.from) base = base.where('earnings.createdAt', '>=', f.from);
  if (f.to) base = base.where('earnings.createdAt', '<', f.to);
  return base;
}

export async function listEarnings(db: DbOrTrx, f: EarningFilters) {
  const base = filtered(db, f);
  const { rows, total } = await offsetPage(base, f, (qb) => qb.selectAll('earnings').orderBy('earnings.createdAt', 'desc').orderBy('earnings.id', 'desc'));
  return { rows, total };
}

const sums = {
  gross: sql<number | string | null>`sum(earnings.gross)`,
  commission: sql<number | string | null>`sum(earnings.commission)`,
  net: sql<number | string | null>`sum(earnings.net)`,
  count: sql<number | string>`count(*)`,
};

/** Totals, per source and per day (ISO dates: the first 10 characters of the timestamp, on both engines). */
export async function earningStats(db: DbOrTrx, f: Omit<EarningFilters, 'limit' | 'offset'>) {
  const base = filtered(db, f);
  const day = sql<string>`substr(earnings.created_at, 1, 10)`;
  const [totals, paid, unpaid, test, bySource, byDay] = await Promise.all([
    base.select([sums.gross.as('gross'), sums.commission.as('commission'), sums.net.as('net'), sums.count.as('count')]).executeTakeFirst(),
    base.where('earnings.isPaid', '=', 1).select(sums.net.as('net')).executeTakeFirst(),
    // Payable: unpaid real money. Sandbox earnings are test money, never paid out.
    base.where('earnings.isPaid', '=', 0).where('earnings.testMoney', '=', 0).select(sums.net.as('net')).executeTakeFirst(),
    base.where('earnings.testMoney', '=', 1).select(sums.net.as('net')).executeTakeFirst(),
    base
      .select(['earnings.sourceType', sums.gross.as('gross'), sums.commission.as('commission'), sums.net.as('net'), sums.count.as('count')])
      .groupBy('earnings.sourceType')
      .orderBy('earnings.sourceType')
      .execute(),
    base.select([day.as('day'), sums.gross.as('gross'), sums.commission.as('commission'), sums.net.as('net'), sums.count.as('count')]).groupBy(day).orderBy(day).execute(),
  ]);
  return { totals, paidNet: Number(paid?.net ?? 0), unpaidNet: Number(unpaid?.net ?? 0), testNet: Number(test?.net ?? 0), bySource, byDay };
}

/**
 * A payout an admin records directly: the performer's earnings that are unpaid and in no open request become paid by
 * `payoutId`. Test money (sandbox earnings) is never claimed: nobody really paid it. `payout_id IS NULL` is what makes
 * two claims exclusive: a row another transaction claimed first no longer matches (on PostgreSQL the second UPDATE
 * waits for the first's row locks, then reads the row again).
 */
export async function claimUnpaidEarnings(db: DbOrTrx, performerId: string, payoutId: string, now: string): Promise<void> {
  await db
    .updateTable('earnings')
    .set({ isPaid: 1, paidAt: now, payoutId })
    .where('performerId', '=', performerId)
    .where('isPaid', '=', 0)
    .where('payoutId', 'is', null)
    .where('testMoney', '=', 0)
    .execute();
}

/**
 * Whether an unclaimed earning is past its hold at `cutoff` (credited at or before it). A reversal goes with its
 * credit: it counts against the available balance once its credit does (a refund within the hold cancels an earning
 * that was never available), and at once when its credit is already past the hold or paid (the refund is taken from
 * the next payout). A reversal without a credit (none is written that way) counts at once.
 */
function pastHold(eb: ExpressionBuilder<Database, 'earnings'>, cutoff: string) {
  return eb.or([
    eb.and([eb('earnings.entry', '=', 'credit'), eb('earnings.createdAt', '<=', cutoff)]),
    eb.and([
      eb('earnings.entry', '=', 'reversal'),
      eb.not(
        eb.exists(
          eb
            .selectFrom('earnings as credit')
            .select(sql`1`.as('one'))
            .whereRef('credit.paymentItemId', '=', 'earnings.paymentItemId')
            .where('credit.entry', '=', 'credit')
            .where('credit.createdAt', '>', cutoff),
        ),
      ),
    ]),
  ]);
}

const n = (v: unknown) => Number(v ?? 0);

/**
 * A performer's money by where it stands (net, minor units): real earnings not in any payout, split into `pending`
 * (still in the hold at `cutoff`) and `available`; `requested` (claimed by an open request); `paid`; and `test`
 * (sandbox earnings, never paid).
 */
export async function payoutBalance(db: DbOrTrx, performerId: string, cutoff: string) {
  const mine = db.selectFrom('earnings').where('earnings.performerId', '=', performerId);
  const sums = await mine
    .select([
      sql<number | string | null>`sum(case when earnings.test_money = 0 and earnings.is_paid = 0 and earnings.payout_id is null then earnings.net else 0 end)`.as('unclaimed'),
      sql<number | string | null>`sum(case when earnings.test_money = 0 and earnings.is_paid = 0 and earnings.payout_id is not null then earnings.net else 0 end)`.as('requested'),
      sql<number | string | null>`sum(case when earnings.is_paid = 1 then earnings.net else 0 end)`.as('paid'),
      sql<number | string | null>`sum(case when earnings.test_money = 1 then earnings.net else 0 end)`.as('test'),
    ])
    .executeTakeFirst();
  const available = await mine
    .where('earnings.isPaid', '=', 0)
    .where('earnings.payoutId', 'is', null)
    .where('earnings.testMoney', '=', 0)
    .where((eb) => pastHold(eb, cutoff))
    .select(sql<number | string | null>`sum(earnings.net)`.as('net'))
    .executeTakeFirst();
  const a = n(available?.net);
  return { pending: n(sums?.unclaimed) - a, available: a, requested: n(sums?.requested), paid: n(sums?.paid), test: n(sums?.test) };
}

/**
 * A payout request claims the performer's available earnings (real money, past the hold at `cutoff`, in no payout)
 * for `payoutId`; they stay unpaid until the payout is paid. Exclusive like claimUnpaidEarnings.
 */
export async function claimAvailableEarnings(db: DbOrTrx, performerId: string, payoutId: string, cutoff: string): Promise<void> {
  await db
    .updateTable('earnings')
    .set({ payoutId })
    .where('performerId', '=', performerId)
    .where('isPaid', '=', 0)
    .where('payoutId', 'is', null)
    .where('testMoney', '=', 0)
    .where((eb) => pastHold(eb, cutoff))
    .execute();
}

/** A rejected request gives its earnings back: available again, to the next request. */
export async function releasePayoutEarnings(db: DbOrTrx, payoutId: string): Promise<number> {
  const res = await db.updateTable('earnings').set({ payoutId: null }).where('payoutId', '=', payoutId).where('isPaid', '=', 0).executeTakeFirst();
  return Number(res.numUpdatedRows ?? 0);
}

/** A paid request's earnings become paid. */
export async function markPayoutEarningsPaid(db: DbOrTrx, payoutId: string, now: string): Promise<number> {
  const res = await db.updateTable('earnings').set({ isPaid: 1, paidAt: now }).where('payoutId', '=', payoutId).where('isPaid', '=', 0).executeTakeFirst();
  return Number(res.numUpdatedRows ?? 0);
}

/** What a payout pays: the sum of its earnings' net and their number. */
export async function payoutTotal(db: DbOrTrx, payoutId: string): Promise<{ amount: number; count: number }> {
  const sum = await db
    .selectFrom('earnings')
    .select([sql<number | string | null>`sum(net)`.as('amount'), sql<number | string>`count(*)`.as('n')])
    .where('payoutId', '=', payoutId)
    .executeTakeFirst();
  return { amount: Number(sum?.amount ?? 0), count: Number(sum?.n ?? 0) };
}
