import type { DbOrTrx } from '../db/database.js';
import type { ListResult } from '../../common/schemas/http.js';
import type { EarningItem, EarningStats } from '../../common/schemas/money.js';
import { loadUserSummaries } from '../payments/summaries.repository.js';
import { tipsByPayment } from '../tips/tips.service.js';
import { earningStats, listEarnings, type EarningFilters } from './earnings.repository.js';
import { DAY_MS } from '../../common/time.js';

/** A performer's earnings: per payment item, net of the site's commission; refunds and chargebacks as negative rows. */

const n = (v: unknown) => Number(v ?? 0);

export async function searchEarnings(db: DbOrTrx, f: EarningFilters): Promise<ListResult<EarningItem>> {
  const { rows, total } = await listEarnings(db, f);
  const users = await loadUserSummaries(db, rows.map((r) => r.userId));
  const tips = await tipsByPayment(db, rows.filter((r) => r.sourceType === 'tip').map((r) => r.paymentId));
  return {
    items: rows.map((e) => ({
      _id: e.id, paymentId: e.paymentId, performerId: e.performerId, user: users.get(e.userId) ?? null, sourceType: e.sourceType, entry: e.entry ?? 'credit',
      gross: e.gross, commission: e.commission, net: e.net, commissionBps: e.commissionBps, isPaid: e.isPaid === 1, test: e.testMoney === 1, tip: tips.get(e.paymentId) ?? null, createdAt: e.createdAt,
    })),
    total,
  };
}

/** Totals, per source and per day over [from, to) (default: the last 30 days). */
export async function performerEarningStats(
  db: DbOrTrx,
  f: Omit<EarningFilters, 'limit' | 'offset'>,
  currency: string,
): Promise<EarningStats> {
  const to = f.to ?? new Date(Date.now() + 1000).toISOString();
  const from = f.from ?? new Date(Date.parse(to) - 30 * DAY_MS).toISOString();
  const s = await earningStats(db, { ...f, from, to });
  const net = n(s.totals?.net);
  return {
    currency,
    from,
    to,
    totals: { gross: n(s.totals?.gross), commission: n(s.totals?.commission), net, count: n(s.totals?.count), paid: s.paidNet, unpaid: s.unpaidNet, test: s.testNet },
    bySource: s.bySource.map((r) => ({ sourceType: r.sourceType, gross: n(r.gross), commission: n(r.commission), net: n(r.net), count: n(r.count) })),
    series: s.byDay.map((r) => ({ date: String(r.day), gross: n(r.gross), commission: n(r.commission), net: n(r.net), count: n(r.count) })),
  };
}
