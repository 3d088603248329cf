/**
 * The arithmetic of money, pure and integer-only. Amounts are minor units (cents); rates are basis points
 * (1 bps = 0.01 %, 10 000 bps = 100 %). Every function here returns integers whose parts add up exactly.
 */

export const BPS = 10_000;

function checkAmount(amount: number, what = 'amount'): void {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`${what} must be a non-negative integer of minor units, got ${amount}`);
}

function checkBps(bps: number): void {
  if (!Number.isInteger(bps) || bps < 0 || bps > BPS) throw new RangeError(`rate must be an integer between 0 and ${BPS} basis points, got ${bps}`);
}

/**
 * A coupon's discount on an amount: floor(amount × value), so the price to pay is ceil(amount × (1 − value)) and
 * the customer is never charged a fraction of a cent more than the advertised rate.
 */
export function couponDiscount(amount: number, valueBps: number): number {
  checkAmount(amount);
  checkBps(valueBps);
  return Math.floor((amount * valueBps) / BPS);
}

/** price = original × (1 − value), integer-rounded as couponDiscount does. */
export function discountedPrice(amount: number, valueBps: number): number {
  return amount - couponDiscount(amount, valueBps);
}

export interface Line {
  unitPrice: number;
  quantity: number;
}

export interface PricedLine<L extends Line = Line> {
  line: L;
  /** unitPrice × quantity */
  total: number;
  /** This line's share of the coupon discount. */
  discount: number;
  /** What the buyer pays for this line: total − discount. */
  amount: number;
}

export interface Priced<L extends Line = Line> {
  lines: PricedLine<L>[];
  originalPrice: number;
  discount: number;
  amount: number;
}

/**
 * Prices a cart: the coupon applies to each line (floor per line), so each line's earning is exactly what was paid
 * for it and the lines add up to the payment: Σ line.amount = amount, Σ line.discount = discount.
 */
export function priceLines<L extends Line>(lines: readonly L[], valueBps = 0): Priced<L> {
  checkBps(valueBps);
  const priced = lines.map((line) => {
    checkAmount(line.unitPrice, 'unit price');
    if (!Number.isSafeInteger(line.quantity) || line.quantity < 1) throw new RangeError(`quantity must be a positive integer, got ${line.quantity}`);
    const total = line.unitPrice * line.quantity;
    const discount = couponDiscount(total, valueBps);
    return { line, total, discount, amount: total - discount };
  });
  const sum = (k: 'total' | 'discount' | 'amount') => priced.reduce((n, p) => n + p[k], 0);
  return { lines: priced, originalPrice: sum('total'), discount: sum('discount'), amount: sum('amount') };
}

export interface Split {
  gross: number;
  commission: number;
  net: number;
}

/** The site's commission on a (non-negative) gross amount, rounded half up; net = gross − commission exactly. */
export function splitCommission(gross: number, commissionBps: number): Split {
  checkAmount(gross, 'gross');
  checkBps(commissionBps);
  const commission = Math.floor((gross * commissionBps + BPS / 2) / BPS);
  return { gross, commission, net: gross - commission };
}

/** The reversal of a split (refund, chargeback): every part negated, so credit + reversal = 0. */
export function negate(split: Split): Split {
  return { gross: -split.gross, commission: -split.commission, net: -split.net };
}

/**
 * A partial refund of `amount` shared over what is left of a payment's item earnings (`remaining`: each item's credit
 * less its earlier partial refunds). Each item gives back in proportion to its remaining gross, whole cents by the
 * largest remainder (ties to the earlier item), and within an item in proportion to its remaining commission,
 * rounded half up; so the shares add up to `amount` exactly, gross = commission + net on every share, and no share
 * takes more gross, commission or net than its item has left. Returns the shares as positive splits, in order.
 */
export function shareRefund(amount: number, remaining: readonly Split[]): Split[] {
  checkAmount(amount, 'refund');
  for (const r of remaining) checkAmount(r.gross, 'remaining gross');
  const total = remaining.reduce((n, r) => n + r.gross, 0);
  if (amount > total) throw new RangeError(`a refund of ${amount} is more than the ${total} left`);
  if (amount === 0) return remaining.map(() => ({ gross: 0, commission: 0, net: 0 }));
  // BigInt: amount × gross passes 2^53 for payments over about $900,000.
  const exact = remaining.map((r) => {
    const product = BigInt(amount) * BigInt(r.gross);
    return { whole: Number(product / BigInt(total)), rest: Number(product % BigInt(total)) };
  });
  let left = amount - exact.reduce((n, e) => n + e.whole, 0);
  const byRest = exact.map((e, i) => i).sort((a, b) => exact[b]!.rest - exact[a]!.rest || a - b);
  for (const i of byRest) {
    if (left === 0) break;
    exact[i]!.whole += 1;
    left -= 1;
  }
  return remaining.map((r, i) => {
    const gross = exact[i]!.whole;
    const commission = r.gross === 0 ? 0 : Number((2n * BigInt(gross) * BigInt(r.commission) + BigInt(r.gross)) / (2n * BigInt(r.gross)));
    return { gross, commission, net: gross - commission };
  });
}

/** The rate that applies to a performer: their own when set, else the site's. */
export function commissionRateFor(performerBps: number | null | undefined, siteBps: number): number {
  const rate = performerBps ?? siteBps;
  checkBps(rate);
  return rate;
}

/**
 * A bundle of `months` monthly periods at a discount: round_half_up(months × monthly × (1 − bps)). Rounded to the
 * nearest cent rather than in the buyer's favour, because the performer states the bundle price through its rate
 * ("3 months at 10 % off $9.99" reads as $26.97, and flooring the discount would say $26.98).
 */
export function bundlePrice(monthly: number, months: number, discountBps: number): number {
  checkAmount(monthly, 'monthly price');
  checkBps(discountBps);
  if (!Number.isSafeInteger(months) || months < 1) throw new RangeError(`months must be a positive integer, got ${months}`);
  const total = monthly * months;
  return Math.floor((total * (BPS - discountBps) + BPS / 2) / BPS);
}
