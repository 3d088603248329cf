import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Limit } from '../config.js';

/** What the login route needs to know before it verifies a password. */
export interface LoginGate {
  /** Seconds this (account, IP) pair must still wait; 0 = may try now. */
  waitSec: number;
  /** Failed logins of the account from every IP in the window: past the limit, a captcha is asked for (when configured). */
  accountFailures: number;
}

/**
 * Failed logins, counted per (account, client IP) pair and per account (LOGIN_FAILURE_LIMIT = `max/seconds`).
 *
 * - From the pair's `max`-th failure on, each failure makes the pair wait 2^(failures - max + 1) seconds (2, 4,
 *   8 … capped at the window) before its next attempt, answered 429 with Retry-After. The counter is
 *   forgotten `seconds` after the pair's last failure, and a successful login clears it.
 * - Nothing ever locks the account itself: a stranger hammering it from one address only slows that address
 *   down, and the owner logging in from another address is not affected. The account-wide count only makes the
 *   login route ask for a captcha, when the site has one configured, so a spread-out guessing attack costs a
 *   captcha per try instead of locking the owner out. Each address is also held by the per-IP login limit
 *   (RATE_LIMIT_LOGIN_IP, auth.routes.ts) against spraying many accounts.
 *
 * In Redis when REDIS_URL is set (shared by every instance), else in this process's memory. Accounts and
 * addresses are hashed in the keys so Redis holds no email addresses. If Redis fails, login is not slowed (logged).
 */
export class LoginFailures {
  private readonly pairs = new Map<string, { count: number; expiresAt: number; blockedUntil: number }>();
  private readonly accounts = new Map<string, { count: number; expiresAt: number }>();

  constructor(
    private readonly limit: Limit,
    private readonly redis: Redis | undefined,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {}

  private hash(value: string): string {
    return createHash('sha256').update(value).digest('hex').slice(0, 40);
  }

  private keys(account: string, ip: string) {
    const pair = this.hash(`${account.trim().toLowerCase()}\n${ip}`);
    return { count: `${this.prefix}lf:p:${pair}`, block: `${this.prefix}lf:b:${pair}`, account: `${this.prefix}lf:a:${this.hash(account.trim().toLowerCase())}` };
  }

  private get windowMs(): number {
    return this.limit.windowSec * 1000;
  }

  /** The wait the pair's `count`-th failure imposes: none before the `max`-th, then 2 s, 4 s, 8 s … at most the window. */
  delayMs(count: number): number {
    if (count < this.limit.max) return 0;
    return Math.min(2 ** Math.min(count - this.limit.max + 1, 30) * 1000, this.windowMs);
  }

  async check(account: string, ip: string): Promise<LoginGate> {
    const k = this.keys(account, ip);
    if (this.redis) {
      try {
        const res = await this.redis.multi().pttl(k.block).get(k.account).exec();
        const blockMs = Number(res?.[0]?.[1] ?? 0);
        return { waitSec: blockMs > 0 ? Math.ceil(blockMs / 1000) : 0, accountFailures: Number(res?.[1]?.[1] ?? 0) };
      } catch (err) {
        this.logger.warn({ err }, 'login failure counter unavailable (redis); not slowing logins');
        return { waitSec: 0, accountFailures: 0 };
      }
    }
    const now = Date.now();
    const pair = this.pairs.get(k.count);
    const acc = this.accounts.get(k.account);
    return {
      waitSec: pair && pair.blockedUntil > now ? Math.ceil((pair.blockedUntil - now) / 1000) : 0,
      accountFailures: acc && acc.expiresAt > now ? acc.count : 0,
    };
  }

  async recordFailure(account: string, ip: string): Promise<void> {
    const k = this.keys(account, ip);
    if (this.redis) {
      try {
        // Count, extend both windows from this failure, and set the pair's wait: one atomic step on every instance.
        await this.redis.eval(
          `local n = redis.call('INCR', KEYS[1])
           redis.call('PEXPIRE', KEYS[1], ARGV[1])
           redis.call('INCR', KEYS[3])
           redis.call('PEXPIRE', KEYS[3], ARGV[1])
           local max = tonumber(ARGV[2])
           if n >= max then
             local d = math.min(math.pow(2, math.min(n - max + 1, 30)) * 1000, tonumber(ARGV[1]))
             redis.call('SET', KEYS[2], '1', 'PX', d)
           end
           return n`,
          3,
          k.count,
          k.block,
          k.account,
          this.windowMs,
          this.limit.max,
        );
      } catch (err) {
        this.logger.warn({ err }, 'login failure counter unavailable (redis)');
      }
      return;
    }
    const now = Date.now();
    const pair = this.pairs.get(k.count);
    const count = pair && pair.expiresAt > now ? pair.count + 1 : 1;
    const delay = this.delayMs(count);
    this.pairs.set(k.count, { count, expiresAt: now + this.windowMs, blockedUntil: delay ? now + delay : 0 });
    const acc = this.accounts.get(k.account);
    this.accounts.set(k.account, { count: acc && acc.expiresAt > now ? acc.count + 1 : 1, expiresAt: now + this.windowMs });
    if (this.pairs.size + this.accounts.size > 20_000) this.prune(now);
  }

  /**
   * After a successful login: this pair starts afresh. The account-wide count stays (it expires by itself): an
   * attack spread over many addresses keeps needing captchas even while the owner logs in now and then.
   */
  async clear(account: string, ip: string): Promise<void> {
    const k = this.keys(account, ip);
    if (this.redis) {
      await this.redis.del(k.count, k.block).catch((err: unknown) => this.logger.warn({ err }, 'login failure counter unavailable (redis)'));
      return;
    }
    this.pairs.delete(k.count);
  }

  /** After a password reset (the owner proved they read the account's mail): the account's captcha requirement ends. */
  async clearAccount(account: string): Promise<void> {
    const key = this.keys(account, '').account;
    if (this.redis) {
      await this.redis.del(key).catch((err: unknown) => this.logger.warn({ err }, 'login failure counter unavailable (redis)'));
      return;
    }
    this.accounts.delete(key);
  }

  private prune(now: number): void {
    for (const [key, entry] of this.pairs) if (entry.expiresAt <= now) this.pairs.delete(key);
    for (const [key, entry] of this.accounts) if (entry.expiresAt <= now) this.accounts.delete(key);
  }
}
