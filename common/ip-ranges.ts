/**
 * Lists of IPv4 addresses an admin types (the CCBill webhook allow-list): one rule for the API's schema
 * (common/schemas/admin.ts) and the gateway that enforces it (server/payments/ccbill.gateway.ts), so the console
 * refuses exactly what the server could not read. Entries are separated by commas or new lines and each is an address
 * ("64.38.212.10"), a CIDR block ("64.38.212.0/24") or a range written the way CCBill publishes its own
 * ("64.38.212.1 - 64.38.212.254"). IPv4 only: the providers that need an allow-list publish IPv4 ranges.
 */

export interface Ipv4Range {
  /** Both ends included, as unsigned 32-bit numbers. */
  from: number;
  to: number;
}

export type ParsedRanges = { ok: true; ranges: Ipv4Range[] } | { ok: false; message: string };

export const IP_RANGES_HINT = 'Addresses, CIDR blocks or ranges, one per line or separated by commas: 64.38.212.10, 64.38.212.0/24, 64.38.212.1 - 64.38.212.254';
export const IP_RANGES_MAX = 2000;

/** "64.38.212.1" → 1076287489; null for anything that is not four decimal octets (no leading zeros, no IPv6). */
export function ipv4ToNumber(text: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text.trim());
  if (!m) return null;
  let n = 0;
  for (const part of m.slice(1)) {
    if (part.length > 1 && part.startsWith('0')) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    n = n * 256 + octet;
  }
  return n;
}

/** The client address as a number, accepting the IPv4-mapped IPv6 form a dual-stack socket reports ("::ffff:1.2.3.4"). */
export function clientIpv4(address: string): number | null {
  const a = address.trim().toLowerCase();
  return ipv4ToNumber(a.startsWith('::ffff:') ? a.slice(7) : a);
}

function parseEntry(entry: string): Ipv4Range | null {
  const dash = entry.split('-');
  if (dash.length === 2) {
    const from = ipv4ToNumber(dash[0]!);
    const to = ipv4ToNumber(dash[1]!);
    return from !== null && to !== null && from <= to ? { from, to } : null;
  }
  if (dash.length !== 1) return null;
  const slash = entry.split('/');
  if (slash.length === 1) {
    const n = ipv4ToNumber(entry);
    return n === null ? null : { from: n, to: n };
  }
  if (slash.length !== 2 || !/^\d{1,2}$/.test(slash[1]!.trim())) return null;
  const base = ipv4ToNumber(slash[0]!);
  const bits = Number(slash[1]);
  if (base === null || bits > 32) return null;
  const size = 2 ** (32 - bits);
  const from = Math.floor(base / size) * size;
  return { from, to: from + size - 1 };
}

/** Reads a list as an admin typed it; an empty list is valid (and means "the provider's published ranges" where used). */
export function parseIpv4Ranges(text: string): ParsedRanges {
  if (text.length > IP_RANGES_MAX) return { ok: false, message: `At most ${IP_RANGES_MAX} characters` };
  const ranges: Ipv4Range[] = [];
  for (const raw of text.split(/[,\n]/)) {
    const entry = raw.trim();
    if (!entry) continue;
    const range = parseEntry(entry);
    if (!range) return { ok: false, message: `"${entry.slice(0, 60)}" is not an IPv4 address, CIDR block or range. ${IP_RANGES_HINT}` };
    ranges.push(range);
  }
  return { ok: true, ranges };
}

export function ipv4InRanges(address: string, ranges: readonly Ipv4Range[]): boolean {
  const n = clientIpv4(address);
  return n !== null && ranges.some((r) => n >= r.from && n <= r.to);
}
