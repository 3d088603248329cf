/** Money is integer minor units everywhere; this is the one place that turns it into text. */
export function formatMoney(minor: number, symbol = '$'): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(Math.trunc(minor));
  return `${sign}${symbol}${Math.floor(abs / 100).toLocaleString('en-US')}.${String(abs % 100).padStart(2, '0')}`;
}
