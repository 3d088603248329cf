import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { LoginFailures } from '../../server/auth/login-failures.js';
import { services, warnMissing } from '../helpers/services.js';

/**
 * Failed-login counting (server/auth/login-failures.ts) on its own, in both stores: this process's memory, and Redis
 * (the real server at REDIS_URL). The same table of behaviour runs against each; time is the fake clock in memory and
 * a one-second window in Redis (whose expiry is its own).
 */

warnMissing('redis', 'login failure counting in Redis');

function logger() {
  const warnings: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  const log = { warn: (obj: Record<string, unknown>, msg: string) => warnings.push({ obj, msg }) } as unknown as Logger;
  return { log, warnings };
}

describe('the wait a failure imposes', () => {
  const lf = new LoginFailures({ max: 3, windowSec: 60 }, undefined, 't:', logger().log);
  it.each([
    [1, 0], [2, 0], [3, 2_000], [4, 4_000], [5, 8_000], [6, 16_000], [7, 32_000], [8, 60_000], [40, 60_000], [10_000, 60_000],
  ])('failure %i waits %i ms (max 3, window 60 s)', (count, ms) => {
    expect(lf.delayMs(count)).toBe(ms);
  });
});

interface Store {
  name: string;
  make(limit: { max: number; windowSec: number }): { lf: LoginFailures; warnings: ReturnType<typeof logger>['warnings'] };
  /** Lets the window pass: `ms` after the last failure. */
  pass(ms: number): Promise<void>;
  windowSec: number;
}

let redis: Redis | undefined;
const prefix = `test:lf:${process.pid}:${Date.now()}:`;

const stores: Store[] = [
  {
    name: 'memory',
    windowSec: 60,
    make(limit) {
      const { log, warnings } = logger();
      return { lf: new LoginFailures(limit, undefined, 't:', log), warnings };
    },
    async pass(ms) {
      vi.advanceTimersByTime(ms);
    },
  },
  ...(services.redis
    ? [
        {
          name: 'redis',
          windowSec: 1,
          make(limit: { max: number; windowSec: number }) {
            const { log, warnings } = logger();
            return { lf: new LoginFailures(limit, redis!, `${prefix}${Math.random().toString(36).slice(2)}:`, log), warnings };
          },
          async pass(ms: number) {
            await new Promise((r) => setTimeout(r, ms + 50));
          },
        },
      ]
    : []),
];

beforeAll(() => {
  if (services.redis) redis = new Redis(process.env.REDIS_URL!);
});
afterAll(async () => {
  if (redis) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
});

