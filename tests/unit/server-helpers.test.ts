import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../server/http/pagination.js';
import { parseRange } from '../../server/media/media.routes.js';
import { formatMoney } from '../../common/money.js';
import { newId } from '../../server/db/ids.js';
import { loadConfig } from '../../server/config.js';
import { extend } from '../../server/catalogue/item-mapper.js';

describe('cursor', () => {
  it('round-trips a sort value and id', () => {
    const c = { v: '2026-01-01T00:00:00.000Z', id: 'abc' };
    expect(decodeCursor(encodeCursor(c))).toEqual(c);
    expect(decodeCursor(encodeCursor({ v: 42, id: 'x' }))).toEqual({ v: 42, id: 'x' });
    expect(decodeCursor(undefined)).toBeUndefined();
    // A relevance order's cursor also carries the row's rank.
    expect(decodeCursor(encodeCursor({ v: 'a', id: 'x', r: 2 }))).toEqual({ v: 'a', id: 'x', r: 2 });
    expect(decodeCursor(encodeCursor({ v: 'a', id: 'x', r: 0 }))).toEqual({ v: 'a', id: 'x', r: 0 });
  });
  const raw = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  it.each([
    'not-base64!', raw({ a: 1 }), raw([1, 2]), raw([{}, 'x']),
    raw(['a', 'x', 0.5]), raw(['a', 'x', -1]), raw(['a', 'x', '1']), raw(['a', 'x', null]), raw(['a', 'x', 1, 2]), raw(['a', 'x', 10]),
  ])(
    'rejects a forged cursor %s with a 400',
    (raw) => {
      expect(() => decodeCursor(raw)).toThrow(expect.objectContaining({ statusCode: 400 }));
    },
  );
});

describe('parseRange', () => {
  it.each([
    ['bytes=0-99', 1000, { start: 0, end: 99 }],
    ['bytes=100-', 1000, { start: 100, end: 999 }],
    ['bytes=-100', 1000, { start: 900, end: 999 }],
    ['bytes=0-5000', 1000, { start: 0, end: 999 }],
  ])('%s of %d bytes', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
  it('flags unsatisfiable ranges and ignores malformed ones', () => {
    expect(parseRange('bytes=2000-', 1000)).toBe('invalid');
    expect(parseRange('bytes=50-10', 1000)).toBe('invalid');
    expect(parseRange('bytes=-', 1000)).toBe('invalid');
    expect(parseRange('items=0-1', 1000)).toBeUndefined();
    expect(parseRange(undefined, 1000)).toBeUndefined();
  });
});

describe('formatMoney', () => {
  it('formats integer minor units', () => {
    expect(formatMoney(999)).toBe('$9.99');
    expect(formatMoney(123456, '€')).toBe('€1,234.56');
    expect(formatMoney(5)).toBe('$0.05');
    expect(formatMoney(-250)).toBe('-$2.50');
  });
});

describe('ids and config', () => {
  it('ids are unique and sort by creation time', () => {
    const a = newId(1_000_000);
    const b = newId(2_000_000);
    expect(a < b).toBe(true);
    expect(new Set(Array.from({ length: 1000 }, () => newId())).size).toBe(1000);
    expect(a).toMatch(/^[0-9a-f]{32}$/);
  });
  it('normalises the API base and refuses the dev secret in production', () => {
    expect(loadConfig({ API_BASE: 'v1/' }).apiBase).toBe('/v1');
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/APP_SECRET/);
  });
  it('listens with a backlog of 4096 unless LISTEN_BACKLOG says otherwise, and refuses a typo', () => {
    expect(loadConfig({}).listenBacklog).toBe(4096);
    expect(loadConfig({ LISTEN_BACKLOG: '1024' }).listenBacklog).toBe(1024);
    expect(() => loadConfig({ LISTEN_BACKLOG: '4k' })).toThrow(/LISTEN_BACKLOG must be a whole number/);
  });
  it('keeps sessions 60 s unless SESSION_CACHE_MS says otherwise (0: off), and refuses a typo', () => {
    expect(loadConfig({}).sessionCacheMs).toBe(60_000);
    expect(loadConfig({ SESSION_CACHE_MS: '0' }).sessionCacheMs).toBe(0);
    expect(() => loadConfig({ SESSION_CACHE_MS: '1m' })).toThrow(/SESSION_CACHE_MS must be a whole number/);
  });
});

describe('extend', () => {
  it('gives what spreading both would: the same keys in the same order, later ones winning', () => {
    const base = () => ({ _id: 'a', title: 't', locked: true, price: 5 });
    const more = { locked: false, tags: ['x'], stats: { views: 1 } };
    const spread = { ...base(), ...more };
    const extended = extend(base(), more);
    expect(extended).toEqual(spread);
    expect(Object.keys(extended)).toEqual(Object.keys(spread));
    expect(JSON.stringify(extended)).toBe(JSON.stringify(spread));
  });
});
