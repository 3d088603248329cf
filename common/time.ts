/** Durations in milliseconds, for date arithmetic on both sides (no zod, no Node: a page may load it). */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
/** A day as the money rules count it: periods, grace, holds and trials are whole days of 24 hours (no calendar). */
export const DAY_MS = 24 * HOUR_MS;
