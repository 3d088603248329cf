import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../common/enums.js';
import { registeredRoutes, type RouteAccess } from '../../server/http/access.js';
import { PUBLIC_CACHE_ROUTES } from '../../server/routes.js';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { makeGallery, makePhoto, makePost, makeProduct, makeUser, makeVideo, subscribe } from '../../server/seed/factories.js';
import { buildMoneyWorld, payWithSandbox, type MoneyWorld } from '../helpers/money-fixture.js';
import { createSession, type TestUser } from '../helpers/sessions.js';
import { postForm } from '../helpers/uploads.js';
import { newId } from '../../server/db/ids.js';

/**
 * Every route × every kind of caller. The expectation table below has one entry per route, keyed `METHOD /path` as
 * the OpenAPI document writes it. The test FAILS when a route of the OpenAPI document or of the app's route list
 * has no entry (add one: that is how a new route gets its access reviewed), when an entry names a route that no
 * longer exists, and when a route's declared access differs from its entry.
 *
 * Then every route is called, for real, by a guest, a fan (who owns the fan's things: comments, payments, orders,
 * subscriptions), another fan (fan2), the performer who owns the fixtures and is the object's performer of the fan's
 * things (A, 'owner'), another performer (B, 'other') and an admin:
 *  - 'public': nobody gets 401/403;
 *  - 'signed' (webhooks, signed media URLs): the session changes nothing, everyone gets the same refusal of an
 *    unsigned request;
 *  - 'session': guests 401, everyone else passes the gate;
 *  - { roles }: guests 401, other roles 403 (before validation: the samples' bodies are often invalid, and a
 *    forbidden caller must never see the 400), the listed roles pass the gate.
 * Passing the gate is not enough on routes that take an id of something owned: `deny` lists who must get 403/404
 * there (asked first, so the resource still exists), `ok` who must get a 2xx (so the sample is a valid request and
 * a denial is about ownership, not a typo), `pass` who passes with some other answer (a 409, or a 404 because an
 * earlier caller deleted it), and `hide` lists whose 2xx answer must not contain another's record. On such a route
 * every signed-in caller the role gate lets through must be named in one of these: a route that takes someone's
 * thing is tried from every side, or the table test fails.
 */

type Who = 'guest' | 'fan' | 'fan2' | 'owner' | 'other' | 'admin';
const WHO: Who[] = ['guest', 'fan', 'fan2', 'owner', 'other', 'admin'];
const ROLE_OF: Record<Exclude<Who, 'guest'>, Role> = { fan: 'user', fan2: 'user', owner: 'performer', other: 'performer', admin: 'admin' };

interface Req {
  path: string;
  json?: unknown;
  form?: { fields: Record<string, string>; files: Array<{ name: string; filename: string; data: Buffer; type: string }> };
  /** Outside the API base (health, media). */
  root?: boolean;
  /** Instead of the caller's usual session. */
  headers?: Record<string, string>;
}
interface Expectation {
  access: RouteAccess;
  /** The request to send; default: the path with every parameter set to an unknown id, `{}` as body for POST/PUT. */
  req?: (fx: Fixtures, who: Who) => Req | Promise<Req>;
  deny?: Who[];
  ok?: Who[];
  pass?: Who[];
  hide?: { from: Who[]; shownTo: Who; id: (fx: Fixtures) => string };
}

const PUBLIC: RouteAccess = 'public';
const SESSION: RouteAccess = 'session';
const SIGNED: RouteAccess = 'signed';
const ADMIN: RouteAccess = { roles: ['admin'] };
const PERFORMER: RouteAccess = { roles: ['performer'] };
const STUDIO: RouteAccess = { roles: ['performer', 'admin'] };
/** The account holder of A's payout details: in A's answers only. */
const PAYOUT_HOLDER = 'Mona Payout Holder';

type Fixtures = Awaited<ReturnType<typeof buildFixtures>>;

