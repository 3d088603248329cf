import type { CompiledQuery } from 'kysely';

/**
 * Reuses the `total` of a public list for a few seconds. Counting a large catalogue walks every visible row
 * (with its performer check), which costs tens of milliseconds at 100k videos and hundreds at 1M, while the page
 * itself reads 12 rows from an index; the same few list shapes (home, directory, a performer's tab) are asked for
 * over and over. Pages and items themselves are never cached.
 *
 *  - One count at a time per key: concurrent requests for a key that is not cached wait for the same count.
 *  - An entry lives for the TTL, or for COST_FACTOR times what its count took when that is longer (slow counts of
 *    very large lists are redone less often).
 *  - Stale while revalidate: during one more lifetime after an entry expired, requests get the expired value at
 *    once and one count refreshes it in the background. A total may therefore lag a just-published item by up to
 *    twice its lifetime.
 *  - `offThread`, when set (buildApp sets it for a SQLite file database), runs the counts on another thread: a
 *    better-sqlite3 query blocks the event loop for its whole duration, so a 100 ms count would stall every
 *    request in flight, cached or not.
 *
 * The key is the count's SQL and parameters, with the request time (the ISO timestamp every visibility rule
 * compares with) left out so that requests a millisecond apart share an entry.
 */
export class CountCache {
  private readonly entries = new Map<string, { value: number; expiresAt: number; lifetimeMs: number }>();
  private readonly inflight = new Map<string, Promise<number>>();
  /** Runs a count query elsewhere (another thread or connection) and returns its `n`. */
  offThread: ((query: CompiledQuery) => Promise<number>) | undefined;

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
    if (hit && hit.expiresAt + hit.lifetimeMs > now) {
      // Stale: answer with it, refresh once in the background (a failed refresh leaves the entry to expire).
      this.refresh(key, query, load).catch(() => {});
      return hit.value;
    }
    return this.refresh(key, query, load);
  }

  private refresh(key: string, query: CompiledQuery, load: () => Promise<number>): Promise<number> {
    const running = this.inflight.get(key);
    if (running) return running;
    const offThread = this.offThread;
    const started = Date.now();
    const promise = (offThread ? offThread(query) : load())
      .then((value) => {
        // Map keeps insertion order: dropping the first key evicts the oldest entry.
        this.entries.delete(key);
        if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
        const lifetimeMs = Math.max(this.ttlMs, (Date.now() - started) * COST_FACTOR);
        this.entries.set(key, { value, expiresAt: Date.now() + lifetimeMs, lifetimeMs });
        return value;
      })
      .finally(() => this.inflight.delete(key));
    this.inflight.set(key, promise);
    return promise;
  }

  clear(): void {
    this.entries.clear();
  }
}

/**
 * A total is kept at least this many times as long as it took to count, so recounting one list never takes more
 * than ~2% of the time (a 1M-row count of ~1 s is reused ~50 s; a 10 ms one for the TTL).
 */
const COST_FACTOR = 50;

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * The process's list-count cache; buildApp sets its TTL from config.listCountCacheMs (and `offThread` on SQLite).
 * Kept on globalThis: the Astro build bundles its own copy of this module for the pages, and a module-level
 * instance there would never be configured (page totals were counted on every render).
 */
const KEY = Symbol.for('site.listCounts');
export const listCounts: CountCache = ((globalThis as Record<symbol, unknown>)[KEY] as CountCache | undefined) ?? new CountCache(0);
(globalThis as Record<symbol, unknown>)[KEY] = listCounts;
