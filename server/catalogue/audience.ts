import { nowIso } from '../db/ids.js';

/**
 * Whom "public" is decided for. Public depends on the moment (publication dates, schedules) and on the visitor:
 * a performer may block visitors from some countries (performer_blocked_countries), and their content then does
 * not exist for those visitors: absent from every list and count, 404 on every detail, comment thread and
 * protected file. Build one with `audienceOf` from the request's viewer and country; `everyone(now)` is the
 * audience of country-agnostic readers (sitemap, payment bookkeeping).
 */
export interface Audience {
  now: string;
  /** The visitor's country when a performer's country block applies to them; null: unknown, or an admin. */
  country: string | null;
  /** The signed-in user: a performer always sees their own content, whatever their country. */
  selfId: string | null;
}

/** The audience of a request: admins are never country-blocked, performers never for their own content. */
export function audienceOf(viewer: { id: string; role: string } | null, country: string | null | undefined, now: string = nowIso()): Audience {
  return { now, country: viewer?.role === 'admin' ? null : (country?.toUpperCase() ?? null), selfId: viewer?.id ?? null };
}

/** Readers that are nobody in particular: no country block applies. */
export function everyone(now: string = nowIso()): Audience {
  return { now, country: null, selfId: null };
}

/**
 * An audience as a prepared statement's values (server/db/prepared.ts): the same fields, `selfId` only with a country,
 * the only time the public rules read it (a performer sees their own content in a country they block), since a
 * prepared statement refuses a value it never binds.
 */
export function audienceValues(a: Audience): Audience {
  return { now: a.now, country: a.country, selfId: a.country ? a.selfId : null };
}
