/**
 * Counts in words, the one place that writes "1 subscriber" / "2 subscribers". Every page and island that prints a
 * number with a noun goes through `countOf`, so no page says "1 videos" and thousands read the same everywhere
 * ("1,262"). English only, like the rest of the site's text.
 */

/** A whole number with thousands separators: 1262 → "1,262". */
export function formatCount(n: number): string {
  return Math.trunc(n).toLocaleString('en-US');
}

/**
 * "0 subscribers", "1 subscriber", "1,262 subscribers". `plural` for nouns that do not just take an s
 * (`countOf(n, 'gallery', 'galleries')`). Only exactly 1 is singular (and -1, which no counter shows).
 */
export function countOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${formatCount(n)} ${Math.abs(Math.trunc(n)) === 1 ? singular : plural}`;
}

/** The noun alone, for a count shown apart from its word (a badge next to a label): `nounFor(1, 'like')` → "like". */
export function nounFor(n: number, singular: string, plural = `${singular}s`): string {
  return Math.abs(Math.trunc(n)) === 1 ? singular : plural;
}

/** A wait in words, rounded up to whole minutes past a minute: 1 → "1 second", 59 → "59 seconds", 61 → "2 minutes". */
export function waitInWords(seconds: number): string {
  if (seconds < 60) return countOf(seconds, 'second');
  return countOf(Math.ceil(seconds / 60), 'minute');
}
