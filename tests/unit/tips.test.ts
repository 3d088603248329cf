import { describe, expect, it } from 'vitest';
import { tipAmountProblem, tipPresets } from '../../common/tips.js';
import { tipNotice } from '../../src/lib/stores/tips.js';

/** The tip amount rules the dialog and the server share (common/tips.ts), and the performer's live notice. */
describe('tip amounts', () => {
  const limits = { min: 100, max: 50_000 };

  it('offers the presets within the limits, else the smallest tip', () => {
    expect(tipPresets(limits)).toEqual([500, 1000, 2000, 5000]);
    expect(tipPresets({ min: 800, max: 2500 })).toEqual([1000, 2000]);
    expect(tipPresets({ min: 6000, max: 9000 })).toEqual([6000]);
    expect(tipPresets({ min: 500, max: 500 })).toEqual([500]);
  });

  it('takes whole cents between the limits, both ends included', () => {
    expect(tipAmountProblem(100, limits)).toBeNull();
    expect(tipAmountProblem(50_000, limits)).toBeNull();
    expect(tipAmountProblem(99, limits)).toEqual({ code: 'TIP_TOO_SMALL', message: 'The smallest tip is $1.00' });
    expect(tipAmountProblem(50_001, limits, '€')).toEqual({ code: 'TIP_TOO_LARGE', message: 'The largest tip is €500.00' });
    for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) expect(tipAmountProblem(bad, limits)?.code).toBe('TIP_NOT_WHOLE');
  });

  it("words the performer's notice with the fan's name, or 'A fan'", () => {
    expect(tipNotice({ amount: 750, actorName: 'Tina' }, '$')).toBe('Tina tipped you $7.50!');
    expect(tipNotice({ amount: 100_000, actorName: null }, '')).toBe('A fan tipped you $1,000.00!');
  });
});
