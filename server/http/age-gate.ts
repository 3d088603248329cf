/**
 * The age gate (docs/architecture.md, Settings and gates): when `ageGateEnabled` is on and applies to the visitor's
 * country (`ageGateCountries`, empty = everywhere), a guest without the `age_ok` cookie gets every page with the age
 * confirmation over it; "I am 18 or older" is a plain form POST to `/age-gate` that sets the cookie for a year and
 * sends them back. The page is decided on the server (no script needed), so the micro-cache keys anonymous answers by
 * whether the cookie is there (`passedAgeGate`), as it keys them by country: a cached page never shows the gate to
 * someone who passed it, never skips it for someone who did not, and never mixes countries.
 */

export const AGE_COOKIE = 'age_ok';
export const AGE_COOKIE_MAX_AGE_SEC = 365 * 24 * 3600;
const PASSED = /(?:^|;\s*)age_ok=1(?:;|$)/;

/** Whether a request's Cookie header says the visitor confirmed their age. */
export function passedAgeGate(cookieHeader: string | undefined | null): boolean {
  return Boolean(cookieHeader && PASSED.test(cookieHeader));
}

/** Whether the gate applies to a visitor from `country` (null: unknown; an unknown country is gated when the list is empty only). */
export function ageGateApplies(enabled: unknown, countries: unknown, country: string | null): boolean {
  if (enabled !== true) return false;
  const list = Array.isArray(countries) ? (countries as unknown[]).filter((c): c is string => typeof c === 'string') : [];
  if (!list.length) return true;
  return country !== null && list.includes(country.toUpperCase());
}

/** Pages a guest reaches without confirming: asking for removal, contacting the site, signing in, the gates' own pages. */
export const AGE_GATE_EXEMPT: ReadonlySet<string> = new Set(['/takedown', '/contact', '/auth/login', '/login', '/blocked', '/maintenance', '/403', '/404', '/age-gate']);
