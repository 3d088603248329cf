import type { ApiApp } from './http/types.js';
import { settingsRoutes } from './settings/settings.routes.js';
import { geoRoutes } from './geo/geo.routes.js';
import { listsRoutes } from './lists/lists.routes.js';
import { contactRoutes } from './contact/contact.routes.js';
import { captchaRoutes } from './captcha/captcha.routes.js';
import { bannersRoutes } from './banners/banners.routes.js';
import { performersRoutes } from './performers/performers.routes.js';
import { searchRoutes } from './search/search.routes.js';
import { catalogueRoutes } from './catalogue/catalogue.routes.js';
import { authRoutes } from './auth/auth.routes.js';
import { usersRoutes } from './users/users.routes.js';
import { studioRoutes } from './studio/studio.routes.js';
import { commentsRoutes } from './comments/comments.routes.js';
import { reactionsRoutes } from './reactions/reactions.routes.js';
import { moneyRoutes } from './payments/money.routes.js';
import { adminRoutes } from './admin/admin.routes.js';
import { followsRoutes } from './follows/follows.routes.js';
import { messagesRoutes } from './messages/messages.routes.js';
import { notificationsRoutes } from './notifications/notifications.routes.js';
import { reportsRoutes } from './reports/reports.routes.js';
import { privacyRoutes } from './privacy/privacy.routes.js';
import { consentRoutes } from './consent/consent.routes.js';
import { takedownsRoutes } from './takedowns/takedowns.routes.js';
import { verificationRoutes } from './verification/verification.routes.js';

/** Every API route group, in one list so a newcomer sees the whole surface. */
export async function apiRoutes(api: ApiApp): Promise<void> {
  for (const routes of [settingsRoutes, geoRoutes, listsRoutes, contactRoutes, captchaRoutes, bannersRoutes, performersRoutes, catalogueRoutes, searchRoutes, authRoutes, usersRoutes, studioRoutes, commentsRoutes, reactionsRoutes, followsRoutes, messagesRoutes, notificationsRoutes, reportsRoutes, takedownsRoutes, privacyRoutes, consentRoutes, verificationRoutes, moneyRoutes, adminRoutes]) {
    await api.register(routes);
  }
}

/**
 * Pages (by route, as src/pages names them) whose HTML is the same for every signed-in visitor: the member shell. The
 * micro-cache keeps one copy per URL and country for everyone who carries a session, and src/middleware.ts renders
 * them without the visitor (as a guest sees the content, with a header that asks `GET /users/me/header` for who is
 * signed in). A page goes here only if nothing on it but the header depends on who looks, or its islands ask for
 * the rest: the lists of the home page, /videos, /store and /posts reload for the viewer to show what is open to
 * them; a performer's page asks the header's request for the visitor's follow, subscription and offers there too,
 * a video's page for whether it is open to them (its file signed for them), its offers and their reactions, and the
 * home feed (/home, signed-in visitors only) for their name and the feed's first page.
 */
export const MEMBER_SHELL_ROUTES: readonly string[] = ['/', '/home', '/performers', '/videos', '/store', '/posts', '/performers/[username]', '/videos/[id]'];

const shellPaths = MEMBER_SHELL_ROUTES.map((r) => new RegExp(`^${r.replace(/\[[a-z]+\]/gi, '[^/]+')}$`));

/**
 * Whether a path (without the query) is one of MEMBER_SHELL_ROUTES, for the micro-cache, which sees no route: a
 * path that matches here but renders as some other page is answered `private` by the middleware and never kept.
 */
export function isMemberShellPath(path: string): boolean {
  return shellPaths.some((re) => re.test(path));
}

/**
 * GET routes whose answer to an anonymous visitor depends only on the URL and the visitor's country, so the
 * micro-cache (server/http/micro-cache.ts) may reuse it for everyone anonymous for PAGE_CACHE_MS. A route goes
 * here only if it reads nothing else from the request: no per-visitor state, no side effects on read.
 * Requests with a session never use the cache, whatever this list says.
 */
export const PUBLIC_CACHE_ROUTES: ReadonlySet<string> = new Set([
  '/settings/public',
  '/countries/list',
  '/languages/list',
  '/phone-codes/list',
  '/site-promo/search',
  '/package/subscription/search',
  '/performers/search',
  '/performers/:id',
  '/search/total',
  '/user/assets/categories/search',
  '/user/assets/videos/search',
  '/user/assets/videos/:id',
  '/user/assets/photos',
  '/user/assets/gallery/:id/photos',
  '/user/assets/galleries/search',
  '/user/assets/galleries/:id/view',
  '/user/assets/products/search',
  '/user/assets/products/:id',
  '/posts/search',
  '/posts/:id',
  '/comments/search',
]);
