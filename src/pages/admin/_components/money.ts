/** Minor units → "12.34" with the site's symbol. */
export const money = (cents: number, symbol: string) => `${cents < 0 ? '-' : ''}${symbol}${(Math.abs(cents) / 100).toFixed(2)}`;
export const pct = (bps: number | null | undefined) => (bps === null || bps === undefined ? '—' : `${(bps / 100).toFixed(2)} %`);
export const when = (iso: string | null | undefined) => (iso ? iso.replace('T', ' ').slice(0, 16) : '—');
/** limit/offset from the query string, clamped like the API's. */
export function pageOf(url: URL, limit = 20) {
  const offset = Math.min(10_000, Math.max(0, Number.parseInt(url.searchParams.get('offset') ?? '0', 10) || 0));
  return { limit, offset };
}
export const param = (url: URL, name: string) => url.searchParams.get(name)?.trim().slice(0, 100) || undefined;
