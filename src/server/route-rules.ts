import type { Role } from '../../common/api-types.js';

/**
 * Page flags (SPEC §2/§6), decided by path so the middleware can apply them before a page renders.
 * authenticate: a valid session is required; noredirect: a guest is not sent to /auth/login (the page
 * renders its own guest view); roles: which roles may open it (others get 403).
 */
export interface PageRule {
  authenticate?: boolean;
  noredirect?: boolean;
  roles?: Role[];
}

const rules: Array<[RegExp, PageRule]> = [
  [/^\/home\/?$/, { authenticate: true }],
  [/^\/account(\/|$)/, { authenticate: true }],
  [/^\/studio(\/|$)/, { authenticate: true, roles: ['performer', 'admin'] }],
  [/^\/admin(\/|$)/, { authenticate: true, roles: ['admin'] }],
];

export function ruleFor(pathname: string): PageRule {
  for (const [pattern, rule] of rules) if (pattern.test(pathname)) return rule;
  return {};
}

/** Paths that stay reachable in maintenance mode, so an admin can still log in and switch it off. */
export function reachableInMaintenance(pathname: string): boolean {
  return /^\/(auth\/|login\/?$|admin(\/|$)|_astro\/|favicon|logo)/.test(pathname);
}
