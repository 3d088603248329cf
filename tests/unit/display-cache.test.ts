import { afterEach, describe, expect, it, vi } from 'vitest';
import { cacheById, cacheOne } from '../../server/catalogue/display-cache.js';
import type { DbOrTrx } from '../../server/db/database.js';

/** A loader over a table held in memory, recording which ids each call asked for. */
function loader(table: Map<string, { name: string }>) {
  const calls: string[][] = [];
  const load = async (_db: DbOrTrx, ids: string[]) => {
    calls.push(ids);
    return new Map(ids.filter((id) => table.has(id)).map((id) => [id, { ...table.get(id)! }]));
  };
  return { calls, load };
}
const db = { isTransaction: false } as DbOrTrx;
const trx = { isTransaction: true } as DbOrTrx;

describe('cacheById (the display cache of cards: performer names, files)', () => {
  afterEach(() => vi.useRealTimers());

  it('answers the ids it holds from memory and asks the loader for the others only, once each', async () => {
    const table = new Map([['a', { name: 'A' }], ['b', { name: 'B' }], ['c', { name: 'C' }]]);
    const { calls, load } = loader(table);
    const get = cacheById(1000, 100, load);
    expect([...(await get(db, ['a', 'b', 'a', null, undefined])).keys()]).toEqual(['a', 'b']);
    expect([...(await get(db, ['b', 'c'])).entries()]).toEqual([['b', { name: 'B' }], ['c', { name: 'C' }]]);
    expect(calls).toEqual([['a', 'b'], ['c']]);
  });

  it('remembers an id the loader did not find, and forgets everything after ttlMs', async () => {
    vi.useFakeTimers();
    const table = new Map([['a', { name: 'A' }]]);
    const { calls, load } = loader(table);
    const get = cacheById(1000, 100, load);
    expect((await get(db, ['a', 'gone'])).has('gone')).toBe(false);
    table.set('gone', { name: 'back' });
    table.set('a', { name: 'renamed' });
    vi.advanceTimersByTime(999);
    expect(await get(db, ['a', 'gone'])).toEqual(new Map([['a', { name: 'A' }]]));
    vi.advanceTimersByTime(1);
    expect(await get(db, ['a', 'gone'])).toEqual(new Map([['a', { name: 'renamed' }], ['gone', { name: 'back' }]]));
    expect(calls).toEqual([['a', 'gone'], ['a', 'gone']]);
  });

  it('goes to the database inside a transaction (rows maybe not committed) and when the ttl is 0', async () => {
    const table = new Map([['a', { name: 'A' }]]);
    const inTrx = loader(table);
    const get = cacheById(1000, 100, inTrx.load);
    await get(trx, ['a']);
    await get(trx, ['a']);
    await get(db, ['a']);
    expect(inTrx.calls).toEqual([['a'], ['a'], ['a']]);
    const off = loader(table);
    const never = cacheById(0, 100, off.load);
    await never(db, ['a']);
    await never(db, ['a']);
    expect(off.calls).toEqual([['a'], ['a']]);
  });

  it('shares values frozen, so no request can change what another is shown', async () => {
    const get = cacheById(1000, 100, loader(new Map([['a', { name: 'A' }]])).load);
    const value = (await get(db, ['a'])).get('a')!;
    expect(Object.isFrozen(value)).toBe(true);
    expect(() => {
      (value as { name: string }).name = 'changed';
    }).toThrow(TypeError);
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const table = new Map(['a', 'b', 'c'].map((id) => [id, { name: id }]));
    const { calls, load } = loader(table);
    const get = cacheById(1000, 2, load);
    await get(db, ['a']);
    await get(db, ['b', 'c']);
    await get(db, ['b', 'c', 'a']);
    expect(calls).toEqual([['a'], ['b', 'c'], ['a']]);
  });
});

describe('cacheOne (one value for every request: the site packages an offer is priced from)', () => {
  afterEach(() => vi.useRealTimers());

  /** A loader of a value held in memory, counting its calls; `fail` makes the next call reject. */
  function one() {
    const state = { value: { price: 100 }, calls: 0, fail: false };
    const load = async () => {
      state.calls++;
      if (state.fail) throw new Error('database down');
      return { ...state.value };
    };
    return { state, load };
  }

  it('loads once for concurrent requests, keeps the value ttlMs, then loads it again', async () => {
    vi.useFakeTimers();
    const { state, load } = one();
    const get = cacheOne(1000, load);
    const [a, b] = await Promise.all([get(db), get(db)]);
    expect(a).toEqual({ price: 100 });
    expect(b).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    state.value = { price: 200 };
    vi.advanceTimersByTime(999);
    expect(await get(db)).toEqual({ price: 100 });
    vi.advanceTimersByTime(1);
    expect(await get(db)).toEqual({ price: 200 });
    expect(state.calls).toBe(2);
  });

  it('does not keep a failed load, and goes to the database inside a transaction and when the ttl is 0', async () => {
    const { state, load } = one();
    const get = cacheOne(1000, load);
    state.fail = true;
    await expect(get(db)).rejects.toThrow('database down');
    state.fail = false;
    expect(await get(db)).toEqual({ price: 100 });
    await get(trx);
    expect(state.calls).toBe(3);
    const off = one();
    const never = cacheOne(0, off.load);
    await never(db);
    await never(db);
    expect(off.state.calls).toBe(2);
  });
});