const TABLE: Record<string, Expectation> = {
  // -- site, lists, catalogue (public reads) -----------------------------------------------------------------------
  'GET /settings/public': { access: PUBLIC, ok: WHO },
  'GET /country-block/check': { access: PUBLIC, ok: WHO },
  'GET /countries/list': { access: PUBLIC, ok: WHO },
  'GET /languages/list': { access: PUBLIC, ok: WHO },
  'GET /phone-codes/list': { access: PUBLIC, ok: WHO },
  'GET /user-additional': { access: PUBLIC, ok: WHO },
  'POST /contact': { access: PUBLIC },
  // A takedown needs a valid body to hide anything: an empty one is 400 for everyone, past the gate.
  'POST /takedowns': { access: PUBLIC },
  'POST /age-gate': { access: PUBLIC, req: () => ({ path: '/age-gate', root: true }) },
  'POST /re-captcha/verify': { access: PUBLIC },
  'GET /site-promo/search': { access: PUBLIC, ok: WHO },
  'GET /performers/search': { access: PUBLIC, ok: WHO },
  'GET /performers/{id}': { access: PUBLIC, ok: WHO, req: (fx) => ({ path: `/performers/${fx.w.perf.id}` }) },
  'GET /user/assets/categories/search': { access: PUBLIC, ok: WHO },
  'GET /user/assets/videos/search': { access: PUBLIC, ok: WHO },
  'GET /user/assets/videos/{id}': { access: PUBLIC, ok: WHO, req: (fx) => ({ path: `/user/assets/videos/${fx.w.videos.freeVideo.id}` }) },
  'POST /user/assets/videos/{id}/views': { access: PUBLIC, ok: WHO, req: (fx) => ({ path: `/user/assets/videos/${fx.w.videos.freeVideo.id}/views` }) },
  'GET /user/assets/galleries/search': { access: PUBLIC, ok: WHO },
  'GET /user/assets/galleries/{id}/view': { access: PUBLIC, ok: WHO, req: (fx) => ({ path: `/user/assets/galleries/${fx.gallery.id}/view` }) },
  'GET /user/assets/photos': { access: PUBLIC, ok: WHO, req: (fx) => ({ path: `/user/assets/photos?performerId=${fx.w.perf.id}` }) },
  'GET /user/assets/gallery/{id}/photos': { access: PUBLIC, ok: WHO, req: (fx) => ({ path: `/user/assets/gallery/${fx.gallery.id}/photos` }) },
  'GET /user/assets/products/search': { access: PUBLIC, ok: WHO },
  'GET /user/assets/products/{id}': { access: PUBLIC, ok: WHO, req: (fx) => ({ path: `/user/assets/products/${fx.w.products.mug.id}` }) },
  'GET /posts/search': { access: PUBLIC, ok: WHO },
  'GET /posts/{id}': { access: PUBLIC, ok: WHO, req: (fx) => ({ path: `/posts/${fx.post.id}` }) },
  'GET /search/total': { access: PUBLIC, ok: WHO, req: () => ({ path: '/search/total?q=mug' }) },
  'GET /package/subscription/search': { access: PUBLIC, ok: WHO },
  'GET /users/view/{id}': { access: PUBLIC, ok: WHO, req: (fx) => ({ path: `/users/view/${fx.w.fan.username}` }) },
  'GET /comments/search': { access: PUBLIC, ok: WHO, req: (fx) => ({ path: `/comments/search?objectType=video&objectId=${fx.w.videos.freeVideo.id}` }) },
  'GET /docs/openapi.json': { access: PUBLIC, ok: WHO },
  'GET /health': { access: PUBLIC, ok: WHO, req: () => ({ path: '/health', root: true }) },
  'GET /media/public/{*}': { access: PUBLIC, req: () => ({ path: '/media/public/avatars/none.webp', root: true }) },
  'GET /media/protected/{objectType}/{objectId}/{fileId}': { access: SIGNED, req: (fx) => ({ path: `/media/protected/video/${fx.w.videos.saleVideo.id}/x`, root: true }) },
  'POST /payment/webhooks/{gateway}': { access: SIGNED, req: () => ({ path: '/payment/webhooks/sandbox', json: { id: 'evt_unsigned', type: 'payment.succeeded' } }) },

  // -- accounts -----------------------------------------------------------------------------------------------------
  'POST /auth/users/register': { access: PUBLIC },
  'POST /auth/login': { access: PUBLIC },
  // Logout ends the session it is sent with: each caller sends a fresh one, so the matrix keeps its sessions.
  'POST /auth/logout': {
    access: PUBLIC,
    ok: WHO,
    req: async (fx, who): Promise<Req> => ({ path: '/auth/logout', headers: who === 'guest' ? {} : { authorization: `Bearer ${await createSession(fx.t.ctx.db, fx.users[who].id)}` } }),
  },
  'POST /auth/email-verification': { access: PUBLIC },
  'POST /auth/email-verification/resend': { access: PUBLIC },
  'POST /auth/users/forgot': { access: PUBLIC },
  'POST /auth/users/reset-password': { access: PUBLIC },
  'PUT /auth/users/me/password': { access: SESSION },
  'GET /users/me': { access: SESSION, ok: ['fan', 'owner', 'other', 'admin'] },
  'GET /users/me/header': { access: SESSION, ok: ['fan', 'owner', 'other', 'admin'] },
  // The fan's data export: the fan's alone, admins included (server/privacy/README.md).
  'GET /users/me/data-exports': { access: SESSION, ok: ['fan', 'fan2', 'owner', 'other', 'admin'], hide: { from: ['fan2', 'owner', 'other', 'admin'], shownTo: 'fan', id: (fx) => fx.dataExport } },
  'POST /users/me/data-exports': { access: SESSION },
  'GET /users/me/data-exports/{id}': { access: SESSION, deny: ['fan2', 'owner', 'other', 'admin'], ok: ['fan'], req: (fx) => ({ path: `/users/me/data-exports/${fx.dataExport}` }) },
  // The sample body has no password: nobody is deleted here (tests/api/data-rights.test.ts deletes for real).
  'POST /users/me/delete': { access: SESSION },
  'PUT /users': { access: SESSION },
  'GET /users/search': { access: ADMIN, ok: ['admin'] },
  'POST /users/avatar/upload': { access: SESSION },
  'POST /users/cover/upload': { access: SESSION },
  'POST /users/{id}/avatar/upload': { access: SESSION, deny: ['fan2', 'owner', 'other'], pass: ['fan', 'admin'], req: (fx) => ({ path: `/users/${fx.w.fan.id}/avatar/upload` }) },

  // -- performer studio: A's things ------------------------------------------------------------------------------------
  'GET /performer/assets/videos/{id}/view': { access: STUDIO, deny: ['other'], ok: ['owner', 'admin'], req: (fx) => ({ path: `/performer/assets/videos/${fx.draftVideo.id}/view` }) },
  'GET /performer/assets/products/{id}/view': { access: STUDIO, deny: ['other'], ok: ['owner', 'admin'], req: (fx) => ({ path: `/performer/assets/products/${fx.draftProduct.id}/view` }) },
  'GET /performer/assets/products/search': {
    access: STUDIO,
    pass: ['admin'],
    hide: { from: ['other'], shownTo: 'owner', id: (fx) => fx.draftProduct.id },
    req: (fx) => ({ path: `/performer/assets/products/search?performerId=${fx.w.perf.id}` }),
  },
  'GET /performer/assets/videos/search': {
    access: STUDIO,
    pass: ['admin'],
    hide: { from: ['other'], shownTo: 'owner', id: (fx) => fx.draftVideo.id },
    req: (fx) => ({ path: `/performer/assets/videos/search?performerId=${fx.w.perf.id}` }),
  },
  'GET /performer/assets/galleries/search': {
    access: STUDIO,
    pass: ['admin'],
    hide: { from: ['other'], shownTo: 'owner', id: (fx) => fx.gallery.id },
    req: (fx) => ({ path: `/performer/assets/galleries/search?performerId=${fx.w.perf.id}` }),
  },
  'GET /performer/assets/posts/search': {
    access: STUDIO,
    pass: ['admin'],
    hide: { from: ['other'], shownTo: 'owner', id: (fx) => fx.post.id },
    req: (fx) => ({ path: `/performer/assets/posts/search?performerId=${fx.w.perf.id}` }),
  },
  'POST /performer/assets/videos/upload': { access: PERFORMER },
  'PUT /performer/assets/videos/{id}': { access: STUDIO, deny: ['other'], ok: ['owner', 'admin'], req: (fx) => ({ path: `/performer/assets/videos/${fx.draftVideo.id}`, json: { title: 'Renamed video' } }) },
  'DELETE /performer/assets/videos/{id}': { access: STUDIO, deny: ['other'], ok: ['owner'], pass: ['admin'], req: (fx) => ({ path: `/performer/assets/videos/${fx.videoToDelete.id}` }) },
  // The owner gets 409 (the video did not fail), which is past the ownership check.
  'POST /performer/assets/videos/{id}/retry': { access: STUDIO, deny: ['other'], pass: ['owner', 'admin'], req: (fx) => ({ path: `/performer/assets/videos/${fx.draftVideo.id}/retry` }) },
  'GET /performer/assets/videos/{id}/processing': { access: STUDIO, deny: ['other'], ok: ['owner', 'admin'], req: (fx) => ({ path: `/performer/assets/videos/${fx.draftVideo.id}/processing` }) },
  'POST /performer/assets/galleries': { access: PERFORMER },
  'PUT /performer/assets/galleries/{id}': { access: STUDIO, deny: ['other'], ok: ['owner', 'admin'], req: (fx) => ({ path: `/performer/assets/galleries/${fx.gallery.id}`, json: { title: 'Renamed gallery' } }) },
  'DELETE /performer/assets/galleries/{id}': { access: STUDIO, deny: ['other'], ok: ['owner'], pass: ['admin'], req: (fx) => ({ path: `/performer/assets/galleries/${fx.galleryToDelete.id}` }) },
  'POST /performer/assets/photos/upload': {
    access: PERFORMER,
    deny: ['other'],
    ok: ['owner'],
    req: (fx) => ({
      path: '/performer/assets/photos/upload',
      form: { fields: { galleryId: fx.gallery.id }, files: [{ name: 'file', filename: 'p.png', data: fx.png, type: 'image/png' }] },
    }),
  },
  'PUT /performer/assets/photos/{id}': { access: STUDIO, deny: ['other'], ok: ['owner', 'admin'], req: (fx) => ({ path: `/performer/assets/photos/${fx.photo.id}`, json: { title: 'Renamed photo' } }) },
  'DELETE /performer/assets/photos/{id}': { access: STUDIO, deny: ['other'], ok: ['owner'], pass: ['admin'], req: (fx) => ({ path: `/performer/assets/photos/${fx.photoToDelete.id}` }) },
  'POST /performer/assets/products': { access: PERFORMER },
  'PUT /performer/assets/products/{id}': { access: STUDIO, deny: ['other'], ok: ['owner', 'admin'], req: (fx) => ({ path: `/performer/assets/products/${fx.draftProduct.id}`, json: { name: 'Renamed product' } }) },
  'DELETE /performer/assets/products/{id}': { access: STUDIO, deny: ['other'], ok: ['owner'], pass: ['admin'], req: (fx) => ({ path: `/performer/assets/products/${fx.productToDelete.id}` }) },
  'POST /performer/assets/posts': { access: PERFORMER },
  'PUT /performer/assets/posts/{id}': { access: STUDIO, deny: ['other'], ok: ['owner', 'admin'], req: (fx) => ({ path: `/performer/assets/posts/${fx.post.id}`, json: { title: 'Renamed post' } }) },
  'DELETE /performer/assets/posts/{id}': { access: STUDIO, deny: ['other'], ok: ['owner'], pass: ['admin'], req: (fx) => ({ path: `/performer/assets/posts/${fx.postToDelete.id}` }) },
  'GET /performer/profile': { access: PERFORMER, ok: ['owner', 'other'] },
  'PUT /performer/profile': { access: PERFORMER },
  'GET /performer/promotions': { access: PERFORMER, ok: ['owner', 'other'], hide: { from: ['other'], shownTo: 'owner', id: (fx) => fx.promotion } },
  'POST /performer/promotions': { access: PERFORMER },
  // Only its performer ends a promotion.
  'POST /performer/promotions/{id}/end': { access: PERFORMER, deny: ['other'], ok: ['owner'], req: (fx) => ({ path: `/performer/promotions/${fx.promotion}/end` }) },
  // Co-performers: A names B ('other') on A's videos. Only A reaches A's items and records; only B answers B's requests.
  'GET /performer/co-performers/{objectType}/{objectId}': { access: PERFORMER, deny: ['other'], ok: ['owner'], req: (fx) => ({ path: `/performer/co-performers/video/${fx.co.video}` }) },
  'POST /performer/co-performers/{objectType}/{objectId}': { access: PERFORMER, deny: ['other'], ok: ['owner'], req: (fx) => ({ path: `/performer/co-performers/video/${fx.co.unnamedVideo}`, json: { username: fx.w.perf2.username } }) },
  'POST /performer/co-performers/{objectType}/{objectId}/outside': {
    access: PERFORMER,
    deny: ['other'],
    ok: ['owner'],
    req: (fx) => ({
      path: `/performer/co-performers/video/${fx.co.video}/outside`,
      form: { fields: { legalName: 'Outside Person' }, files: [{ name: 'releaseForm', filename: 'r.png', data: fx.png, type: 'image/png' }, { name: 'idDocument', filename: 'i.png', data: fx.png, type: 'image/png' }] },
    }),
  },
  'DELETE /performer/co-performers/{id}': { access: PERFORMER, deny: ['other'], ok: ['owner'], req: (fx) => ({ path: `/performer/co-performers/${fx.co.recordToDelete}` }) },
  'GET /performer/co-performer-requests': { access: PERFORMER, ok: ['owner', 'other'], hide: { from: ['owner'], shownTo: 'other', id: (fx) => fx.co.record } },
  'POST /performer/co-performer-requests/{id}/confirm': { access: PERFORMER, deny: ['owner'], ok: ['other'], req: (fx) => ({ path: `/performer/co-performer-requests/${fx.co.record}/confirm` }) },
  'POST /performer/co-performer-requests/{id}/decline': { access: PERFORMER, deny: ['owner'], ok: ['other'], req: (fx) => ({ path: `/performer/co-performer-requests/${fx.co.recordToDecline}/decline` }) },

  // -- comments and reactions (the fan's) -----------------------------------------------------------------------------
  'POST /comments': { access: SESSION },
  // Only the author edits, whatever the role.
  'PUT /comments/{id}': { access: SESSION, deny: ['fan2', 'owner', 'other', 'admin'], ok: ['fan'], req: (fx) => ({ path: `/comments/${fx.comment}`, json: { content: 'Edited by its author' } }) },
  // The author, the object's performer or an admin deletes; another performer does not.
  'DELETE /comments/{id}': { access: SESSION, deny: ['fan2', 'other'], ok: ['fan'], pass: ['owner', 'admin'], req: (fx) => ({ path: `/comments/${fx.commentToDelete}` }) },
  'POST /reactions': { access: SESSION },
  'DELETE /reactions': { access: SESSION },
  'GET /reactions/search': { access: SESSION, hide: { from: ['fan2', 'owner', 'other', 'admin'], shownTo: 'fan', id: (fx) => fx.w.videos.freeVideo.id } },
  'GET /reactions/videos': { access: SESSION, ok: ['fan', 'owner', 'other', 'admin'] },
  'GET /reactions/galleries': { access: SESSION, ok: ['fan', 'owner', 'other', 'admin'] },

  // -- follows and the feed -------------------------------------------------------------------------------------------
  // Anyone signed in follows A, except A (400: not oneself), who passes the gate; unfollowing is idempotent for all.
  'POST /performers/{id}/follow': { access: SESSION, ok: ['fan', 'fan2', 'other', 'admin'], pass: ['owner'], req: (fx) => ({ path: `/performers/${fx.w.perf.id}/follow` }) },
  'DELETE /performers/{id}/follow': { access: SESSION, ok: ['fan', 'fan2', 'other', 'admin'], pass: ['owner'], req: (fx) => ({ path: `/performers/${fx.w.perf.id}/follow` }) },
  // The fan follows B (fixtures): only the fan's list names B, and only the fan's feed holds B's video.
  'GET /following': { access: SESSION, hide: { from: ['fan2', 'owner', 'other', 'admin'], shownTo: 'fan', id: (fx) => fx.w.perf2.id } },
  'GET /feed': { access: SESSION, hide: { from: ['fan2', 'owner', 'other', 'admin'], shownTo: 'fan', id: (fx) => fx.followedVideo } },

  // -- direct messages: the fan's conversation with A --------------------------------------------------------------------
  // Only its two participants (and admins, read-only) find it; another fan or performer gets nothing, not even a 403.
  'GET /messages/conversations': { access: SESSION, ok: ['owner'], hide: { from: ['fan2', 'other', 'admin'], shownTo: 'fan', id: (fx) => fx.conversation } },
  // fan and fan2 subscribe to A, who lets subscribers write first; A, B (performers) and an admin open nothing with A.
  'POST /messages/conversations': { access: SESSION, deny: ['owner', 'other', 'admin'], ok: ['fan', 'fan2'], req: (fx) => ({ path: '/messages/conversations', json: { userId: fx.w.perf.id } }) },
  'GET /messages/conversations/{id}': { access: SESSION, deny: ['fan2', 'other'], ok: ['fan', 'owner', 'admin'], req: (fx) => ({ path: `/messages/conversations/${fx.conversation}` }) },
  'GET /messages/conversations/{id}/messages': { access: SESSION, deny: ['fan2', 'other'], ok: ['fan', 'owner', 'admin'], req: (fx) => ({ path: `/messages/conversations/${fx.conversation}/messages` }) },
  'POST /messages/conversations/{id}/messages': {
    access: SESSION,
    deny: ['fan2', 'other', 'admin'],
    ok: ['fan', 'owner'],
    req: (fx) => ({ path: `/messages/conversations/${fx.conversation}/messages`, json: { text: 'From the matrix' } }),
  },
  // One message of that conversation (the fan's): its two participants and admins, nobody else.
  'GET /messages/{id}': { access: SESSION, deny: ['fan2', 'other'], ok: ['fan', 'owner', 'admin'], req: (fx) => ({ path: `/messages/${fx.message}` }) },
  'POST /messages/conversations/{id}/read': { access: SESSION, deny: ['fan2', 'other', 'admin'], ok: ['fan', 'owner'], req: (fx) => ({ path: `/messages/conversations/${fx.conversation}/read` }) },
  'GET /messages/unread': { access: SESSION, ok: ['fan', 'fan2', 'owner', 'other', 'admin'] },
  // A performer's own identity verification (A's seeded, approved one); submitting: A and B are verified already (409).
  'GET /performer/verification': { access: PERFORMER, hide: { from: ['other'], shownTo: 'owner', id: (fx) => fx.verification } },
  'POST /performer/verification': { access: PERFORMER },
  'GET /performer/message-settings': { access: PERFORMER, ok: ['owner', 'other'] },
  'PUT /performer/message-settings': { access: PERFORMER },
  // A blocked a fan of its own: only A's list names them.
  'GET /performer/blocks': { access: PERFORMER, hide: { from: ['other'], shownTo: 'owner', id: (fx) => fx.blockedFan } },
  'POST /performer/blocks': { access: PERFORMER },
  'DELETE /performer/blocks/{userId}': { access: PERFORMER },
  // A's message to its subscribers: in A's list only.
  'GET /performer/mass-messages': { access: PERFORMER, hide: { from: ['other'], shownTo: 'owner', id: (fx) => fx.massMessage } },
  'POST /performer/mass-messages': { access: PERFORMER },
  // -- notifications ------------------------------------------------------------------------------------------------
  // The fan commented on A's video (fixtures): A has that notification; only A's list names it, only A may mark it read.
  'GET /notifications': { access: SESSION, hide: { from: ['fan', 'fan2', 'other', 'admin'], shownTo: 'owner', id: (fx) => fx.notificationId } },
  'GET /notifications/unread-count': { access: SESSION, ok: ['fan', 'fan2', 'owner', 'other', 'admin'] },
  'POST /notifications/{id}/read': { access: SESSION, deny: ['fan', 'fan2', 'other', 'admin'], ok: ['owner'], req: (fx) => ({ path: `/notifications/${fx.notificationId}/read` }) },
  'POST /notifications/read-all': { access: SESSION, ok: ['fan', 'fan2', 'owner', 'other', 'admin'], req: () => ({ path: '/notifications/read-all', json: { before: '2000-01-01T00:00:00.000Z' } }) },
  'GET /notifications/preferences': { access: SESSION, ok: ['fan', 'fan2', 'owner', 'other', 'admin'] },
  'PUT /notifications/preferences': { access: SESSION, ok: ['fan', 'fan2', 'owner', 'other', 'admin'], req: () => ({ path: '/notifications/preferences', json: { email: { tip: true } } }) },
  // The signed token is the permission: without one (or with a forged one) everyone gets the same 400.
  'POST /notifications/unsubscribe': { access: SIGNED, req: () => ({ path: '/notifications/unsubscribe?token=forged.comment.sig' }) },
  // -- reports -------------------------------------------------------------------------------------------------------
  // Anyone signed in reports A's free video, once each; A may not report their own (400), which passes the gate.
  'POST /reports': { access: SESSION, ok: ['fan', 'fan2', 'other', 'admin'], pass: ['owner'], req: (fx) => ({ path: '/reports', json: { targetType: 'video', targetId: fx.w.videos.freeVideo.id, reason: 'spam' } }) },

  // -- money --------------------------------------------------------------------------------------------------------
  'POST /payment/subscribe': { access: SESSION },
  'POST /payment/purchase-video/{id}': { access: SESSION },
  // A's pay-per-view post: anyone signed in may start a checkout of it, except A (400: not your own), who passes the gate.
  'POST /payment/purchase-post/{id}': { access: SESSION, ok: ['fan', 'fan2', 'other', 'admin'], pass: ['owner'], req: (fx) => ({ path: `/payment/purchase-post/${fx.salePost.id}`, json: {} }) },
  'POST /payment/purchase-gallery/{id}': { access: SESSION },
  // A's paid message to the fan: only the fan may unlock it; A (its sender, 400) passes the gate; anyone else finds nothing.
  'POST /payment/purchase-message/{id}': {
    access: SESSION,
    deny: ['fan2', 'other', 'admin'],
    ok: ['fan'],
    pass: ['owner'],
    req: (fx) => ({ path: `/payment/purchase-message/${fx.paidMessage}`, json: {} }),
  },
  // Anyone signed in may start a tip to A, except A (400: not oneself), who passes the gate.
  'POST /payment/tip': { access: SESSION, ok: ['fan', 'fan2', 'other', 'admin'], pass: ['owner'], req: (fx) => ({ path: '/payment/tip', json: { performerId: fx.w.perf.id, amount: 500 } }) },
  'POST /payment/purchase-products': { access: SESSION },
  'GET /payment/transactions': { access: SESSION, hide: { from: ['fan2', 'owner', 'other', 'admin'], shownTo: 'fan', id: (fx) => fx.paymentId } },
  'GET /transactions/user/search': { access: SESSION, hide: { from: ['fan2', 'owner', 'other', 'admin'], shownTo: 'fan', id: (fx) => fx.paymentId } },
  'GET /payment/status/{id}': { access: SESSION, deny: ['fan2', 'owner', 'other'], ok: ['fan', 'admin'], req: (fx) => ({ path: `/payment/status/${fx.paymentId}` }) },
  // Only the buyer acts on the provider's hosted page (admins included in the refusal).
  'POST /payment/sandbox/{id}/complete': {
    access: SESSION,
    deny: ['fan2', 'owner', 'other', 'admin'],
    ok: ['fan'],
    req: (fx) => ({ path: `/payment/sandbox/${fx.pendingChargeId}/complete`, json: { outcome: 'cancel' } }),
  },
  'POST /payment/sandbox/{id}/reverse': { access: ADMIN, req: (fx) => ({ path: `/payment/sandbox/${fx.pendingChargeId}/reverse`, json: { kind: 'refunded' } }) },
  'GET /subscriptions/current': { access: SESSION, hide: { from: ['fan2', 'owner', 'other', 'admin'], shownTo: 'fan', id: (fx) => fx.subscription } },
  'GET /subscriptions/user/search': { access: SESSION, hide: { from: ['fan2', 'owner', 'other', 'admin'], shownTo: 'fan', id: (fx) => fx.subscription } },
  'GET /subscriptions/performer/search': {
    access: STUDIO,
    pass: ['admin'],
    hide: { from: ['other'], shownTo: 'owner', id: (fx) => fx.subscription },
    req: (fx) => ({ path: `/subscriptions/performer/search?performerId=${fx.w.perf.id}` }),
  },
  'GET /subscriptions/performer/stats': { access: STUDIO, ok: ['owner', 'other', 'admin'], req: (fx) => ({ path: `/subscriptions/performer/stats?performerId=${fx.w.perf.id}` }) },
  'POST /subscriptions/cancel/{id}': { access: SESSION, deny: ['fan2', 'owner', 'other'], ok: ['fan', 'admin'], req: (fx) => ({ path: `/subscriptions/cancel/${fx.subscription}` }) },
  // fan2's subscription: neither the fan, nor its performer, nor another may cancel it; fan2 and an admin may.
  'POST /subscriptions/cancel': { access: SESSION, deny: ['fan', 'owner', 'other'], ok: ['fan2', 'admin'], req: (fx) => ({ path: '/subscriptions/cancel', json: { subscriptionId: fx.otherFansSubscription } }) },
  'POST /coupons/{id}/apply-coupon': { access: SESSION, ok: ['fan', 'owner', 'other', 'admin'], req: () => ({ path: '/coupons/WELCOME10/apply-coupon', json: { amount: 1000 } }) },
  'GET /orders/details/search': {
    access: STUDIO,
    pass: ['admin'],
    hide: { from: ['other'], shownTo: 'owner', id: (fx) => fx.orderId },
    req: (fx) => ({ path: `/orders/details/search?performerId=${fx.w.perf.id}` }),
  },
  'GET /orders/users/search': { access: SESSION, hide: { from: ['fan2', 'owner', 'other', 'admin'], shownTo: 'fan', id: (fx) => fx.orderId } },
  'GET /orders/users/details/search': { access: SESSION, hide: { from: ['fan2', 'owner', 'other', 'admin'], shownTo: 'fan', id: (fx) => fx.orderNumber } },
  'GET /orders/details/{id}': { access: SESSION, deny: ['fan2', 'other'], ok: ['fan', 'owner', 'admin'], req: (fx) => ({ path: `/orders/details/${fx.orderId}` }) },
  'PUT /orders/{id}/update': { access: STUDIO, deny: ['other'], ok: ['owner', 'admin'], req: (fx) => ({ path: `/orders/${fx.orderId}/update`, json: { trackingCode: 'TRACK-1' } }) },
  'GET /user/assets/products/{id}/download-link': { access: SESSION, deny: ['fan2', 'other'], ok: ['fan', 'owner', 'admin'], req: (fx) => ({ path: `/user/assets/products/${fx.w.products.ebook.id}/download-link` }) },
  'GET /earning/performer/search': {
    access: STUDIO,
    pass: ['admin'],
    hide: { from: ['other'], shownTo: 'owner', id: (fx) => fx.paymentId },
    req: (fx) => ({ path: `/earning/performer/search?performerId=${fx.w.perf.id}` }),
  },
  'GET /earning/performer/stats': { access: STUDIO, ok: ['owner', 'other', 'admin'] },
  // A's payout details and open payout request: A's own only, never another performer's, and no other role's.
  'GET /performer/payout-details': { access: PERFORMER, hide: { from: ['other'], shownTo: 'owner', id: () => PAYOUT_HOLDER } },
  'PUT /performer/payout-details': { access: PERFORMER },
  'GET /performer/payouts/balance': { access: PERFORMER, hide: { from: ['other'], shownTo: 'owner', id: (fx) => fx.payoutId } },
  'GET /performer/payouts': { access: PERFORMER, hide: { from: ['other'], shownTo: 'owner', id: (fx) => fx.payoutId } },
  // A already has a request open (409), B has no payout details (409): past the gate, and nothing of A's to take.
  'POST /performer/payouts': { access: PERFORMER },

  // -- admin console: one declaration for the group; here only the gate matters ----------------------------------------
  ...Object.fromEntries(
    [
      'GET /admin/settings', 'PUT /admin/settings', 'PUT /admin/settings/payment', 'POST /admin/settings/images/{kind}',
      'GET /admin/banners', 'POST /admin/banners', 'PUT /admin/banners/{id}', 'DELETE /admin/banners/{id}', 'POST /admin/banners/{id}/image',
      'GET /admin/categories', 'POST /admin/categories', 'PUT /admin/categories/{id}', 'DELETE /admin/categories/{id}',
      'GET /admin/country-blocks', 'POST /admin/country-blocks', 'DELETE /admin/country-blocks/{code}',
      'GET /admin/coupons', 'POST /admin/coupons', 'PUT /admin/coupons/{id}', 'DELETE /admin/coupons/{id}',
      'GET /admin/packages', 'POST /admin/packages', 'PUT /admin/packages/{id}', 'DELETE /admin/packages/{id}',
      'PUT /admin/performers/{id}/commission',
      'GET /admin/users', 'POST /admin/users/{id}/suspend', 'POST /admin/users/{id}/reactivate',
      'GET /admin/performers', 'POST /admin/performers/{id}/approve',
      'GET /admin/content', 'PUT /admin/content/{type}/{id}/status', 'GET /admin/comments', 'DELETE /admin/comments/{id}',
      'GET /admin/payments', 'POST /admin/payments/{id}/refund', 'GET /admin/orders', 'PUT /admin/orders/{id}/delivery',
      'GET /admin/earnings', 'GET /admin/earnings/search', 'GET /admin/payouts', 'POST /admin/earnings/payout',
      'GET /admin/payout-requests', 'POST /admin/payout-requests/{id}/approve', 'POST /admin/payout-requests/{id}/reject', 'POST /admin/payout-requests/{id}/paid',
      'POST /admin/payout-requests/{id}/reveal',
      'GET /admin/dashboard', 'GET /admin/audit', 'GET /admin/reports', 'POST /admin/reports/{targetType}/{targetId}/resolve',
      'GET /admin/takedowns', 'POST /admin/takedowns/{targetType}/{targetId}/resolve',
      'GET /admin/watermarks', 'PUT /admin/settings/watermark', 'POST /admin/watermarks/runs', 'GET /admin/watermarks/runs/{id}',
      'GET /admin/verifications', 'GET /admin/verifications/{id}', 'POST /admin/verifications/{id}/approve', 'POST /admin/verifications/{id}/reject',
      'GET /admin/consent', 'POST /admin/consent/{id}/refuse',
    ].map((key) => [key, { access: ADMIN }]),
  ),
};

