import { safeNextPath } from '../../common/next-path.js';

/**
 * Every full-page navigation of the client code goes through `navigate`, so tests can observe it and the
 * stores stay free of `window.location` details. Same-tab, adds a history entry.
 */
export type Navigator = (url: string) => void;

const assign: Navigator = (url) => window.location.assign(url);
let current: Navigator = assign;

export function navigate(url: string): void {
  current(url);
}

/** Replace the navigator (tests); call without an argument to restore `window.location.assign`. */
export function setNavigator(next?: Navigator): void {
  current = next ?? assign;
}

/**
 * A `next` query value that is safe to redirect to after login: a path on this site (`/x`, never
 * `//host` or `/\host`, never another origin). Anything else gives null.
 */
export function sameSitePath(value: string | null | undefined): string | null {
  if (typeof window === 'undefined') return null;
  value = safeNextPath(value);
  if (!value) return null;
  try {
    const url = new URL(value, window.location.origin);
    if (url.origin !== window.location.origin) return null;
    return url.pathname + url.search + url.hash;
  } catch {
    return null;
  }
}