describe.each(stores)('counting failures in $name', (store) => {
  const W = store.windowSec * 1000;
  beforeAll(() => {
    if (store.name === 'memory') vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterAll(() => {
    vi.useRealTimers();
  });

  it('lets a pair try freely until its max-th failure, then makes it wait 2 s, then 4 s', async () => {
    const { lf } = store.make({ max: 3, windowSec: store.windowSec === 1 ? 60 : store.windowSec });
    expect(await lf.check('fan@example.com', '10.0.0.1')).toEqual({ waitSec: 0, accountFailures: 0 });
    await lf.recordFailure('fan@example.com', '10.0.0.1');
    await lf.recordFailure('fan@example.com', '10.0.0.1');
    expect(await lf.check('fan@example.com', '10.0.0.1')).toEqual({ waitSec: 0, accountFailures: 2 });
    await lf.recordFailure('fan@example.com', '10.0.0.1');
    expect(await lf.check('fan@example.com', '10.0.0.1')).toEqual({ waitSec: 2, accountFailures: 3 });
    await lf.recordFailure('fan@example.com', '10.0.0.1');
    expect(await lf.check('fan@example.com', '10.0.0.1')).toEqual({ waitSec: 4, accountFailures: 4 });
  });

  it('counts the account across addresses (for the captcha) but makes only the failing address wait; spelling does not matter', async () => {
    const { lf } = store.make({ max: 2, windowSec: 60 });
    await lf.recordFailure(' Owner@Example.com ', '10.0.0.1');
    await lf.recordFailure('owner@example.com', '10.0.0.1');
    await lf.recordFailure('OWNER@example.com', '10.0.0.2');
    expect(await lf.check('owner@example.com', '10.0.0.1')).toEqual({ waitSec: 2, accountFailures: 3 });
    expect(await lf.check('owner@example.com', '10.0.0.2')).toEqual({ waitSec: 0, accountFailures: 3 });
    expect(await lf.check('someone-else@example.com', '10.0.0.1')).toEqual({ waitSec: 0, accountFailures: 0 });
  });

  it('a successful login clears its pair, not the account count; a password reset clears the account count', async () => {
    const { lf } = store.make({ max: 2, windowSec: 60 });
    for (let i = 0; i < 3; i++) await lf.recordFailure('reset@example.com', '10.0.0.9');
    expect((await lf.check('reset@example.com', '10.0.0.9')).waitSec).toBeGreaterThan(0);
    await lf.clear('reset@example.com', '10.0.0.9');
    expect(await lf.check('reset@example.com', '10.0.0.9')).toEqual({ waitSec: 0, accountFailures: 3 });
    // The next failure starts the pair afresh: no wait yet.
    await lf.recordFailure('reset@example.com', '10.0.0.9');
    expect(await lf.check('reset@example.com', '10.0.0.9')).toEqual({ waitSec: 0, accountFailures: 4 });
    await lf.clearAccount(' RESET@example.com');
    expect(await lf.check('reset@example.com', '10.0.0.9')).toEqual({ waitSec: 0, accountFailures: 0 });
  });

  it('forgets a pair and an account a window after the last failure, not before', async () => {
    const { lf } = store.make({ max: 1, windowSec: store.windowSec });
    await lf.recordFailure('later@example.com', '10.0.0.3');
    await store.pass(W / 2);
    await lf.recordFailure('later@example.com', '10.0.0.3');
    const before = await lf.check('later@example.com', '10.0.0.3');
    expect(before.accountFailures).toBe(2);
    expect(before.waitSec).toBe(store.windowSec === 1 ? 1 : 4);
    await store.pass(W);
    expect(await lf.check('later@example.com', '10.0.0.3')).toEqual({ waitSec: 0, accountFailures: 0 });
    // Counting restarts at one.
    await lf.recordFailure('later@example.com', '10.0.0.3');
    expect((await lf.check('later@example.com', '10.0.0.3')).accountFailures).toBe(1);
  });

  if (store.name === 'memory') {
    it('at the exact end of the window and of the wait, both are over', async () => {
      const { lf } = store.make({ max: 1, windowSec: 60 });
      await lf.recordFailure('edge@example.com', '10.0.0.4');
      expect((await lf.check('edge@example.com', '10.0.0.4')).waitSec).toBe(2);
      vi.advanceTimersByTime(1_999);
      expect((await lf.check('edge@example.com', '10.0.0.4')).waitSec).toBe(1);
      vi.advanceTimersByTime(1);
      expect((await lf.check('edge@example.com', '10.0.0.4')).waitSec).toBe(0);
      vi.advanceTimersByTime(60_000 - 2_000 - 1);
      expect((await lf.check('edge@example.com', '10.0.0.4')).accountFailures).toBe(1);
      vi.advanceTimersByTime(1);
      expect((await lf.check('edge@example.com', '10.0.0.4')).accountFailures).toBe(0);
      // The pair's count ended with the window too: the next failure is the first again (wait 2 s, not 4 s).
      await lf.recordFailure('edge@example.com', '10.0.0.4');
      expect((await lf.check('edge@example.com', '10.0.0.4')).waitSec).toBe(2);
    });

    it('keeps its memory bounded: past 20,000 entries the expired ones are dropped, and only then', async () => {
      const { lf } = store.make({ max: 5, windowSec: 60 });
      const sizes = () => {
        const inner = lf as unknown as { pairs: Map<string, unknown>; accounts: Map<string, unknown> };
        return inner.pairs.size + inner.accounts.size;
      };
      for (let i = 0; i < 9_999; i++) await lf.recordFailure(`a${i}@example.com`, '10.1.0.1');
      expect(sizes()).toBe(19_998);
      vi.advanceTimersByTime(61_000);
      // Expired but under the bound: kept (no sweep on every failure).
      await lf.recordFailure('b0@example.com', '10.1.0.1');
      expect(sizes()).toBe(20_000);
      // Over the bound: everything expired goes, the live entries stay.
      await lf.recordFailure('b1@example.com', '10.1.0.1');
      expect(sizes()).toBe(4);
      expect((await lf.check('b0@example.com', '10.1.0.1')).accountFailures).toBe(1);
    });
  }

  if (store.name === 'redis') {
    it('keeps no address in Redis: keys are hashed, 40 hex characters', async () => {
      const p = `${prefix}keys:`;
      const { log } = logger();
      const lf = new LoginFailures({ max: 1, windowSec: 60 }, redis!, p, log);
      await lf.recordFailure('private@example.com', '10.0.0.5');
      const keys = (await redis!.keys(`${p}*`)).sort();
      expect(keys).toHaveLength(3);
      for (const k of keys) expect(k).toMatch(new RegExp(`^${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}lf:[abp]:[0-9a-f]{40}$`));
      expect(keys.join(' ')).not.toContain('private');
    });
  }
});

describe('when Redis fails', () => {
  let broken: Redis;
  beforeAll(() => {
    // Nothing listens on port 1: every command fails at once.
    broken = new Redis({ host: '127.0.0.1', port: 1, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
  });
  afterAll(() => broken.disconnect());
  afterEach(() => vi.useRealTimers());

  it('does not slow logins, and says so in the log', async () => {
    const { log, warnings } = logger();
    const lf = new LoginFailures({ max: 1, windowSec: 60 }, broken, 'x:', log);
    await lf.recordFailure('fan@example.com', '10.0.0.1');
    expect(await lf.check('fan@example.com', '10.0.0.1')).toEqual({ waitSec: 0, accountFailures: 0 });
    await lf.clear('fan@example.com', '10.0.0.1');
    await lf.clearAccount('fan@example.com');
    expect(warnings.map((w) => w.msg)).toEqual([
      'login failure counter unavailable (redis)',
      'login failure counter unavailable (redis); not slowing logins',
      'login failure counter unavailable (redis)',
      'login failure counter unavailable (redis)',
    ]);
    for (const w of warnings) expect(w.obj.err).toBeInstanceOf(Error);
  });
});
