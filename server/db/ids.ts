import { randomBytes } from 'node:crypto';

const RAND_BITS = 74n; // UUIDv7 leaves 74 bits after the 48-bit time, the version and the variant
let lastTime = -1;
let lastRand = 0n;

/**
 * Time-ordered ids (UUIDv7 layout, hex without dashes): newer rows sort after older ones,
 * which keeps primary-key indexes append-only and makes ids usable as cursor tie-breakers.
 * Ids made in the same millisecond by this process count up from a random start (RFC 9562,
 * "monotonic random"), so two writes that share a timestamp still sort in the order they
 * were made: a fast machine writes several rows per millisecond, and "oldest first" must
 * not turn into a coin toss between them.
 */
export function newId(now = Date.now()): string {
  if (now === lastTime) lastRand += 1n;
  else {
    lastTime = now;
    // The top bit starts clear so counting up within one millisecond cannot overflow.
    lastRand = BigInt(`0x${randomBytes(10).toString('hex')}`) & ((1n << (RAND_BITS - 1n)) - 1n);
  }
  const randA = Number(lastRand >> 62n); // 12 bits
  const randB = lastRand & ((1n << 62n) - 1n); // 62 bits, under the 2-bit variant
  const time = now.toString(16).padStart(12, '0');
  return `${time}7${randA.toString(16).padStart(3, '0')}${((2n << 62n) | randB).toString(16)}`;
}

export function nowIso(date = new Date()): string {
  return date.toISOString();
}
