import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_GATE_EXEMPT } from '../../server/http/site-gates.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The OpenAPI document other clients build on (server/http/openapi.ts), from the real app:
 *  - Redocly's recommended rules report no error, and no warning but the two the API cannot lose without changing
 *    (KNOWN_WARNINGS);
 *  - every operation has a summary and an operationId, unique, and the same as last time (OPERATION_IDS: a client's
 *    generated method names; a new route adds its line, a renamed one changes its line on purpose);
 *  - security says what `x-access` says;
 *  - every operation lists the 4xx it can give, each with the one error body, and the ones that follow from what the
 *    operation shows (its parameters, body, access, method, the site gates) are all there.
 * The document is the same on both engines, so SQLite is enough.
 */

type Operation = {
  operationId?: string;
  summary?: string;
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: unknown;
  security?: Array<Record<string, string[]>>;
  'x-access'?: unknown;
  responses: Record<string, { description?: string; content?: Record<string, { schema?: Record<string, unknown> }> }>;
};
type Document = {
  openapi: string;
  info: Record<string, unknown>;
  servers: Array<{ url: string }>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
  paths: Record<string, Record<string, Operation>>;
};

/**
 * Warnings the document keeps on purpose. no-ambiguous-paths: `/orders/details/{id}` and `/orders/{id}/update` could
 * both match `/orders/details/update`; the routes are what clients call, so they stay. info-license-strict: a licence
 * URL, and the package grants no licence to link to.
 */
const KNOWN_WARNINGS = new Set(['no-ambiguous-paths', 'info-license-strict']);

/** Operations guarded by a rate limit: `config.rateLimit` (contact) or a `limiter` hook (the others). */
/** Routes whose plugin takes a body of any type (the webhooks' signed bytes; the one-click unsubscribe's form, unread). */
const ANY_BODY = new Set(['POST /payment/webhooks/{gateway}', 'POST /notifications/unsubscribe']);
const RATE_LIMITED = ['POST /contact', 'POST /auth/login', 'POST /auth/users/register', 'POST /comments', 'POST /reactions', 'POST /coupons/{id}/apply-coupon', 'POST /payment/subscribe', 'POST /performers/{id}/follow', 'POST /reports', 'POST /takedowns'];
/** And some that are not, and declare no 429 themselves: the document must not say they are. */
const NOT_RATE_LIMITED = ['GET /performers/search', 'GET /user/assets/videos/{id}', 'POST /re-captcha/verify'];

