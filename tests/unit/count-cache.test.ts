import { describe, expect, it } from 'vitest';
import type { CompiledQuery } from 'kysely';
import { CountCache } from '../../server/catalogue/count-cache.js';

const query = (sql: string, ...parameters: unknown[]) => ({ sql, parameters, query: {} }) as unknown as CompiledQuery;

describe('CountCache', () => {
  it('reuses a total for the same query within the TTL, ignoring the request time', async () => {
    const cache = new CountCache(60_000);
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get(query('select count(*) where p = ? and t <= ?', 'a', '2026-11-23T10:00:00.000Z'), load)).toBe(1);
    expect(await cache.get(query('select count(*) where p = ? and t <= ?', 'a', '2026-11-23T10:00:00.250Z'), load)).toBe(1);
    // Other filters are other entries.
    expect(await cache.get(query('select count(*) where p = ? and t <= ?', 'b', '2026-11-23T10:00:00.250Z'), load)).toBe(2);
    expect(loads).toBe(2);
  });

  it('answers with an expired entry once while counting again, blocks on one older than twice the TTL, always counts with TTL 0', async () => {
    const cache = new CountCache(40);
    let loads = 0;
    const load = async () => ++loads;
    await cache.get(query('q'), load);
    await new Promise((r) => setTimeout(r, 50));
    // Stale: the old total at once, a refresh in the background.
    expect(await cache.get(query('q'), load)).toBe(1);
    await new Promise((r) => setTimeout(r, 0));
    expect(loads).toBe(2);
    expect(await cache.get(query('q'), load)).toBe(2);
    await new Promise((r) => setTimeout(r, 100));
    expect(await cache.get(query('q'), load)).toBe(3);
    const off = new CountCache(0);
    await off.get(query('q'), load);
    await off.get(query('q'), load);
    expect(loads).toBe(5);
  });

  it('keeps a slow count fifty times as long as it took when that is longer than the TTL', async () => {
    const cache = new CountCache(10);
    let loads = 0;
    const slow = () => new Promise<number>((r) => setTimeout(() => r(++loads), 100));
    await cache.get(query('slow'), slow);
    // ≥ 100 ms to count → kept ≥ 5 s, far past the 10 ms TTL.
    await new Promise((r) => setTimeout(r, 300));
    expect(await cache.get(query('slow'), slow)).toBe(1);
    expect(loads).toBe(1);
    // A quick count (a few ms at most, even on a busy machine) lives for the TTL or 50× that, then is counted again.
    await cache.get(query('quick'), async () => ++loads);
    await new Promise((r) => setTimeout(r, 700));
    await cache.get(query('quick'), async () => ++loads);
    expect(loads).toBe(3);
  });

  it('runs one count for concurrent misses of the same key', async () => {
    const cache = new CountCache(60_000);
    let loads = 0;
    const load = () => new Promise<number>((r) => setTimeout(() => r(++loads), 20));
    const totals = await Promise.all(Array.from({ length: 10 }, (_, i) => cache.get(query('q', `2026-11-23T10:00:00.${String(i).padStart(3, '0')}Z`), load)));
    expect(totals).toEqual(Array(10).fill(1));
    expect(loads).toBe(1);
  });

  it('uses offThread instead of the loader when set', async () => {
    const cache = new CountCache(60_000);
    const seen: string[] = [];
    cache.offThread = async (q) => (seen.push(q.sql), 42);
    expect(await cache.get(query('select count(*) as n'), async () => 1)).toBe(42);
    expect(seen).toEqual(['select count(*) as n']);
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const cache = new CountCache(60_000, 2);
    let loads = 0;
    const load = async () => ++loads;
    await cache.get(query('a'), load);
    await cache.get(query('b'), load);
    await cache.get(query('c'), load);
    await cache.get(query('b'), load); // still cached
    await cache.get(query('a'), load); // evicted, counted again
    expect(loads).toBe(4);
  });
});
