import sanitizeHtml from 'sanitize-html';
import type { AstroGlobal } from 'astro';
import { AppError } from '../../server/http/errors.js';
import { catalogueDeps, type CatalogueDeps } from '../../server/catalogue/catalogue.service.js';
import { audienceOf, type Audience } from '../../server/catalogue/audience.js';
import type { Viewer } from '../../server/access/access.service.js';

/** Server-side helpers of the catalogue pages (never shipped to the browser). */

/**
 * Guest pages: shared caches may keep them 30 s, browsers revalidate (a visitor who logs in must not get the guest
 * copy of the same URL from their own cache). `Vary: Cookie` keeps a shared cache from serving one session's page
 * to another; the middleware makes every signed-in response `private, no-store` anyway.
 */
export const PUBLIC_CACHE = 'public, max-age=0, s-maxage=30, stale-while-revalidate=60';

export function setPublicCache(Astro: AstroGlobal, value = PUBLIC_CACHE): void {
  Astro.response.headers.set('cache-control', value);
  Astro.response.headers.append('vary', 'Cookie');
}

/**
 * A member-shell page (docs/architecture.md) whose content a guest may not see, but the visitor might: a performer's
 * own page before approval, an admin on a performer who blocks their country. The page renders for the visitor after
 * all, and the middleware marks the answer `private` so no shared cache keeps it. False when this was no member shell.
 */
export function leaveMemberShell(Astro: AstroGlobal): boolean {
  const { shellUser, memberShell } = Astro.locals;
  if (!memberShell || !shellUser) return false;
  Astro.locals.user = shellUser;
  Astro.locals.memberShell = false;
  Astro.locals.shellUser = undefined;
  return true;
}

/**
 * What a catalogue page reads with: the services' deps, the viewer, the visitor's country, and the audience for
 * "public" (performers' country blocks apply through it, server/catalogue/catalogue.repository.ts).
 */
export function pageDeps(Astro: AstroGlobal): { deps: CatalogueDeps; viewer: Viewer; country: string | null; audience: Audience } {
  const { ctx, user } = Astro.locals;
  const country = Astro.locals.country ?? null;
  const viewer: Viewer = user ? { id: user.id, role: user.role } : null;
  return { deps: catalogueDeps(ctx, country), viewer, country, audience: audienceOf(viewer, country) };
}

/** Runs a service call; a 404 (or 403) AppError becomes `null` so the page can rewrite to /404. */
export async function orNull<T>(fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError && (err.statusCode === 404 || err.statusCode === 403)) return null;
    throw err;
  }
}

/** An id, slug or username as a detail page's address may spell one. */
const ROUTE_KEY = /^[A-Za-z0-9_.-]{1,100}$/;

/**
 * What a detail page shows, loaded by its route's key (`param`): null, for the page to answer 404, when the key
 * cannot name anything or the item is not there for this viewer (see `orNull`).
 */
export async function loadByRouteKey<T>(astro: AstroGlobal, param: string, load: (key: string) => Promise<T>): Promise<T | null> {
  const key = astro.params[param] ?? '';
  if (!ROUTE_KEY.test(key)) return null;
  return orNull(() => load(key));
}

/** Stored post HTML, sanitised: formatting, links and images only; no scripts, styles, handlers or iframes. */
export function sanitizePostHtml(html: string): string {
  return sanitizeHtml(html, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img'],
    allowedAttributes: { a: ['href', 'title', 'rel', 'target'], img: ['src', 'alt', 'width', 'height', 'loading'] },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['http', 'https'] },
    transformTags: {
      a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow noopener ugc' }),
      img: sanitizeHtml.simpleTransform('img', { loading: 'lazy' }),
    },
  });
}

/** Plain text of an HTML fragment, shortened for a meta description. */
export function plainText(html: string | null | undefined, max = 160): string {
  const text = sanitizeHtml(html ?? '', { allowedTags: [], allowedAttributes: {} }).replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}

export const absolute = (Astro: AstroGlobal, path: string | null | undefined) => (path ? new URL(path, Astro.locals.ctx.config.publicUrl).href : undefined);
