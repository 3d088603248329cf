import type { TakedownTargetType } from '../../common/enums.js';

/**
 * Which item of this site an address names, from the address alone (no database): a page of a video, gallery, product,
 * post or performer, or a photo, which has no page of its own and is named by its gallery's page with `?photo=<id>`.
 * Anything else (another site, a list page, a path with more segments, a key with odd characters) is null: the form
 * answers 400 and nothing is looked up.
 *
 * An address is this site's when it is a path (`/videos/abc`) or an absolute http(s) address whose host is the site's
 * own (PUBLIC_URL) or the host the form was sent to. The key is what the page's own route accepts (server-side
 * `loadByRouteKey`: an id or a slug).
 */

export interface TargetRef {
  type: TakedownTargetType;
  /** An id, a slug or a username, as the page's address has it. */
  key: string;
}

const KEY = /^[A-Za-z0-9_.-]{1,100}$/;
const PAGES: Record<string, TakedownTargetType> = { videos: 'video', galleries: 'gallery', products: 'product', posts: 'post', performers: 'performer' };

export function parseTargetUrl(input: string, ownHosts: readonly string[]): TargetRef | null {
  const text = input.trim();
  let url: URL;
  try {
    // A bare path is resolved against a placeholder origin; an absolute address keeps its own.
    url = new URL(text, 'http://this-site.invalid');
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const relative = text.startsWith('/') && !text.startsWith('//');
  if (!relative && !ownHosts.some((h) => h.toLowerCase() === url.host.toLowerCase())) return null;
  const segments = url.pathname.split('/').filter(Boolean);
  if (segments.length !== 2) return null;
  const type = PAGES[segments[0]!];
  let key: string;
  try {
    key = decodeURIComponent(segments[1]!);
  } catch {
    return null;
  }
  if (!type || !KEY.test(key)) return null;
  if (type === 'gallery') {
    const photo = url.searchParams.get('photo');
    if (photo !== null) return KEY.test(photo) ? { type: 'photo', key: photo } : null;
  }
  return { type, key };
}
