/** The `?page=` of a server-rendered list: 1 when absent or malformed, capped so the offset stays bounded. */
export function pageParam(url: URL, max = 400): number {
  return Math.min(Math.max(1, Number.parseInt(url.searchParams.get('page') ?? '1', 10) || 1), max);
}
