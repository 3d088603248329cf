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

  it('counts again once the entry expired, and always when the TTL is 0', async () => {
    const cache = new CountCache(20);
    let loads = 0;
    const load = async () => ++loads;
    await cache.get(query('q'), load);
    await new Promise((r) => setTimeout(r, 30));
    expect(await cache.get(query('q'), load)).toBe(2);
    const off = new CountCache(0);
    await off.get(query('q'), load);
    await off.get(query('q'), load);
    expect(loads).toBe(4);
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
