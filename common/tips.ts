import { formatMoney } from './money.js';

/**
 * Tips' amount rules, shared by the tip dialog (what it offers and says) and the server (what it accepts): amounts are
 * whole minor units (cents) between the site's limits (settings `tipMinimum`, `tipMaximum`). No zod here: the dialog
 * loads this module.
 */

export interface TipLimits {
  /** Smallest tip, minor units. */
  min: number;
  /** Largest tip, minor units. */
  max: number;
}

/** The longest note a fan may send with a tip (characters, after trimming). */
export const TIP_NOTE_MAX = 200;

/** The amounts the dialog offers first ($5, $10, $20, $50), those within the limits. */
const PRESETS = [500, 1000, 2000, 5000];

/** The preset amounts within the limits; when none fits, the smallest tip alone (so there is always one to click). */
export function tipPresets(limits: TipLimits): number[] {
  const fit = PRESETS.filter((p) => p >= limits.min && p <= limits.max);
  return fit.length ? fit : [limits.min];
}

export type TipAmountProblem = { code: 'TIP_NOT_WHOLE' | 'TIP_TOO_SMALL' | 'TIP_TOO_LARGE'; message: string };

/** Why an amount cannot be tipped, or null when it can. `symbol`: the site's currency symbol, for the message. */
export function tipAmountProblem(amount: number, limits: TipLimits, symbol = '$'): TipAmountProblem | null {
  if (!Number.isSafeInteger(amount)) return { code: 'TIP_NOT_WHOLE', message: 'A tip is a whole number of cents' };
  if (amount < limits.min) return { code: 'TIP_TOO_SMALL', message: `The smallest tip is ${formatMoney(limits.min, symbol)}` };
  if (amount > limits.max) return { code: 'TIP_TOO_LARGE', message: `The largest tip is ${formatMoney(limits.max, symbol)}` };
  return null;
}
