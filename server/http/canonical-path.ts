/**
 * The one spelling of a request path that the site serves pages under. Browsers and proxies accept many spellings
 * of one path (`//admin/users`, `/./admin/users`, `/%61dmin/users`, `/admin%2Fusers`, `/admin/users/`), and the
 * layers below (Node's URL parser, Astro's router) each undo some of them but not the same ones: a path check
 * written against one spelling misses another. So before a request reaches the pages, a path that is not in its
 * canonical form is answered with a redirect to it, and only canonical paths are ever rendered.
 *
 * Canonical: percent-decoded once, repeated slashes collapsed, `.` and `..` segments resolved (never above the
 * root), no trailing slash except for `/` itself; then each segment percent-encoded again in one fixed way
 * (upper-case hex; unreserved characters and `!$&'()*+,;=:@` as they are, everything else encoded, `%` and `\`
 * included). Encoding then decoding a canonical path gives back what was encoded, so a canonical path
 * redirects to itself never, and a redirect target is always canonical. The query string is kept as sent.
 */
export type CanonicalCheck =
  | { kind: 'canonical' }
  | { kind: 'redirect'; location: string }
  /** Not a path at all (absolute-form target, `*`), or not decodable (`%zz`, invalid UTF-8). */
  | { kind: 'invalid' };

export function checkCanonical(rawUrl: string): CanonicalCheck {
  if (!rawUrl.startsWith('/')) return { kind: 'invalid' };
  const q = rawUrl.indexOf('?');
  const rawPath = q === -1 ? rawUrl : rawUrl.slice(0, q);
  const query = q === -1 ? '' : rawUrl.slice(q);
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return { kind: 'invalid' };
  }
  const canonical = canonicalPath(decoded);
  return canonical === rawPath ? { kind: 'canonical' } : { kind: 'redirect', location: canonical + query };
}

/** The canonical, encoded form of an already decoded path. */
function canonicalPath(decoded: string): string {
  const out: string[] = [];
  for (const segment of decoded.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(encodeSegment(segment));
  }
  return `/${out.join('/')}`;
}

// encodeURIComponent leaves A-Z a-z 0-9 - _ . ! ~ * ' ( ) as they are; these are legal in a path segment too.
const KEPT = /%(24|26|2B|2C|3B|3D|3A|40)/g;

function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(KEPT, (m) => decodeURIComponent(m));
}