/** `/api/users/:id/x` → `/users/{id}/x`, `/media/public/*` → `/media/public/{*}`: the OpenAPI spelling. */
function keyOf(method: string, url: string, apiBase: string): string {
  const path = (url.startsWith(`${apiBase}/`) ? url.slice(apiBase.length) : url).replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{*}');
  return `${method.toUpperCase()} ${path}`;
}

const sameAccess = (a: RouteAccess | undefined, b: RouteAccess) => JSON.stringify(a) === JSON.stringify(b);
const rolesOf = (access: RouteAccess): readonly Role[] | null => (typeof access === 'object' ? access.roles : null);

async function buildFixtures(t: TestApp) {
  const ctx = { db: t.ctx.db, storage: t.ctx.storage };
  const w: MoneyWorld = await buildMoneyWorld(ctx);
  const users: Record<Exclude<Who, 'guest'>, TestUser> = { fan: w.fan, fan2: w.fan2, owner: w.perf, other: w.perf2, admin: w.admin };
  const A = w.perf.id;
  const draftVideo = await makeVideo(ctx, A, { title: 'A draft', status: 'draft', publishedAt: null, withFiles: false });
  const videoToDelete = await makeVideo(ctx, A, { title: 'A video to delete', withFiles: false });
  const gallery = await makeGallery(ctx, A, { title: 'A gallery', photos: 1 });
  const galleryToDelete = await makeGallery(ctx, A, { title: 'A gallery to delete', photos: 0 });
  const photo = gallery.photos[0]!;
  const photoToDelete = await makePhoto(ctx, A, { galleryId: gallery.id, position: 1 });
  const draftProduct = await makeProduct(ctx, A, { name: 'A draft product', status: 'draft', publishedAt: null });
  const productToDelete = await makeProduct(ctx, A, { name: 'A product to delete' });
  const post = await makePost(ctx, { title: 'A post', performerId: A, authorId: A });
  const postToDelete = await makePost(ctx, { title: 'A post to delete', performerId: A, authorId: A });
  const salePost = await makePost(ctx, { title: 'A pay-per-view post', performerId: A, authorId: A, access: 'sale', price: 300 });

  const api = (path: string, who: TestUser, json: unknown) => t.api(path, { method: 'POST', headers: who.headers, json });
  // A paid order of A's products by the fan (the real checkout, approved on the sandbox page).
  const checkout = await api('/payment/purchase-products', w.fan, { items: [{ _id: w.products.mug.id }, { _id: w.products.ebook.id }], shippingAddress: '1 Test Street, Testville' });
  expect(checkout.status, JSON.stringify(checkout.body)).toBe(201);
  expect((await payWithSandbox(t, w.fan, checkout.body.redirectUrl)).status).toBe(200);
  const orderId: string = checkout.body.orderIds[0];
  const order = await t.ctx.db.selectFrom('orders').select(['orderNumber', 'status']).where('id', '=', orderId).executeTakeFirstOrThrow();
  expect(order.status).toBe('paid');
  // A checkout left open on the provider's page: the fan subscribing to B.
  const pending = await api('/payment/subscribe', w.fan, { performerId: w.perf2.id, type: 'monthly' });
  expect(pending.status, JSON.stringify(pending.body)).toBe(201);
  const subscription = (await subscribe(t.ctx.db, w.fan.id, A)).id;
  const otherFansSubscription = (await subscribe(t.ctx.db, w.fan2.id, A)).id;
  const comment = await api('/comments', w.fan, { objectType: 'video', objectId: w.videos.freeVideo.id, content: 'A comment to edit' });
  const commentToDelete = await api('/comments', w.fan, { objectType: 'video', objectId: w.videos.freeVideo.id, content: 'A comment to delete' });
  expect([comment.status, commentToDelete.status]).toEqual([201, 201]);
  expect((await api('/reactions', w.fan, { objectType: 'video', objectId: w.videos.freeVideo.id, action: 'like' })).status).toBe(200);
  // A's payout details, a real-money sale past the hold, and A's payout request of it (open).
  const details = await t.api('/performer/payout-details', {
    method: 'PUT', headers: w.perf.headers, json: { method: 'bank', accountHolder: PAYOUT_HOLDER, accountNumber: 'GB82WEST12345698765432', bankCountry: 'GB' },
  });
  expect(details.status, JSON.stringify(details.body)).toBe(200);
  const sold = new Date(Date.now() - 30 * 86_400_000).toISOString();
  const realPayment = newId();
  await t.ctx.db
    .insertInto('payments')
    .values({ id: realPayment, userId: w.fan2.id, performerId: A, type: 'video', status: 'success', gateway: 'stripe', gatewayRef: `cs_${realPayment}`, targetId: null, originalPrice: 10_000, amount: 10_000, currency: 'USD', paidAt: sold, createdAt: sold, updatedAt: sold })
    .execute();
  await t.ctx.db
    .insertInto('earnings')
    .values({ id: newId(), paymentId: realPayment, paymentItemId: newId(), performerId: A, userId: w.fan2.id, sourceType: 'video', gross: 10_000, commission: 2000, net: 8000, commissionBps: 2000, createdAt: sold })
    .execute();
  const payout = await api('/performer/payouts', w.perf, {});
  expect(payout.status, JSON.stringify(payout.body)).toBe(201);
  // A's promotion for new subscribers (the end route ends it: asked last by the owner).
  const promotion = await api('/performer/promotions', w.perf, { valueBps: 1000, startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 86_400_000).toISOString() });
  expect(promotion.status, JSON.stringify(promotion.body)).toBe(201);
  // The fan follows B, who publishes a video: B's video is in the fan's feed and nobody else's.
  const followedVideo = (await makeVideo(ctx, w.perf2.id, { title: 'B video for followers', withFiles: false })).id;
  expect((await t.api(`/performers/${w.perf2.id}/follow`, { method: 'POST', headers: w.fan.headers })).status).toBe(200);
  const notificationId = (await t.ctx.db.selectFrom('notifications').select('id').where('userId', '=', A).where('type', '=', 'comment').executeTakeFirstOrThrow()).id;
  const png = await sharp({ create: { width: 32, height: 24, channels: 3, background: { r: 200, g: 40, b: 90 } } }).png().toBuffer();
  // The fan (a subscriber of A) writes to A with a picture; A blocked another account.
  const opened = await api('/messages/conversations', w.fan, { userId: A });
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  const conversation: string = opened.body._id;
  const message = await postForm(t, `/messages/conversations/${conversation}/messages`, { fields: { text: 'Hello A' }, files: [{ name: 'file', filename: 'p.png', data: png, type: 'image/png' }] }, { headers: w.fan.headers });
  expect(message.status, JSON.stringify(message.body)).toBe(201);
  // A answers with a paid picture (7.00 to unlock).
  const paid = await postForm(t, `/messages/conversations/${conversation}/messages`, { fields: { text: 'For you', price: '700' }, files: [{ name: 'file', filename: 'p.png', data: png, type: 'image/png' }] }, { headers: w.perf.headers });
  expect(paid.status, JSON.stringify(paid.body)).toBe(201);
  const blockedFan = (await makeUser(t.ctx.db, { name: 'Blocked By A' })).id;
  expect((await api('/performer/blocks', w.perf, { userId: blockedFan })).status).toBe(200);
  const mass = await api('/performer/mass-messages', w.perf, { text: 'To all my subscribers', audience: 'subscribers' });
  expect(mass.status, JSON.stringify(mass.body)).toBe(201);
  const massMessage: string = mass.body._id;
  const verification = (await t.ctx.db.selectFrom('performerVerifications').select('id').where('performerId', '=', A).executeTakeFirstOrThrow()).id;
  const exported = await api('/users/me/data-exports', w.fan, {});
  expect(exported.status, JSON.stringify(exported.body)).toBe(202);
  const dataExport: string = exported.body._id;
  // Co-performers: A names B on three of A's videos (one record to confirm, one to decline, one to remove); a fourth names nobody yet.
  const coVideos = await Promise.all(['Duet', 'Duet two', 'Duet three', 'Duet four'].map(async (title) => (await makeVideo(ctx, A, { title, withFiles: false })).id));
  const coRecords: string[] = [];
  for (const video of coVideos.slice(0, 3)) {
    const named = await api(`/performer/co-performers/video/${video}`, w.perf, { username: w.perf2.username });
    expect(named.status, JSON.stringify(named.body)).toBe(201);
    coRecords.push(named.body.items[0]._id);
  }
  const co = { video: coVideos[0]!, unnamedVideo: coVideos[3]!, record: coRecords[0]!, recordToDecline: coRecords[1]!, recordToDelete: coRecords[2]! };

  return {
    t, w, users, png, draftVideo, videoToDelete, gallery, galleryToDelete, photo, photoToDelete, draftProduct, productToDelete, post, postToDelete, salePost,
    orderId, orderNumber: order.orderNumber, paymentId: checkout.body.paymentId as string, pendingChargeId: String(pending.body.redirectUrl).split('/').pop()!,
    subscription, otherFansSubscription, promotion: promotion.body._id as string, comment: comment.body._id as string, commentToDelete: commentToDelete.body._id as string,
    payoutId: payout.body._id as string, followedVideo, conversation, blockedFan, massMessage, notificationId, message: message.body._id as string, paidMessage: paid.body._id as string,
    dataExport, verification,
    co,
  };
}

