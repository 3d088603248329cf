import { describe, expect, it } from 'vitest';
import { BPS, commissionRateFor, couponDiscount, priceLines, shareRefund, splitCommission, type Split } from '../../server/payments/pricing.js';

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

/**
 * A partial refund shared over a payment's items (shareRefund): the shares add up to the refund, each share's parts add
 * up, no item gives back more than it has left, and the split follows each item's remaining gross and commission.
 */
describe('shareRefund', () => {
  const sum = (xs: Split[], k: keyof Split) => xs.reduce((n, x) => n + x[k], 0);

  it('shares by remaining gross, cents to the largest remainder, ties to the earlier item', () => {
    // 1500 (20 %) and 2500 (10 %): 1000 is 375 and 625.
    expect(shareRefund(1000, [splitCommission(1500, 2000), splitCommission(2500, 1000)])).toEqual([
      { gross: 375, commission: 75, net: 300 },
      { gross: 625, commission: 63, net: 562 },
    ]);
    // Three equal items, 100 to share: 33.33 each, the cent left goes to the first.
    expect(shareRefund(100, [splitCommission(300, 0), splitCommission(300, 0), splitCommission(300, 0)]).map((s) => s.gross)).toEqual([34, 33, 33]);
    // A tie goes to the earlier item (5 over 3 and 7 is 1.5 and 3.5); else the largest remainder (3 over 1 and 9 is 0.3 and 2.7).
    expect(shareRefund(5, [{ gross: 3, commission: 0, net: 3 }, { gross: 7, commission: 0, net: 7 }]).map((s) => s.gross)).toEqual([2, 3]);
    expect(shareRefund(3, [{ gross: 1, commission: 0, net: 1 }, { gross: 9, commission: 0, net: 9 }]).map((s) => s.gross)).toEqual([0, 3]);
  });

  it('all of what is left, nothing, or an item with nothing left', () => {
    const left = [splitCommission(999, 2000), { gross: 0, commission: 0, net: 0 }, splitCommission(1, 2000)];
    expect(shareRefund(1000, left)).toEqual(left);
    expect(shareRefund(0, left)).toEqual([{ gross: 0, commission: 0, net: 0 }, { gross: 0, commission: 0, net: 0 }, { gross: 0, commission: 0, net: 0 }]);
    expect(() => shareRefund(1001, left)).toThrow(new RangeError('a refund of 1001 is more than the 1000 left'));
    expect(() => shareRefund(-1, left)).toThrow(RangeError);
    expect(() => shareRefund(1.5, left)).toThrow(RangeError);
    expect(() => shareRefund(1, [{ gross: -1, commission: 0, net: -1 }, splitCommission(5, 0)])).toThrow(RangeError);
  });

  it('commission rounds half up within an item', () => {
    // 25 % of 2: 0.5 rounds up to 1; of 1: 0.25 rounds down to 0.
    expect(shareRefund(2, [{ gross: 4, commission: 1, net: 3 }])).toEqual([{ gross: 2, commission: 1, net: 1 }]);
    expect(shareRefund(1, [{ gross: 4, commission: 1, net: 3 }])).toEqual([{ gross: 1, commission: 0, net: 1 }]);
  });

  it('refunds of any size over any items add up exactly and never take more than is left (1,000 random cases)', () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 1000; i++) {
      const items = Array.from({ length: 1 + rand(5) }, () => splitCommission(rand(100_000), rand(BPS + 1)));
      const total = sum(items, 'gross');
      const amount = total === 0 ? 0 : rand(total + 1);
      const shares = shareRefund(amount, items);
      expect(sum(shares, 'gross')).toBe(amount);
      shares.forEach((s, k) => {
        expect(s.commission + s.net).toBe(s.gross);
        expect(s.gross).toBeLessThanOrEqual(items[k]!.gross);
        expect(s.commission).toBeGreaterThanOrEqual(0);
        expect(s.net).toBeGreaterThanOrEqual(0);
        expect(s.commission).toBeLessThanOrEqual(items[k]!.commission);
        expect(s.net).toBeLessThanOrEqual(items[k]!.net);
      });
    }
  });

  it('amounts beyond 2^53 when multiplied stay exact', () => {
    const big = [splitCommission(900_000_000, 2000), splitCommission(100_000_000, 2000)];
    expect(shareRefund(999_999_999, big).map((s) => s.gross)).toEqual([899_999_999, 100_000_000]);
  });
});
