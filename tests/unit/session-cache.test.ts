import { describe, expect, it } from 'vitest';
import { SessionCache } from '../../server/auth/session-cache.js';
import type { SessionRow } from '../../server/auth/auth.repository.js';

/** The rules of server/auth/session-cache.ts that the API tests cannot time: reads in flight, the hold, the bounds. */
describe('the session cache', () => {
  const now = Date.now();
  const row = (id: string, expiresInMs = 3_600_000): SessionRow => ({
    sessionId: `s-${id}`, lastSeenAt: null, expiresAt: new Date(now + expiresInMs).toISOString(), id, role: 'user', status: 'active',
    email: `${id}@example.com`, name: id, username: id, avatarPath: null,
  });
  const live = (ttlMs = 60_000, max?: number) => {
    const cache = new SessionCache(ttlMs, max);
    cache.setLive(true);
    return cache;
  };

  it('keeps a row read after it started listening, for its time or until the session ends, whichever is first', () => {
    const cache = live(1000);
    cache.keep('a', row('u1'), cache.begin(), now);
    expect(cache.get('a', now + 999)?.id).toBe('u1');
    expect(cache.get('a', now + 1000)).toBeUndefined();
    cache.keep('b', row('u2', 500), cache.begin(), now);
    expect(cache.get('b', now + 499)?.id).toBe('u2');
    expect(cache.get('b', now + 500)).toBeUndefined();
  });

  it('keeps nothing while deaf, nor a row read before it listened again', () => {
    const cache = new SessionCache(60_000);
    cache.keep('a', row('u1'), cache.begin(), now);
    expect(cache.size).toBe(0);
    const begun = cache.begin();
    cache.setLive(true);
    cache.keep('a', row('u1'), begun, now);
    expect(cache.size).toBe(0);
    cache.keep('a', row('u1'), cache.begin(), now);
    expect(cache.size).toBe(1);
    cache.setLive(false);
    expect(cache.get('a', now)).toBeUndefined();
  });

  it("drops an account's sessions on a notice, and refuses a row read before the notice arrived", () => {
    const cache = live();
    cache.keep('a', row('u1'), cache.begin(), now);
    cache.keep('b', row('u1'), cache.begin(), now);
    cache.keep('c', row('u2'), cache.begin(), now);
    const inFlight = cache.begin();
    cache.changed('u1');
    expect([cache.get('a', now), cache.get('b', now), cache.get('c', now)?.id]).toEqual([undefined, undefined, 'u2']);
    cache.keep('a', row('u1'), inFlight, now);
    expect(cache.get('a', now)).toBeUndefined();
    cache.keep('a', row('u1'), cache.begin(), now);
    expect(cache.get('a', now)?.id).toBe('u1');
  });

  it('holds an account this process is changing: not kept, not served, though read after the change', () => {
    const cache = live();
    cache.changing('u1');
    cache.keep('a', row('u1'), cache.begin(), now);
    expect(cache.size).toBe(0);
    cache.keep('c', row('u2'), cache.begin(), now);
    expect(cache.get('c', now)?.id).toBe('u2');
  });

  it('holds at most its bound, dropping the oldest', () => {
    const cache = live(60_000, 2);
    for (const k of ['a', 'b', 'c']) cache.keep(k, row(`u-${k}`), cache.begin(), now);
    expect(cache.size).toBe(2);
    expect(cache.get('a', now)).toBeUndefined();
    expect(cache.get('c', now)?.id).toBe('u-c');
  });
});