const OPERATION_IDS: Record<string, string> = {
  'GET /admin/audit': 'getAdminAudit',
  'GET /admin/banners': 'getAdminBanners',
  'POST /admin/banners': 'postAdminBanners',
  'DELETE /admin/banners/{id}': 'deleteAdminBannersById',
  'PUT /admin/banners/{id}': 'putAdminBannersById',
  'POST /admin/banners/{id}/image': 'postAdminBannersByIdImage',
  'GET /admin/categories': 'getAdminCategories',
  'POST /admin/categories': 'postAdminCategories',
  'DELETE /admin/categories/{id}': 'deleteAdminCategoriesById',
  'PUT /admin/categories/{id}': 'putAdminCategoriesById',
  'GET /admin/comments': 'getAdminComments',
  'DELETE /admin/comments/{id}': 'deleteAdminCommentsById',
  'GET /admin/content': 'getAdminContent',
  'PUT /admin/content/{type}/{id}/status': 'putAdminContentByTypeByIdStatus',
  'GET /admin/country-blocks': 'getAdminCountryBlocks',
  'POST /admin/country-blocks': 'postAdminCountryBlocks',
  'DELETE /admin/country-blocks/{code}': 'deleteAdminCountryBlocksByCode',
  'GET /admin/coupons': 'getAdminCoupons',
  'POST /admin/coupons': 'postAdminCoupons',
  'DELETE /admin/coupons/{id}': 'deleteAdminCouponsById',
  'PUT /admin/coupons/{id}': 'putAdminCouponsById',
  'GET /admin/dashboard': 'getAdminDashboard',
  'GET /admin/reports': 'getAdminReports',
  'POST /admin/reports/{targetType}/{targetId}/resolve': 'postAdminReportsByTargetTypeByTargetIdResolve',
  'GET /admin/takedowns': 'getAdminTakedowns',
  'POST /admin/takedowns/{targetType}/{targetId}/resolve': 'postAdminTakedownsByTargetTypeByTargetIdResolve',
  'GET /admin/watermarks': 'getAdminWatermarks',
  'PUT /admin/settings/watermark': 'putAdminSettingsWatermark',
  'POST /admin/watermarks/runs': 'postAdminWatermarksRuns',
  'GET /admin/watermarks/runs/{id}': 'getAdminWatermarksRunsById',
  'GET /performer/verification': 'getPerformerVerification',
  'POST /performer/verification': 'postPerformerVerification',
  'GET /admin/verifications': 'getAdminVerifications',
  'GET /admin/verifications/{id}': 'getAdminVerificationsById',
  'POST /admin/verifications/{id}/approve': 'postAdminVerificationsByIdApprove',
  'POST /admin/verifications/{id}/reject': 'postAdminVerificationsByIdReject',
  'GET /admin/consent': 'getAdminConsent',
  'POST /admin/consent/{id}/refuse': 'postAdminConsentByIdRefuse',
  'GET /admin/earnings': 'getAdminEarnings',
  'POST /admin/earnings/payout': 'postAdminEarningsPayout',
  'GET /admin/earnings/search': 'getAdminEarningsSearch',
  'GET /admin/orders': 'getAdminOrders',
  'PUT /admin/orders/{id}/delivery': 'putAdminOrdersByIdDelivery',
  'GET /admin/packages': 'getAdminPackages',
  'POST /admin/packages': 'postAdminPackages',
  'DELETE /admin/packages/{id}': 'deleteAdminPackagesById',
  'PUT /admin/packages/{id}': 'putAdminPackagesById',
  'GET /admin/payments': 'getAdminPayments',
  'POST /admin/payments/{id}/refund': 'postAdminPaymentsByIdRefund',
  'GET /admin/payout-requests': 'getAdminPayoutRequests',
  'POST /admin/payout-requests/{id}/approve': 'postAdminPayoutRequestsByIdApprove',
  'POST /admin/payout-requests/{id}/paid': 'postAdminPayoutRequestsByIdPaid',
  'POST /admin/payout-requests/{id}/reject': 'postAdminPayoutRequestsByIdReject',
  'POST /admin/payout-requests/{id}/reveal': 'postAdminPayoutRequestsByIdReveal',
  'GET /admin/payouts': 'getAdminPayouts',
  'GET /admin/performers': 'getAdminPerformers',
  'POST /admin/performers/{id}/approve': 'postAdminPerformersByIdApprove',
  'PUT /admin/performers/{id}/commission': 'putAdminPerformersByIdCommission',
  'GET /admin/settings': 'getAdminSettings',
  'PUT /admin/settings': 'putAdminSettings',
  'POST /admin/settings/images/{kind}': 'postAdminSettingsImagesByKind',
  'PUT /admin/settings/payment': 'putAdminSettingsPayment',
  'GET /admin/users': 'getAdminUsers',
  'POST /admin/users/{id}/reactivate': 'postAdminUsersByIdReactivate',
  'POST /admin/users/{id}/suspend': 'postAdminUsersByIdSuspend',
  'POST /auth/email-verification': 'postAuthEmailVerification',
  'POST /auth/email-verification/resend': 'postAuthEmailVerificationResend',
  'POST /auth/login': 'postAuthLogin',
  'POST /auth/logout': 'postAuthLogout',
  'POST /auth/users/forgot': 'postAuthUsersForgot',
  'PUT /auth/users/me/password': 'putAuthUsersMePassword',
  'POST /auth/users/register': 'postAuthUsersRegister',
  'POST /auth/users/reset-password': 'postAuthUsersResetPassword',
  'POST /comments': 'postComments',
  'GET /comments/search': 'getCommentsSearch',
  'DELETE /comments/{id}': 'deleteCommentsById',
  'PUT /comments/{id}': 'putCommentsById',
  'POST /contact': 'postContact',
  'GET /countries/list': 'getCountriesList',
  'GET /country-block/check': 'getCountryBlockCheck',
  'POST /coupons/{id}/apply-coupon': 'postCouponsByIdApplyCoupon',
  'GET /earning/performer/search': 'getEarningPerformerSearch',
  'GET /earning/performer/stats': 'getEarningPerformerStats',
  'GET /feed': 'getFeed',
  'GET /following': 'getFollowing',
  'GET /messages/conversations': 'getMessagesConversations',
  'POST /messages/conversations': 'postMessagesConversations',
  'GET /messages/conversations/{id}': 'getMessagesConversationsById',
  'GET /messages/conversations/{id}/messages': 'getMessagesConversationsByIdMessages',
  'POST /messages/conversations/{id}/messages': 'postMessagesConversationsByIdMessages',
  'POST /messages/conversations/{id}/read': 'postMessagesConversationsByIdRead',
  'GET /messages/{id}': 'getMessagesById',
  'GET /messages/unread': 'getMessagesUnread',
  'GET /performer/message-settings': 'getPerformerMessageSettings',
  'PUT /performer/message-settings': 'putPerformerMessageSettings',
  'GET /performer/blocks': 'getPerformerBlocks',
  'POST /performer/blocks': 'postPerformerBlocks',
  'DELETE /performer/blocks/{userId}': 'deletePerformerBlocksByUserId',
  'GET /performer/mass-messages': 'getPerformerMassMessages',
  'POST /performer/mass-messages': 'postPerformerMassMessages',
  'GET /notifications': 'getNotifications',
  'GET /notifications/preferences': 'getNotificationsPreferences',
  'GET /notifications/unread-count': 'getNotificationsUnreadCount',
  'POST /notifications/read-all': 'postNotificationsReadAll',
  'POST /notifications/unsubscribe': 'postNotificationsUnsubscribe',
  'POST /notifications/{id}/read': 'postNotificationsByIdRead',
  'PUT /notifications/preferences': 'putNotificationsPreferences',
  'POST /reports': 'postReports',
  'POST /takedowns': 'postTakedowns',
  'GET /languages/list': 'getLanguagesList',
  'GET /orders/details/search': 'getOrdersDetailsSearch',
  'GET /orders/details/{id}': 'getOrdersDetailsById',
  'GET /orders/users/details/search': 'getOrdersUsersDetailsSearch',
  'GET /orders/users/search': 'getOrdersUsersSearch',
  'PUT /orders/{id}/update': 'putOrdersByIdUpdate',
  'GET /package/subscription/search': 'getPackageSubscriptionSearch',
  'POST /payment/purchase-gallery/{id}': 'postPaymentPurchaseGalleryById',
  'POST /payment/purchase-post/{id}': 'postPaymentPurchasePostById',
  'POST /payment/purchase-message/{id}': 'postPaymentPurchaseMessageById',
  'POST /payment/tip': 'postPaymentTip',
  'POST /payment/purchase-products': 'postPaymentPurchaseProducts',
  'POST /payment/purchase-video/{id}': 'postPaymentPurchaseVideoById',
  'POST /payment/sandbox/{id}/complete': 'postPaymentSandboxByIdComplete',
  'POST /payment/sandbox/{id}/reverse': 'postPaymentSandboxByIdReverse',
  'GET /payment/status/{id}': 'getPaymentStatusById',
  'POST /payment/subscribe': 'postPaymentSubscribe',
  'GET /payment/transactions': 'getPaymentTransactions',
  'POST /payment/webhooks/{gateway}': 'postPaymentWebhooksByGateway',
  'POST /performer/assets/galleries': 'postPerformerAssetsGalleries',
  'GET /performer/assets/galleries/search': 'getPerformerAssetsGalleriesSearch',
  'DELETE /performer/assets/galleries/{id}': 'deletePerformerAssetsGalleriesById',
  'PUT /performer/assets/galleries/{id}': 'putPerformerAssetsGalleriesById',
  'POST /performer/assets/photos/upload': 'postPerformerAssetsPhotosUpload',
  'DELETE /performer/assets/photos/{id}': 'deletePerformerAssetsPhotosById',
  'PUT /performer/assets/photos/{id}': 'putPerformerAssetsPhotosById',
  'POST /performer/assets/posts': 'postPerformerAssetsPosts',
  'GET /performer/assets/posts/search': 'getPerformerAssetsPostsSearch',
  'DELETE /performer/assets/posts/{id}': 'deletePerformerAssetsPostsById',
  'PUT /performer/assets/posts/{id}': 'putPerformerAssetsPostsById',
  'POST /performer/assets/products': 'postPerformerAssetsProducts',
  'GET /performer/assets/products/search': 'getPerformerAssetsProductsSearch',
  'DELETE /performer/assets/products/{id}': 'deletePerformerAssetsProductsById',
  'PUT /performer/assets/products/{id}': 'putPerformerAssetsProductsById',
  'GET /performer/assets/products/{id}/view': 'getPerformerAssetsProductsByIdView',
  'GET /performer/assets/videos/search': 'getPerformerAssetsVideosSearch',
  'POST /performer/assets/videos/upload': 'postPerformerAssetsVideosUpload',
  'DELETE /performer/assets/videos/{id}': 'deletePerformerAssetsVideosById',
  'PUT /performer/assets/videos/{id}': 'putPerformerAssetsVideosById',
  'GET /performer/assets/videos/{id}/processing': 'getPerformerAssetsVideosByIdProcessing',
  'POST /performer/assets/videos/{id}/retry': 'postPerformerAssetsVideosByIdRetry',
  'GET /performer/assets/videos/{id}/view': 'getPerformerAssetsVideosByIdView',
  'GET /performer/payout-details': 'getPerformerPayoutDetails',
  'PUT /performer/payout-details': 'putPerformerPayoutDetails',
  'GET /performer/payouts': 'getPerformerPayouts',
  'POST /performer/payouts': 'postPerformerPayouts',
  'GET /performer/payouts/balance': 'getPerformerPayoutsBalance',
  'GET /performer/profile': 'getPerformerProfile',
  'PUT /performer/profile': 'putPerformerProfile',
  'GET /performer/promotions': 'getPerformerPromotions',
  'GET /performer/co-performers/{objectType}/{objectId}': 'getPerformerCoPerformersByObjectTypeByObjectId',
  'POST /performer/co-performers/{objectType}/{objectId}': 'postPerformerCoPerformersByObjectTypeByObjectId',
  'POST /performer/co-performers/{objectType}/{objectId}/outside': 'postPerformerCoPerformersByObjectTypeByObjectIdOutside',
  'DELETE /performer/co-performers/{id}': 'deletePerformerCoPerformersById',
  'GET /performer/co-performer-requests': 'getPerformerCoPerformerRequests',
  'POST /performer/co-performer-requests/{id}/confirm': 'postPerformerCoPerformerRequestsByIdConfirm',
  'POST /performer/co-performer-requests/{id}/decline': 'postPerformerCoPerformerRequestsByIdDecline',
  'POST /performer/promotions': 'postPerformerPromotions',
  'POST /performer/promotions/{id}/end': 'postPerformerPromotionsByIdEnd',
  'GET /performers/search': 'getPerformersSearch',
  'GET /performers/{id}': 'getPerformersById',
  'DELETE /performers/{id}/follow': 'deletePerformersByIdFollow',
  'POST /performers/{id}/follow': 'postPerformersByIdFollow',
  'GET /phone-codes/list': 'getPhoneCodesList',
  'GET /posts/search': 'getPostsSearch',
  'GET /posts/{id}': 'getPostsById',
  'POST /re-captcha/verify': 'postReCaptchaVerify',
  'DELETE /reactions': 'deleteReactions',
  'POST /reactions': 'postReactions',
  'GET /reactions/galleries': 'getReactionsGalleries',
  'GET /reactions/search': 'getReactionsSearch',
  'GET /reactions/videos': 'getReactionsVideos',
  'GET /search/total': 'getSearchTotal',
  'GET /settings/public': 'getSettingsPublic',
  'GET /site-promo/search': 'getSitePromoSearch',
  'POST /subscriptions/cancel': 'postSubscriptionsCancel',
  'POST /subscriptions/cancel/{id}': 'postSubscriptionsCancelById',
  'GET /subscriptions/current': 'getSubscriptionsCurrent',
  'GET /subscriptions/performer/search': 'getSubscriptionsPerformerSearch',
  'GET /subscriptions/performer/stats': 'getSubscriptionsPerformerStats',
  'GET /subscriptions/user/search': 'getSubscriptionsUserSearch',
  'GET /transactions/user/search': 'getTransactionsUserSearch',
  'GET /user-additional': 'getUserAdditional',
  'GET /user/assets/categories/search': 'getUserAssetsCategoriesSearch',
  'GET /user/assets/galleries/search': 'getUserAssetsGalleriesSearch',
  'GET /user/assets/galleries/{id}/view': 'getUserAssetsGalleriesByIdView',
  'GET /user/assets/gallery/{id}/photos': 'getUserAssetsGalleryByIdPhotos',
  'GET /user/assets/photos': 'getUserAssetsPhotos',
  'GET /user/assets/products/search': 'getUserAssetsProductsSearch',
  'GET /user/assets/products/{id}': 'getUserAssetsProductsById',
  'GET /user/assets/products/{id}/download-link': 'getUserAssetsProductsByIdDownloadLink',
  'GET /user/assets/videos/search': 'getUserAssetsVideosSearch',
  'GET /user/assets/videos/{id}': 'getUserAssetsVideosById',
  'POST /user/assets/videos/{id}/views': 'postUserAssetsVideosByIdViews',
  'PUT /users': 'putUsers',
  'POST /users/avatar/upload': 'postUsersAvatarUpload',
  'POST /users/cover/upload': 'postUsersCoverUpload',
  'GET /users/me': 'getUsersMe',
  'GET /users/me/header': 'getUsersMeHeader',
  'GET /users/me/data-exports': 'getUsersMeDataExports',
  'POST /users/me/data-exports': 'postUsersMeDataExports',
  'GET /users/me/data-exports/{id}': 'getUsersMeDataExportsById',
  'POST /users/me/delete': 'postUsersMeDelete',
  'GET /users/search': 'getUsersSearch',
  'GET /users/view/{id}': 'getUsersViewById',
  'POST /users/{id}/avatar/upload': 'postUsersByIdAvatarUpload',
};

