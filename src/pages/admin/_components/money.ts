import { formatMoney, formatPercent } from '../../../../common/money.js';

/** Minor units → "$1,234.56" with the site's symbol (common/money.ts, the one formatter). */
export const money = (cents: number, symbol: string) => formatMoney(cents, symbol);
/** Basis points → "15 %". */
export const pct = (bps: number | null | undefined) => (bps === null || bps === undefined ? '—' : formatPercent(bps));
export const when = (iso: string | null | undefined) => (iso ? iso.replace('T', ' ').slice(0, 16) : '—');
/** limit/offset from the query string, clamped like the API's. */
export function pageOf(url: URL, limit = 20) {
  const offset = Math.min(10_000, Math.max(0, Number.parseInt(url.searchParams.get('offset') ?? '0', 10) || 0));
  return { limit, offset };
}
export const param = (url: URL, name: string) => url.searchParams.get(name)?.trim().slice(0, 100) || undefined;
