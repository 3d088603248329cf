import { describe, expect, it } from 'vitest';
import { formatPercent, moneyInput, parseMoney, parsePercent, percentInput } from '../../common/money.js';

/**
 * What an admin types into a price or percent field (common/money.ts) and what the API receives: integer minor
 * units and basis points, or a message in words. Decisions: "4.999" is refused (never rounded: a price must not
 * change behind the admin's back), "4.990" is exactly 4.99 and accepted; commas are thousands separators only.
 */
describe('parseMoney: typed money → minor units', () => {
  it.each([
    ['4.99', 499],
    ['4.9', 490],
    ['4.', 400],
    ['.5', 50],
    ['5', 500],
    ['0', 0],
    ['0.01', 1],
    ['007.50', 750],
    ['4.990', 499],
    ['1,000.50', 100050],
    ['12,345,678', 1234567800],
    [' $4.99 ', 499],
    ['$ 4.99', 499],
    ['4.99$', 499],
    ['1000000', 100_000_000],
  ])('"%s" → %i', (text, minor) => {
    const max = minor > 100_000_000 ? minor : undefined;
    expect(parseMoney(text, { symbol: '$', ...(max ? { max } : {}) })).toEqual({ ok: true, value: minor });
  });

  it('reads the digits, not a float: 0.29, 1.15, 4.35 and 1234567.89 come out exact', () => {
    // As floats, 0.29 * 100 = 28.999999999999996 and 4.35 * 100 = 434.99999999999994.
    expect(parseMoney('0.29')).toEqual({ ok: true, value: 29 });
    expect(parseMoney('1.15')).toEqual({ ok: true, value: 115 });
    expect(parseMoney('4.35')).toEqual({ ok: true, value: 435 });
    expect(parseMoney('1234567.89', { max: 1e12 })).toEqual({ ok: true, value: 123456789 });
  });

  it.each([
    ['', 'Enter an amount like 4.99'],
    ['   ', 'Enter an amount like 4.99'],
    ['$', 'Enter an amount like 4.99'],
    ['-4.99', 'The amount cannot be negative'],
    ['−1', 'The amount cannot be negative'],
    ['$-4.99', 'The amount cannot be negative'],
    ['-$4.99', 'The amount cannot be negative'],
    ['4.999', 'Use at most two decimals, like 4.99'],
    ['4.991', 'Use at most two decimals, like 4.99'],
    ['4,99', 'Use a dot for decimals, like 4.99'],
    ['1,00', 'Use a dot for decimals, like 4.99'],
    ['1,0000', 'Enter an amount like 4.99'],
    ['abc', 'Enter an amount like 4.99'],
    ['4.99.1', 'Enter an amount like 4.99'],
    ['1e3', 'Enter an amount like 4.99'],
    ['0x10', 'Enter an amount like 4.99'],
    ['Infinity', 'Enter an amount like 4.99'],
    ['€4.99', 'Enter an amount like 4.99'],
    ['1000000.01', 'The amount must be at most $1,000,000.00'],
    ['99999999999999999999', 'The amount must be at most $1,000,000.00'],
  ])('"%s" is refused: %s', (text, message) => {
    expect(parseMoney(text, { symbol: '$' })).toEqual({ ok: false, message });
  });

  it('keeps to the bounds it is given and names them with the site symbol', () => {
    expect(parseMoney('0', { min: 1, symbol: '€' })).toEqual({ ok: false, message: 'The amount must be at least €0.01' });
    expect(parseMoney('€4.99', { symbol: '€' })).toEqual({ ok: true, value: 499 });
    expect(parseMoney('4.99 €', { symbol: '€' })).toEqual({ ok: true, value: 499 });
    expect(parseMoney('10.01', { max: 1000 })).toEqual({ ok: false, message: 'The amount must be at most $10.00' });
  });

  it('round-trips through the text a form starts with', () => {
    for (const minor of [0, 1, 9, 10, 99, 100, 499, 1299, 100050, 100_000_000]) {
      expect(parseMoney(moneyInput(minor))).toEqual({ ok: true, value: minor });
    }
    expect(moneyInput(499)).toBe('4.99');
    expect(moneyInput(500)).toBe('5.00');
    expect(moneyInput(5)).toBe('0.05');
  });
});

describe('parsePercent: typed percentage → basis points', () => {
  it.each([
    ['15', 1500],
    ['15 %', 1500],
    ['15%', 1500],
    ['12.5', 1250],
    ['12.34', 1234],
    ['0.01', 1],
    ['100', 10_000],
    ['0', 0],
    ['7.10', 710],
    ['33.330', 3333],
  ])('"%s" → %i bps', (text, bps) => {
    expect(parsePercent(text)).toEqual({ ok: true, value: bps });
  });

  it.each([
    ['', 'Enter a percentage like 15'],
    ['%', 'Enter a percentage like 15'],
    ['-5', 'The percentage cannot be negative'],
    ['12.345', 'Use at most two decimals, like 12.5'],
    ['12,5', 'Use a dot for decimals, like 12.5'],
    ['fifteen', 'Enter a percentage like 15'],
    ['100.01', 'The percentage must be at most 100 %'],
    ['1500', 'The percentage must be at most 100 %'],
    ['12345678', 'The percentage must be at most 100 %'],
  ])('"%s" is refused: %s', (text, message) => {
    expect(parsePercent(text)).toEqual({ ok: false, message });
  });

  it('keeps to the bounds it is given', () => {
    expect(parsePercent('0', { min: 1 })).toEqual({ ok: false, message: 'The percentage must be at least 0.01 %' });
    expect(parsePercent('50', { max: 5000 })).toEqual({ ok: true, value: 5000 });
  });

  it('formats basis points for a form and for display, and round-trips', () => {
    expect(percentInput(1500)).toBe('15');
    expect(percentInput(1550)).toBe('15.5');
    expect(percentInput(1234)).toBe('12.34');
    expect(percentInput(1)).toBe('0.01');
    expect(formatPercent(2000)).toBe('20 %');
    for (const bps of [0, 1, 10, 99, 100, 1250, 3333, 10_000]) expect(parsePercent(percentInput(bps))).toEqual({ ok: true, value: bps });
  });
});
