import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Limit } from '../config.js';

/**
 * Counts failed logins per account identifier (normalised email or username, existing or not) in a fixed
 * window that starts at the first failure. Once `max` failures are counted, `lockedFor()` answers the
 * seconds left and the login route refuses with 429 until the window ends. A successful login clears it.
 *
 * In Redis when REDIS_URL is set (shared by every instance), else in this process's memory. Identifiers
 * are hashed in the key so Redis holds no email addresses. If Redis fails, login is not blocked (logged).
 */
export class LoginFailures {
  private readonly memory = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly limit: Limit,
    private readonly redis: Redis | undefined,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {}

  private key(identifier: string): string {
    return `${this.prefix}lf:${createHash('sha256').update(identifier.trim().toLowerCase()).digest('hex').slice(0, 40)}`;
  }

  private get windowMs(): number {
    return this.limit.windowSec * 1000;
  }

  /** Seconds until the account may try again, or 0 when it is not locked. */
  async lockedFor(identifier: string): Promise<number> {
    const key = this.key(identifier);
    if (this.redis) {
      try {
        const res = await this.redis.multi().get(key).pttl(key).exec();
        const count = Number(res?.[0]?.[1] ?? 0);
        const ttl = Number(res?.[1]?.[1] ?? 0);
        return count >= this.limit.max && ttl > 0 ? Math.ceil(ttl / 1000) : 0;
      } catch (err) {
        this.logger.warn({ err }, 'login failure counter unavailable (redis); not blocking');
        return 0;
      }
    }
    const entry = this.memory.get(key);
    const now = Date.now();
    if (!entry || entry.resetAt <= now) return 0;
    return entry.count >= this.limit.max ? Math.ceil((entry.resetAt - now) / 1000) : 0;
  }

  async recordFailure(identifier: string): Promise<void> {
    const key = this.key(identifier);
    if (this.redis) {
      try {
        // INCR and set the expiry on the first failure, atomically.
        await this.redis.eval("local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return n", 1, key, this.windowMs);
      } catch (err) {
        this.logger.warn({ err }, 'login failure counter unavailable (redis)');
      }
      return;
    }
    const now = Date.now();
    const entry = this.memory.get(key);
    if (!entry || entry.resetAt <= now) this.memory.set(key, { count: 1, resetAt: now + this.windowMs });
    else entry.count += 1;
    if (this.memory.size > 10_000) this.prune(now);
  }

  async clear(identifier: string): Promise<void> {
    const key = this.key(identifier);
    if (this.redis) {
      await this.redis.del(key).catch((err: unknown) => this.logger.warn({ err }, 'login failure counter unavailable (redis)'));
      return;
    }
    this.memory.delete(key);
  }

  private prune(now: number): void {
    for (const [key, entry] of this.memory) if (entry.resetAt <= now) this.memory.delete(key);
  }
}