describe.each(engines)('access matrix on %s', (engine) => {
  let t: TestApp;
  let fx: Fixtures;
  let doc: { paths: Record<string, Record<string, { 'x-access'?: unknown; security?: Array<Record<string, unknown>>; responses?: Record<string, unknown> }>> };

  beforeAll(async () => {
    const loose = '100000/60';
    t = await startTestApp(engine, {
      env: Object.fromEntries(['RATE_LIMIT_LOGIN_IP', 'RATE_LIMIT_LOGIN_ACCOUNT', 'RATE_LIMIT_REGISTER_IP', 'RATE_LIMIT_EMAIL_IP', 'RATE_LIMIT_PASSWORD_CHANGE'].map((k) => [k, loose])),
    });
    fx = await buildFixtures(t);
    const res = await t.api('/docs/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('has one table entry per route, no more: every OpenAPI operation and every registered route', () => {
    const fromDoc = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const routes = registeredRoutes(t.built.app);
    const fromApp = routes.map((r) => keyOf(r.method, r.url, t.config.apiBase));
    expect(fromDoc.length).toBeGreaterThan(100);
    expect(fromApp.length).toBeGreaterThanOrEqual(fromDoc.length);
    const missing = [...new Set([...fromDoc, ...fromApp])].filter((k) => !(k in TABLE));
    const stale = Object.keys(TABLE).filter((k) => !fromDoc.includes(k) && !fromApp.includes(k));
    expect(
      { missing, stale },
      'missing: routes without an entry in the access table of tests/api/access-matrix.test.ts, add one (its access, and who must be denied); ' +
        'stale: entries for routes that no longer exist, remove them',
    ).toEqual({ missing: [], stale: [] });
  });

  it('names every caller of a route that takes someone\'s thing: owner, another fan, the object\'s performer, another performer, admin', () => {
    const unnamed: string[] = [];
    for (const [key, e] of Object.entries(TABLE)) {
      if (!e.deny?.length && !e.hide) continue;
      const roles = rolesOf(e.access);
      const named = new Set<Who>([...(e.deny ?? []), ...(e.ok ?? []), ...(e.pass ?? []), ...(e.hide ? [...e.hide.from, e.hide.shownTo] : [])]);
      const through = WHO.filter((w) => w !== 'guest' && (roles === null || roles.includes(ROLE_OF[w])));
      const missing = through.filter((w) => !named.has(w));
      if (missing.length) unnamed.push(`${key}: ${missing.join(', ')}`);
    }
    expect(unnamed, 'say of each caller whether it is denied (deny), served (ok, hide) or passes with another answer (pass)').toEqual([]);
  });

  it('declares, and documents, the access of every route as the table says', () => {
    const mismatches: string[] = [];
    for (const r of registeredRoutes(t.built.app)) {
      const key = keyOf(r.method, r.url, t.config.apiBase);
      const expected = TABLE[key]?.access;
      if (expected && !sameAccess(r.access, expected)) mismatches.push(`${key}: declares ${JSON.stringify(r.access)}, the table says ${JSON.stringify(expected)}`);
    }
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const key = `${method.toUpperCase()} ${path}`;
        const expected = TABLE[key]?.access;
        if (!expected) continue;
        if (!sameAccess(op['x-access'] as RouteAccess, expected)) mismatches.push(`${key}: documented x-access ${JSON.stringify(op['x-access'])}`);
        const needsSession = expected === 'session' || typeof expected === 'object';
        // Required: every alternative names a scheme (public operations list `{}`, a session is optional; signed ones none).
        const required = Boolean(op.security?.length) && op.security!.every((alternative) => Object.keys(alternative).length > 0);
        if (needsSession !== required) mismatches.push(`${key}: security ${JSON.stringify(op.security)} in the OpenAPI document`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('keeps the micro-cached routes public (the cache answers anonymous requests before any hook runs)', () => {
    const notPublic = [...PUBLIC_CACHE_ROUTES].filter((url) => TABLE[keyOf('GET', url, '')]?.access !== 'public');
    expect(notPublic).toEqual([]);
  });

  it('answers every route as its access says, for guest, fan, another fan, owner, another performer and admin', async () => {
    const failures: string[] = [];
    const keys = Object.keys(TABLE).sort((a, b) => Number(a.startsWith('DELETE ')) - Number(b.startsWith('DELETE ')));
    for (const key of keys) {
      const e = TABLE[key]!;
      const [method, template] = key.split(' ') as [string, string];
      const deny = e.deny ?? [];
      // Those who must be refused go first, while the resource is still there; guests before everyone.
      const order: Who[] = ['guest', ...deny, ...WHO.filter((w) => w !== 'guest' && !deny.includes(w))];
      const statuses: Partial<Record<Who, number>> = {};
      const bodies: Partial<Record<Who, string>> = {};
      for (const who of order) {
        const req = e.req ? await e.req(fx, who) : { path: template.replace(/\{[^}]+\}/g, 'no-such-id') };
        const headers: Record<string, string> = req.headers ?? (who === 'guest' ? {} : fx.users[who].headers);
        let status: number;
        let text: string;
        if (req.form) {
          const res = await postForm(t, req.path, req.form, { headers, method });
          status = res.status;
          text = JSON.stringify(res.body);
        } else {
          const json = req.json ?? (method === 'POST' || method === 'PUT' ? {} : undefined);
          const init: RequestInit = { method, headers: { ...headers, ...(json !== undefined ? { 'content-type': 'application/json' } : {}) }, body: json !== undefined ? JSON.stringify(json) : undefined };
          const res = await fetch(`${t.url}${req.root ? '' : t.config.apiBase}${req.path}`, init);
          status = res.status;
          text = await res.text();
        }
        statuses[who] = status;
        bodies[who] = text;
      }

      const fail = (msg: string) => failures.push(`${key}: ${msg} (${JSON.stringify(statuses)})`);
      for (const who of WHO) if (statuses[who]! >= 500) fail(`${who} got ${statuses[who]}: ${bodies[who]!.slice(0, 200)}`);
      // Every refusal is one the OpenAPI operation lists (routes outside the document have nothing to compare).
      const documented = doc.paths[template]?.[method.toLowerCase()]?.responses;
      for (const who of WHO) if (documented && statuses[who]! >= 400 && !documented[statuses[who]!]) fail(`${who} got ${statuses[who]}, which the OpenAPI document does not list`);
      if (e.access === 'signed') {
        if (new Set(Object.values(statuses)).size !== 1) fail('a signed route must answer every caller alike: a session changes nothing');
        if (statuses.guest! < 400) fail('an unsigned request must be refused');
        continue;
      }
      const roles = rolesOf(e.access);
      for (const who of WHO) {
        const s = statuses[who]!;
        const gated = e.access !== 'public' && (who === 'guest' || (roles !== null && !roles.includes(ROLE_OF[who])));
        if (gated) {
          const want = who === 'guest' ? 401 : 403;
          if (s !== want) fail(`${who} must get ${want}, got ${s}`);
          else if (!/"code":"(UNAUTHORIZED|FORBIDDEN)"/.test(bodies[who]!)) fail(`${who}'s ${s} is not { message, code }: ${bodies[who]}`);
        } else if (deny.includes(who)) {
          if (s !== 403 && s !== 404) fail(`${who} passes the gate but does not own the resource: must get 403 or 404, got ${s}`);
        } else if (s === 401 || s === 403) {
          fail(`${who} must pass, got ${s}`);
        }
        if ((e.ok ?? []).includes(who) && (s < 200 || s >= 300)) fail(`${who} must get a 2xx, got ${s}: ${bodies[who]!.slice(0, 200)}`);
      }
      if (e.hide) {
        const id = e.hide.id(fx);
        if (!bodies[e.hide.shownTo]!.includes(id)) fail(`${e.hide.shownTo} must see ${id} (else the check below proves nothing)`);
        for (const who of e.hide.from) {
          if (statuses[who]! < 200 || statuses[who]! >= 300) fail(`${who} must get a 2xx, got ${statuses[who]}`);
          if (bodies[who]!.includes(id)) fail(`${who} sees ${id}, which is not theirs`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 180_000);
});
