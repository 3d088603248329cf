import { describe, expect, it } from 'vitest';
import { BPS, commissionRateFor, couponDiscount, priceLines, splitCommission } from '../../server/payments/pricing.js';

/**
 * The guards of the money arithmetic (server/payments/pricing.ts): amounts are whole, non-negative cents, rates whole
 * basis points from 0 to 100 %, quantities whole and positive. Each bound is checked on both sides, and a refusal
 * names what was wrong.
 */
describe('pricing guards', () => {
  const amountMessage = (what: string, v: number) => `${what} must be a non-negative integer of minor units, got ${v}`;
  const rateMessage = (v: number) => `rate must be an integer between 0 and 10000 basis points, got ${v}`;

  it('an amount is whole, non-negative cents: zero is an amount, a fraction, a negative or an unsafe integer is not', () => {
    expect(couponDiscount(0, 5000)).toBe(0);
    expect(couponDiscount(1, 5000)).toBe(0);
    expect(couponDiscount(Number.MAX_SAFE_INTEGER, 0)).toBe(0);
    expect(() => couponDiscount(-1, 0)).toThrow(new RangeError(amountMessage('amount', -1)));
    expect(() => couponDiscount(0.5, 0)).toThrow(new RangeError(amountMessage('amount', 0.5)));
    expect(() => couponDiscount(2 ** 53, 0)).toThrow(new RangeError(amountMessage('amount', 2 ** 53)));
    expect(() => splitCommission(-5, 0)).toThrow(new RangeError(amountMessage('gross', -5)));
    expect(splitCommission(0, 2000)).toEqual({ gross: 0, commission: 0, net: 0 });
  });

  it('a rate is whole basis points from 0 to 100 %, both ends included', () => {
    expect(couponDiscount(1000, 0)).toBe(0);
    expect(couponDiscount(1000, BPS)).toBe(1000);
    expect(splitCommission(1000, BPS)).toEqual({ gross: 1000, commission: 1000, net: 0 });
    for (const bad of [-1, BPS + 1, 2.5]) {
      expect(() => couponDiscount(1000, bad)).toThrow(new RangeError(rateMessage(bad)));
      expect(() => priceLines([{ unitPrice: 100, quantity: 1 }], bad)).toThrow(new RangeError(rateMessage(bad)));
      expect(() => splitCommission(1000, bad)).toThrow(new RangeError(rateMessage(bad)));
      expect(() => commissionRateFor(bad, 2000)).toThrow(new RangeError(rateMessage(bad)));
    }
  });

  it('a cart line has a whole unit price in cents and a whole positive quantity', () => {
    expect(priceLines([{ unitPrice: 0, quantity: 1 }])).toMatchObject({ originalPrice: 0, discount: 0, amount: 0 });
    expect(priceLines([{ unitPrice: 250, quantity: 1 }]).amount).toBe(250);
    expect(() => priceLines([{ unitPrice: -1, quantity: 1 }])).toThrow(new RangeError(amountMessage('unit price', -1)));
    expect(() => priceLines([{ unitPrice: 9.99, quantity: 1 }])).toThrow(new RangeError(amountMessage('unit price', 9.99)));
    for (const q of [0, -1, 1.5, 2 ** 53]) {
      expect(() => priceLines([{ unitPrice: 100, quantity: q }])).toThrow(new RangeError(`quantity must be a positive integer, got ${q}`));
    }
  });

  it('an empty cart costs nothing; each line keeps its own share of the coupon', () => {
    expect(priceLines([], 1000)).toEqual({ lines: [], originalPrice: 0, discount: 0, amount: 0 });
    const p = priceLines([{ unitPrice: 1500, quantity: 3 }, { unitPrice: 999, quantity: 1 }], 1000);
    expect(p.lines.map(({ total, discount, amount }) => ({ total, discount, amount }))).toEqual([
      { total: 4500, discount: 450, amount: 4050 },
      { total: 999, discount: 99, amount: 900 },
    ]);
    expect({ originalPrice: p.originalPrice, discount: p.discount, amount: p.amount }).toEqual({ originalPrice: 5499, discount: 549, amount: 4950 });
  });
});
