import { sql, type Insertable, type Selectable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { EarningsTable } from '../db/schema.js';

/**
 * SQL of performer earnings: one 'credit' row per payment item when paid, one negative 'reversal' row when the
 * payment is refunded or charged back (earnings_item_entry_uq makes each at most once).
 */

export type EarningRow = Selectable<EarningsTable>;

/** Inserts the rows whose (payment item, entry) is new; returns how many were inserted. */
export async function insertEarnings(db: DbOrTrx, rows: Array<Insertable<EarningsTable>>): Promise<number> {
  let n = 0;
  for (const row of rows) {
    const res = await db
      .insertInto('earnings')
      .values(row)
      .onConflict((oc) => oc.columns(['paymentItemId', 'entry']).doNothing())
      .executeTakeFirst();
    n += Number(res.numInsertedOrUpdatedRows ?? 0);
  }
  return n;
}

export function creditsOfPayment(db: DbOrTrx, paymentId: string) {
  return db.selectFrom('earnings').selectAll().where('paymentId', '=', paymentId).where('entry', '=', 'credit').orderBy('id').execute();
}

export interface EarningFilters {
  performerId: string;
  sourceType?: string;
  entry?: 'credit' | 'reversal';
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
  const [rows, count] = await Promise.all([
    base.selectAll('earnings').orderBy('earnings.createdAt', 'desc').orderBy('earnings.id', 'desc').limit(f.limit).offset(f.offset).execute(),
    base.select(sql<number | string>`count(*)`.as('n')).executeTakeFirst(),
  ]);
  return { rows, total: Number(count?.n ?? 0) };
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
 * Marks a performer's unpaid earnings paid by one payout. Test money (sandbox earnings) is never claimed: nobody
 * really paid it.
 */
export async function claimUnpaidEarnings(db: DbOrTrx, performerId: string, payoutId: string, now: string): Promise<void> {
  await db
    .updateTable('earnings')
    .set({ isPaid: 1, paidAt: now, payoutId })
    .where('performerId', '=', performerId)
    .where('isPaid', '=', 0)
    .where('testMoney', '=', 0)
    .execute();
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
