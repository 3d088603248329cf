import type { CompiledQuery } from 'kysely';

/**
 * Reuses the `total` of a public list for a few seconds. Counting a large catalogue walks every visible row
 * (with its performer check), which costs tens of milliseconds at 100k videos, while the page itself reads 12 rows
 * from an index; the same few list shapes (home, directory, a performer's tab) are asked for over and over.
 * A total may therefore lag a just-published item by up to the TTL; pages and items themselves are never cached.
 *
 * The key is the count's SQL and parameters, with the request time (the ISO timestamp every visibility rule
 * compares with) left out so that requests a millisecond apart share an entry.
 */
export class CountCache {
  private readonly entries = new Map<string, { value: number; expiresAt: number }>();

  constructor(
    public ttlMs: number,
    private readonly maxEntries = 1000,
  ) {}

  static keyOf(query: CompiledQuery): string {
    const params = query.parameters.map((p) => (typeof p === 'string' && ISO_TIMESTAMP.test(p) ? '<now>' : p));
    return `${query.sql}\u0000${JSON.stringify(params)}`;
  }

  async get(query: CompiledQuery, load: () => Promise<number>): Promise<number> {
    if (this.ttlMs <= 0) return load();
    const key = CountCache.keyOf(query);
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    const value = await load();
    // Map keeps insertion order: dropping the first key evicts the oldest entry.
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, expiresAt: now + this.ttlMs });
    return value;
  }

  clear(): void {
    this.entries.clear();
  }
}

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * The process's list-count cache; buildApp sets its TTL from config.listCountCacheMs. Astro's server bundle carries
 * its own copy of this module, so the one instance is kept on globalThis: otherwise the pages would count with a
 * cache nobody configured (TTL 0) while only the API's copy was set.
 */
const registry = globalThis as typeof globalThis & { __fanstageListCounts?: CountCache };
export const listCounts: CountCache = (registry.__fanstageListCounts ??= new CountCache(0));
