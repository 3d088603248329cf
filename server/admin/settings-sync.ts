import type { Redis } from 'ioredis';
import type { AppContext } from '../context.js';

/**
 * Settings changes reach every instance: each instance's settings cache expires after SETTINGS_CACHE_MS and is
 * then re-read from the shared database. With REDIS_URL, a change is also announced on a channel and every
 * instance drops its cache at once (the TTL stays the fallback if a message is lost).
 */

export const channelOf = (ctx: Pick<AppContext, 'config'>) => `${ctx.config.redisKeyPrefix}settings:invalidate`;

export function announceSettingsChange(ctx: Pick<AppContext, 'config' | 'redis' | 'settings' | 'logger'>): void {
  ctx.settings.invalidate();
  ctx.redis?.publish(channelOf(ctx), String(Date.now())).catch((err: Error) => ctx.logger.warn({ err: err.message }, 'settings invalidation not published'));
}

/** Subscribes this instance to the channel; returns the closer (or undefined without Redis). */
export function listenForSettingsChanges(ctx: Pick<AppContext, 'config' | 'redis' | 'settings' | 'logger'>): (() => Promise<void>) | undefined {
  if (!ctx.redis) return undefined;
  const sub: Redis = ctx.redis.duplicate();
  sub.on('error', (err) => ctx.logger.warn({ err: err.message }, 'settings subscriber error'));
  const channel = channelOf(ctx);
  sub.subscribe(channel).catch((err: Error) => ctx.logger.warn({ err: err.message }, 'settings subscriber could not subscribe'));
  sub.on('message', (ch) => {
    if (ch === channel) ctx.settings.invalidate();
  });
  return async () => {
    await sub.quit().catch(() => sub.disconnect());
  };
}
