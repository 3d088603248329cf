import pg from 'pg';
import { Redis } from 'ioredis';
import { howToGet, onCi, services, type Service } from '../helpers/services.js';

/**
 * vitest global setup. With `CI` set every outside service must be there and answer: PostgreSQL and Redis are
 * connected to (not just named), Chromium and the built site must exist. A missing one fails the run with what to do,
 * so CI can never go green by skipping the suites that need it. Without `CI` it does nothing (local skips warn).
 */
export default async function requireServices(): Promise<void> {
  if (!onCi) return;
  const problems: string[] = [];
  for (const [name, present] of Object.entries(services) as [Service, boolean][]) {
    if (!present) problems.push(`${name}: ${howToGet[name]}`);
  }
  if (services.postgres) {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 5_000 });
    try {
      await client.connect();
      await client.query('select 1');
    } catch (err) {
      problems.push(`postgres: cannot connect to DATABASE_URL (${(err as Error).message})`);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  if (services.redis) {
    const redis = new Redis(process.env.REDIS_URL!, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 5_000, retryStrategy: () => null });
    try {
      await redis.connect();
      await redis.ping();
    } catch (err) {
      problems.push(`redis: cannot reach REDIS_URL (${(err as Error).message})`);
    } finally {
      redis.disconnect();
    }
  }
  if (problems.length > 0) {
    throw new Error(`CI is set, so every service the suite uses must be present; missing:\n  - ${problems.join('\n  - ')}`);
  }
}
