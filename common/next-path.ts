/**
 * Where to send a visitor after they log in or sign up (`?next=`): a path on this site, never another origin.
 * Shared by the pages (which render it into links), the sign-up API (which puts it into the verification mail's link)
 * and the browser (which navigates to it after login).
 *
 * Accepted: `/path`, with its query and fragment. Refused: anything not starting with one `/` (`//host` and `/\host`
 * are other hosts to a browser), backslashes anywhere (browsers read them as `/`), control characters, and more than
 * 512 characters. Gives the path in its normalised form, or null.
 */
export const NEXT_PATH_MAX = 512;

export function safeNextPath(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > NEXT_PATH_MAX) return null;
  if (!value.startsWith('/') || value.startsWith('//')) return null;
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f]/.test(value)) return null;
  const base = 'http://next.invalid';
  try {
    const url = new URL(value, base);
    if (url.origin !== base) return null;
    return url.pathname + url.search + url.hash;
  } catch {
    return null;
  }
}

/** `path` with `?next=` (or `&next=`) added when `next` is a safe path. */
export function withNext(path: string, next: string | null | undefined): string {
  const safe = safeNextPath(next);
  return safe ? `${path}${path.includes('?') ? '&' : '?'}next=${encodeURIComponent(safe)}` : path;
}
