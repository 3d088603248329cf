import { randomBytes } from 'node:crypto';

/**
 * Time-ordered ids (UUIDv7 layout, hex without dashes): newer rows sort after older ones,
 * which keeps primary-key indexes append-only and makes ids usable as cursor tie-breakers.
 */
export function newId(now = Date.now()): string {
  const time = now.toString(16).padStart(12, '0');
  const rand = randomBytes(10).toString('hex');
  return `${time}7${rand.slice(0, 3)}${((parseInt(rand[3]!, 16) & 0x3) | 0x8).toString(16)}${rand.slice(4, 19)}`;
}

export function nowIso(date = new Date()): string {
  return date.toISOString();
}