const redoclyCli = path.join(path.dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin', 'cli.js');

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer: string }>;
}

/** `redocly lint --extends recommended` on the document, its problems as JSON. */
async function lint(doc: unknown): Promise<LintProblem[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
  const file = path.join(dir, 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(doc));
  try {
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [redoclyCli, 'lint', '--extends', 'recommended', '--max-problems', '100000', '--format', 'json', file],
        { cwd: dir, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
        // Exit code 1 means "found errors": the JSON on stdout says which.
        (err, out, stderr) => (out.trim().startsWith('{') ? resolve(out) : reject(new Error(`redocly lint failed: ${err?.message}\n${stderr}`))),
      );
    });
    return (JSON.parse(stdout) as { problems: LintProblem[] }).problems;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const UNSAFE = new Set(['post', 'put', 'patch', 'delete']);

describe('the OpenAPI document', () => {
  let t: TestApp;
  let doc: Document;
  const operations: Array<{ key: string; method: string; path: string; op: Operation }> = [];

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const res = await t.api('/docs/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
    for (const [p, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) operations.push({ key: `${method.toUpperCase()} ${p}`, method, path: p, op });
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  it("passes Redocly's recommended rules: no error, and no warning but the known ones", async () => {
    const problems = await lint(doc);
    const show = (p: LintProblem) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`;
    expect(problems.filter((p) => p.severity === 'error').map(show)).toEqual([]);
    expect(problems.filter((p) => !KNOWN_WARNINGS.has(p.ruleId)).map(show)).toEqual([]);
  }, 60_000);

  it('says what it is, where it is served, and how a session is sent', () => {
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String), description: expect.any(String), license: { name: expect.any(String) } });
    expect(doc.servers).toEqual([expect.objectContaining({ url: t.config.apiBase })]);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['bearerAuth', 'cookieAuth']);
    expect(doc.components.schemas.ApiError).toMatchObject({ type: 'object', required: ['message', 'code'] });
  });

  it('gives every operation a summary and a unique operationId, the same ones as before', () => {
    expect(operations.length).toBeGreaterThan(100);
    expect(operations.filter(({ op }) => !op.summary?.trim()).map(({ key }) => key), 'operations without a summary').toEqual([]);
    const ids = operations.map(({ op }) => op.operationId);
    expect(ids.filter((id) => !id || !/^[a-z][A-Za-z0-9]*$/.test(id)), 'missing or not camelCase').toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i), 'duplicates').toEqual([]);
    // Clients' generated method names: a change here is a change for them. Add a new route's line; change one on purpose.
    expect(Object.fromEntries(operations.map(({ key, op }) => [key, op.operationId]))).toEqual(OPERATION_IDS);
  });

  it('documents security as x-access declares: a session required, optional (public) or none (signed)', () => {
    const session = [{ bearerAuth: [] }, { cookieAuth: [] }];
    const wrong: string[] = [];
    for (const { key, op } of operations) {
      const access = op['x-access'];
      const expected = access === 'signed' ? [] : access === 'public' ? [{}, ...session] : access === 'session' || typeof access === 'object' ? session : 'x-access missing';
      if (JSON.stringify(op.security) !== JSON.stringify(expected)) wrong.push(`${key}: x-access ${JSON.stringify(access)}, security ${JSON.stringify(op.security)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('lists the 4xx answers each operation can give, with the one error body', () => {
    const { description: _about, ...apiErrorBody } = doc.components.schemas.ApiError as Record<string, unknown>;
    const wrong: string[] = [];
    for (const { key, method, path: p, op } of operations) {
      const has = (status: number, why: string) => {
        if (!op.responses[status]) wrong.push(`${key}: no ${status} (${why})`);
      };
      const errors = Object.entries(op.responses).filter(([status]) => Number(status) >= 400);
      if (!errors.some(([status]) => Number(status) < 500)) wrong.push(`${key}: no 4xx at all`);
      for (const [status, r] of errors) {
        if (!r.description || r.description === 'Default Response') wrong.push(`${key}: ${status} without a description`);
        if (!r.content?.['application/json']?.schema) wrong.push(`${key}: ${status} without a JSON body`);
      }
      const access = op['x-access'];
      const validates = Boolean(op.parameters?.length || op.requestBody);
      has(400, 'the NUL guard refuses a NUL anywhere in the input');
      if (validates && !op.responses[400]?.description?.includes('VALIDATION_FAILED')) wrong.push(`${key}: 400 does not say VALIDATION_FAILED`);
      if (access === 'session' || typeof access === 'object') has(401, 'needs a session');
      if (typeof access === 'object') has(403, 'only some roles');
      if (UNSAFE.has(method)) {
        has(403, 'a cookie session from another site');
        has(413, "Fastify's body limit");
        if (!ANY_BODY.has(key)) has(415, 'a body of a type no parser reads');
      }
      if (op.parameters?.some((x) => x.in === 'path')) has(404, 'a path parameter');
      if (!API_GATE_EXEMPT.has(`${method.toUpperCase()} ${p.replace(/\{(\w+)\}/g, ':$1')}`)) {
        has(451, 'the country block');
        has(503, 'maintenance mode');
      }
      // Where the error body is the shared one, it is referenced, not copied.
      const copies = errors.filter(([, r]) => JSON.stringify(r.content?.['application/json']?.schema) === JSON.stringify(apiErrorBody));
      if (copies.length) wrong.push(`${key}: ${copies.map(([s]) => s).join(', ')} repeat ApiError instead of referencing it`);
    }
    expect(wrong).toEqual([]);
    for (const key of RATE_LIMITED) expect(byKey(key).responses, `${key} is rate-limited`).toHaveProperty('429');
    for (const key of NOT_RATE_LIMITED) expect(byKey(key).responses, `${key} is not rate-limited`).not.toHaveProperty('429');
    expect(byKey('GET /country-block/check').responses).not.toHaveProperty('451');
    // The webhooks and the one-click unsubscribe read a body of any type (their plugin's own parser), so never answer 415.
    for (const key of ANY_BODY) expect(byKey(key).responses).not.toHaveProperty('415');
  });

  function byKey(key: string): Operation {
    const found = operations.find((o) => o.key === key);
    if (!found) throw new Error(`${key} is not in the document`);
    return found.op;
  }
});
