import type { Role } from '../../common/enums.js';

/**
 * Who may open a page, keyed by the route Astro matched (`context.routePattern`: `/admin/users`,
 * `/account/orders/[id]`), never by the request path: however a path is spelled, the rule that applies is the
 * rule of the page that renders. A route missing here is refused (src/middleware.ts), so a new page is closed
 * until someone decides who may see it; tests/e2e/page-access-matrix.test.ts fails on a page without an entry.
 *
 * - `public`: everyone, guests included.
 * - `session`: any signed-in user; a guest is sent to /auth/login?next=…, or, with `noredirect`, gets the page's
 *   own guest view (the page must then render for `user === null`).
 * - `roles`: a signed-in user with one of these roles; other users get 403, guests are sent to log in.
 * - `maintenance`: still reachable in maintenance mode (login, and the admin console to switch it off).
 *
 * Every page that needs a session answers `cache-control: private, no-store`, whoever asks.
 */
export type PageAccess = (
  | { public: true }
  | { session: true; noredirect?: true }
  | { roles: readonly Role[] }
) & { maintenance?: true };

const PUBLIC = { public: true } as const;
const SESSION = { session: true } as const;
const LOGIN = { public: true, maintenance: true } as const;
// An admin is not a performer: the studio shows the signed-in performer's own content and money, which an admin
// does not have (admins manage performers' content in the console).
const PERFORMER = { roles: ['performer'] } as const;
const ADMIN = { roles: ['admin'], maintenance: true } as const;

export const pageAccess: Readonly<Record<string, PageAccess>> = {
  // Catalogue and site pages: what a page shows is filtered per viewer by the services it calls.
  '/': PUBLIC,
  '/performers': PUBLIC,
  '/performers/[username]': PUBLIC,
  '/videos': PUBLIC,
  '/videos/[id]': PUBLIC,
  '/galleries/[id]': PUBLIC,
  '/store': PUBLIC,
  // A notification mail's unsubscribe link: no login, the signed token is the permission.
  '/notifications/unsubscribe': PUBLIC,
  '/products/[id]': PUBLIC,
  '/posts': PUBLIC,
  '/posts/[id]': PUBLIC,
  '/comments/[type]/[id]': PUBLIC,
  '/search': PUBLIC,
  '/contact': PUBLIC,
  '/takedown': PUBLIC,
  // The record-keeping statement: an admin's text, the same for everyone.
  '/record-keeping': PUBLIC,
  // The cart lives in the browser (localStorage); the page is the same for everyone and says no-store itself.
  '/cart': PUBLIC,
  '/robots.txt': PUBLIC,
  '/sitemap.xml': PUBLIC,
  // The pages the middleware and other pages rewrite to.
  '/403': PUBLIC,
  '/404': PUBLIC,
  '/blocked': PUBLIC,
  '/maintenance': LOGIN,

  '/login': LOGIN,
  '/auth/login': LOGIN,
  '/auth/register': LOGIN,
  '/auth/forgot-password': LOGIN,
  '/auth/reset-password': LOGIN,
  '/auth/verify-email': LOGIN,

  // The signed-in user's own pages: each loads only the viewer's rows (an order or payment of someone else is 404).
  '/home': SESSION,
  '/checkout': SESSION,
  '/payments/result/[id]': SESSION,
  '/payments/sandbox/[id]': SESSION,
  '/account/profile': SESSION,
  '/account/password': SESSION,
  '/account/subscriptions': SESSION,
  '/account/orders': SESSION,
  '/account/orders/[id]': SESSION,
  '/account/transactions': SESSION,
  '/account/favourites': SESSION,
  '/account/following': SESSION,
  '/account/watch-later': SESSION,
  // Direct messages: the signed-in user's own conversations; a thread that is not theirs is a 404.
  '/messages': SESSION,
  '/messages/[id]': SESSION,
  '/account/notifications': SESSION,
  '/account/data': SESSION,
  '/notifications': SESSION,

  '/studio': PERFORMER,
  '/studio/profile': PERFORMER,
  '/studio/videos': PERFORMER,
  '/studio/galleries': PERFORMER,
  '/studio/products': PERFORMER,
  '/studio/posts': PERFORMER,
  '/studio/earnings': PERFORMER,
  '/studio/orders': PERFORMER,
  '/studio/messages': PERFORMER,
  '/studio/verification': PERFORMER,
  // The requests in which other performers named the signed-in performer as a co-performer.
  '/studio/co-performers': PERFORMER,

  '/admin': ADMIN,
  '/admin/settings': ADMIN,
  '/admin/banners': ADMIN,
  '/admin/categories': ADMIN,
  '/admin/country-blocks': ADMIN,
  '/admin/coupons': ADMIN,
  '/admin/packages': ADMIN,
  '/admin/users': ADMIN,
  '/admin/performers': ADMIN,
  '/admin/content': ADMIN,
  '/admin/comments': ADMIN,
  '/admin/reports': ADMIN,
  '/admin/takedowns': ADMIN,
  '/admin/watermarks': ADMIN,
  '/admin/verifications': ADMIN,
  '/admin/consent': ADMIN,
  '/admin/payments': ADMIN,
  '/admin/orders': ADMIN,
  '/admin/earnings': ADMIN,
  '/admin/payouts': ADMIN,
  '/admin/audit': ADMIN,
};

/** The rule of a matched route, or undefined: the route is unknown here and must be refused. */
export function accessFor(routePattern: string): PageAccess | undefined {
  return Object.hasOwn(pageAccess, routePattern) ? pageAccess[routePattern] : undefined;
}

/** Whether the page is only ever for a signed-in user (so its answer is private whoever asks). */
export function needsSession(access: PageAccess): boolean {
  return !('public' in access);
}

export type PageDecision = 'render' | 'login' | 'forbidden';

/** What the middleware does with a request for a page with rule `access` by `user` (null: a guest). */
export function decide(access: PageAccess, user: { role: Role } | null): PageDecision {
  if ('public' in access) return 'render';
  if (!user) return 'session' in access && access.noredirect ? 'render' : 'login';
  if ('roles' in access && !access.roles.includes(user.role)) return 'forbidden';
  return 'render';
}
