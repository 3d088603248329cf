/**
 * Money is integer minor units everywhere and rates are integer basis points (1 % = 100 bps). This file is the one
 * place that turns them into text and back: `formatMoney` for display, `parseMoney` / `parsePercent` for what a
 * person types into a form ("4.99", "15"), `moneyInput` / `percentInput` for the text a form starts with. Only
 * string and integer arithmetic: "4.99" is read as the digits 4 and 99, never as the float 4.99 times 100.
 *
 * Every currency is written with two decimals (as `formatMoney` shows it).
 */
export function formatMoney(minor: number, symbol = '$'): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(Math.trunc(minor));
  return `${sign}${symbol}${Math.floor(abs / 100).toLocaleString('en-US')}.${String(abs % 100).padStart(2, '0')}`;
}

/** Basis points → "15 %", "12.5 %", "0.01 %". */
export function formatPercent(bps: number): string {
  return `${percentInput(bps)} %`;
}

/** Minor units → the text a money field starts with: 499 → "4.99", 500 → "5.00" (no symbol, no separators). */
export function moneyInput(minor: number): string {
  const abs = Math.abs(Math.trunc(minor));
  return `${minor < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Basis points → the text a percent field starts with: 1500 → "15", 1550 → "15.5", 1234 → "12.34". */
export function percentInput(bps: number): string {
  const abs = Math.abs(Math.trunc(bps));
  const cents = String(abs % 100).padStart(2, '0').replace(/0+$/, '');
  return `${bps < 0 ? '-' : ''}${Math.floor(abs / 100)}${cents ? `.${cents}` : ''}`;
}

export type Parsed = { ok: true; value: number } | { ok: false; message: string };

export const MONEY_HINT = 'Enter an amount like 4.99';
export const PERCENT_HINT = 'Enter a percentage like 15';

/** The largest price the API takes (common/schemas/admin.ts): 1,000,000.00 in minor units. */
export const MAX_PRICE_MINOR = 100_000_000;

const fail = (message: string): Parsed => ({ ok: false, message });

/**
 * Splits "1,234.5" into whole and fraction digits. Commas are thousands separators only (groups of three), so
 * "1,000.50" is one thousand; "4,99" looks like a decimal comma and is refused rather than read as 499.
 */
function digits(text: string, example: string): { whole: string; fraction: string } | { error: string } {
  const m = /^(\d{1,3}(?:,\d{3})+|\d*)(?:\.(\d*))?$/.exec(text);
  if (!m || (!m[1] && !m[2])) {
    if (/^\d+,\d{1,2}$/.test(text)) return { error: `Use a dot for decimals, like ${example}` };
    return { error: '' };
  }
  return { whole: (m[1] ?? '').replaceAll(',', '') || '0', fraction: m[2] ?? '' };
}

/**
 * What a person typed into a price field → minor units. Accepts "4.99", "4.9" (= 4.90), "5", "1,000.50", " $4.99 "
 * (the site's symbol in front or behind). Refuses, with a message in words: empty text, a negative amount, letters, a decimal
 * comma, more than two decimals that are not zeros ("4.999" is refused, not rounded: a price is never changed
 * behind the admin's back; "4.990" is exactly 4.99), and amounts outside [min, max] (minor units).
 */
export function parseMoney(input: string, opts: { symbol?: string; min?: number; max?: number } = {}): Parsed {
  const { symbol = '$', min = 0, max = MAX_PRICE_MINOR } = opts;
  let text = input.trim();
  if (symbol && text.startsWith(symbol)) text = text.slice(symbol.length).trim();
  else if (symbol && text.endsWith(symbol)) text = text.slice(0, -symbol.length).trim();
  if (text === '') return fail(MONEY_HINT);
  if (/^[-−]/.test(text)) return fail('The amount cannot be negative');
  const parts = digits(text, '4.99');
  if ('error' in parts) return fail(parts.error || MONEY_HINT);
  const fraction = parts.fraction.replace(/0+$/, '');
  if (fraction.length > 2) return fail('Use at most two decimals, like 4.99');
  const whole = parts.whole.replace(/^0+(?=\d)/, '');
  // Beyond nine digits the amount is far over any limit; stop before Number() could lose precision.
  if (whole.length > 9) return fail(`The amount must be at most ${formatMoney(max, symbol)}`);
  const value = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  if (value > max) return fail(`The amount must be at most ${formatMoney(max, symbol)}`);
  if (value < min) return fail(`The amount must be at least ${formatMoney(min, symbol)}`);
  return { ok: true, value };
}

/**
 * What a person typed into a percent field → basis points. "15" → 1500, "12.5" → 1250, "0.01" → 1, "15 %" → 1500.
 * Refuses empty text, negatives, letters, a decimal comma, more than two decimals that are not zeros (basis points
 * are the finest step) and values outside [min, max] (basis points; by default 0 to 100 %).
 */
export function parsePercent(input: string, opts: { min?: number; max?: number } = {}): Parsed {
  const { min = 0, max = 10_000 } = opts;
  const text = input.trim().replace(/\s*%$/, '');
  if (text === '') return fail(PERCENT_HINT);
  if (/^[-−]/.test(text)) return fail('The percentage cannot be negative');
  const parts = digits(text, '12.5');
  if ('error' in parts) return fail(parts.error || PERCENT_HINT);
  if (parts.whole.length > 6) return fail(`The percentage must be at most ${formatPercent(max)}`);
  const fraction = parts.fraction.replace(/0+$/, '');
  if (fraction.length > 2) return fail('Use at most two decimals, like 12.5');
  const value = Number(parts.whole) * 100 + Number(fraction.padEnd(2, '0'));
  if (value > max) return fail(`The percentage must be at most ${formatPercent(max)}`);
  if (value < min) return fail(`The percentage must be at least ${formatPercent(min)}`);
  return { ok: true, value };
}
