import type {
  VideoItem,
  GalleryItem,
  PhotoItem,
  ProductItem,
  PostCard,
  PostDetail,
  PerformerCard,
  DownloadLink,
} from '../../common/schemas/catalogue.js';
import type { ContactRequest, CountryItem } from '../../common/schemas/site.js';
import type {
  ChangePasswordRequest,
  CurrentUser,
  LoginRequest,
  LoginResponse,
  MessageResponse,
  RegisterRequest,
  RegisterResponse,
} from '../../common/schemas/auth.js';
import type { UpdateProfileRequest } from '../../common/schemas/users.js';
import type { ApiErrorBody, ListResult } from '../../common/schemas/http.js';
import type {
  CommentItem,
  CommentSearchResult,
  CreateCommentRequest,
  DeleteCommentResponse,
  ReactedGallery,
  ReactedVideo,
  ReactionItem,
  ReactionRequest,
  ReactionResult,
} from '../../common/schemas/engagement.js';
import type { EngagementObjectType, ReactionAction } from '../../common/enums.js';
import type {
  ApplyCouponResponse,
  CartLineRequest,
  CheckoutResponse,
  OrderView,
  PurchaseProductsRequest,
  SubscribeRequest,
  SubscriptionItem,
  SubscriptionPackageItem,
  TransactionItem,
  UpdateOrderRequest,
} from '../../common/schemas/money.js';
import type { AdminSettings } from '../../common/schemas/admin.js';
import { getRuntimeConfig } from './runtime.js';
import { navigate } from './navigation.js';

/**
 * The one HTTP client of the browser (docs/product.md). The session token is an httpOnly cookie, so requests
 * go with `credentials: 'same-origin'` and page scripts never see or send the token themselves.
 *
 * - 401: the session is gone; the user is sent to /login and 'Forbidden in the action!' is thrown.
 * - other non-2xx: rejects with an ApiError carrying the status and the server's `{ message, code, details? }`.
 * - 204/205: resolves to undefined.
 *
 * Stores and islands call the typed helpers of `api`; `apiFetch` is the transport they share.
 */

export { ApiError, errorMessage, NETWORK_ERROR_MESSAGE, UNAUTHORIZED_MESSAGE, UNAUTHORIZED_REDIRECT } from './api-error.js';
import { ApiError, NETWORK_ERROR_MESSAGE, UNAUTHORIZED_MESSAGE, UNAUTHORIZED_REDIRECT, unauthorizedRedirectUrl } from './api-error.js';

/** docs/product.md: the one URL-shape check; an absolute http(s) address bypasses the API base. */
export function isAbsoluteUrl(value: string): boolean {
  if (typeof value !== 'string' || !/^https?:\/\/[^\s/?#]+/i.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** The address of an API path: `/users/me` → `${apiBase}/users/me`; absolute URLs are returned as given. */
export function apiUrl(path: string): string {
  if (isAbsoluteUrl(path)) return path;
  const base = getRuntimeConfig().apiBase.replace(/\/+$/, '');
  return `${base}/${path.replace(/^\/+/, '')}`;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ApiRequestOptions {
  method?: HttpMethod;
  /** A plain object (sent as JSON) or FormData (sent as multipart, the browser sets the boundary). */
  body?: Record<string, unknown> | unknown[] | FormData;
  query?: Record<string, string | number | boolean | null | undefined>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export function hasMessage(data: unknown): data is ApiErrorBody {
  return Boolean(data) && typeof data === 'object' && typeof (data as { message?: unknown }).message === 'string' && (data as { message: string }).message !== '';
}

/** The server's `{ message, code, details? }` as sent, or one made up from the status (a proxy's HTML page...). */
export function errorBody(data: unknown, status: number): ApiErrorBody {
  if (hasMessage(data)) return { ...data, code: typeof data.code === 'string' ? data.code : `HTTP_${status}` };
  return { message: `Request failed with status ${status}`, code: `HTTP_${status}` };
}

export const NO_BODY = new Set([204, 205]);

/**
 * ofetch and the URL/JSON helpers it brings (about 5 KiB gzipped) load with the first request, not with the page:
 * a guest who only reads a page never downloads them. A failed load is a network error like any other.
 */
let ofetchModule: Promise<typeof import('ofetch')> | undefined;
const loadOfetch = () => (ofetchModule ??= import('ofetch'));
type RawResponse = Awaited<ReturnType<Awaited<ReturnType<typeof loadOfetch>>['ofetch']['raw']>>;

export async function apiFetch<T>(path: string, opts: ApiRequestOptions = {}): Promise<T> {
  const { method = 'GET', body, query, headers, signal } = opts;
  const finalHeaders: Record<string, string> = { accept: 'application/json', ...headers };
  if (body !== undefined && !(body instanceof FormData)) finalHeaders['content-type'] = 'application/json';
  const cleanQuery = query ? Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== null)) : undefined;

  let response: RawResponse;
  try {
    const { ofetch } = await loadOfetch();
    response = await ofetch.raw(apiUrl(path), {
      method,
      body: body as BodyInit | Record<string, unknown> | undefined,
      query: cleanQuery,
      headers: finalHeaders,
      signal,
      credentials: 'same-origin',
      retry: 0,
      ignoreResponseError: true,
    });
  } catch (err) {
    if ((err as { name?: string })?.name === 'AbortError' || signal?.aborted) throw err;
    ofetchModule = undefined; // a failed chunk load is retried by the next request
    throw new ApiError(0, { message: NETWORK_ERROR_MESSAGE, code: 'NETWORK_ERROR' }, NETWORK_ERROR_MESSAGE, false);
  }

  const { status } = response;
  if (status === 401) {
    if (typeof window !== 'undefined' && window.location.pathname !== UNAUTHORIZED_REDIRECT) navigate(unauthorizedRedirectUrl());
    throw new ApiError(401, errorBody(response._data, 401), UNAUTHORIZED_MESSAGE, hasMessage(response._data));
  }
  if (status < 200 || status >= 300) {
    const body = errorBody(response._data, status);
    throw new ApiError(status, body, body.message, hasMessage(response._data));
  }
  if (NO_BODY.has(status)) return undefined as T;
  return response._data as T;
}

export function multipart(file: Blob, field = 'file'): FormData {
  const form = new FormData();
  form.append(field, file);
  return form;
}

/** One typed helper per endpoint the islands use. */
export const api = {
  login: (body: LoginRequest) => apiFetch<LoginResponse>('/auth/login', { method: 'POST', body: { ...body } }),
  logout: () => apiFetch<void>('/auth/logout', { method: 'POST' }),
  register: (body: RegisterRequest) => apiFetch<RegisterResponse>('/auth/users/register', { method: 'POST', body: { ...body } }),
  verifyEmail: (token: string) => apiFetch<MessageResponse>('/auth/email-verification', { method: 'POST', body: { token } }),
  resendVerification: (email: string) => apiFetch<MessageResponse>('/auth/email-verification/resend', { method: 'POST', body: { email } }),
  forgotPassword: (email: string) => apiFetch<MessageResponse>('/auth/users/forgot', { method: 'POST', body: { email } }),
  resetPassword: (token: string, password: string) =>
    apiFetch<MessageResponse>('/auth/users/reset-password', { method: 'POST', body: { token, password } }),
  changePassword: (body: ChangePasswordRequest) => apiFetch<MessageResponse>('/auth/users/me/password', { method: 'PUT', body: { ...body } }),
  me: () => apiFetch<CurrentUser>('/users/me'),
  updateProfile: (body: UpdateProfileRequest) => apiFetch<CurrentUser>('/users', { method: 'PUT', body: { ...body } }),
  uploadAvatar: (file: Blob) => apiFetch<CurrentUser>('/users/avatar/upload', { method: 'POST', body: multipart(file) }),
  uploadCover: (file: Blob) => apiFetch<CurrentUser>('/users/cover/upload', { method: 'POST', body: multipart(file) }),
  /** Answers `{ message }`; the form has its own thank-you text when the message is missing. */
  contact: (body: ContactRequest) => apiFetch<Partial<MessageResponse>>('/contact', { method: 'POST', body: { ...body } }),
  countries: () => apiFetch<CountryItem[]>('/countries/list'),
  // Engagement (issue #6): comments and reactions.
  searchComments: (q: { objectType: EngagementObjectType; objectId: string; limit?: number; offset?: number; cursor?: string | null }) =>
    apiFetch<CommentSearchResult>('/comments/search', { query: { ...q } }),
  createComment: (body: CreateCommentRequest) => apiFetch<CommentItem & { commentCount: number }>('/comments', { method: 'POST', body: { ...body } }),
  /** `PUT /comments/{id}` as multipart: new text and/or one image (`removeImage` drops the current one). */
  editComment: (id: string, changes: { content?: string; image?: Blob; removeImage?: boolean }) => {
    const form = new FormData();
    if (changes.content !== undefined) form.append('content', changes.content);
    if (changes.removeImage) form.append('removeImage', 'true');
    if (changes.image) form.append('image', changes.image);
    return apiFetch<CommentItem>(`/comments/${encodeURIComponent(id)}`, { method: 'PUT', body: form });
  },
  deleteComment: (id: string) => apiFetch<DeleteCommentResponse>(`/comments/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  react: (body: ReactionRequest) => apiFetch<ReactionResult>('/reactions', { method: 'POST', body: { ...body } }),
  unreact: (body: ReactionRequest) => apiFetch<ReactionResult>('/reactions', { method: 'DELETE', body: { ...body } }),
  searchReactions: (q: { objectType?: EngagementObjectType; action?: ReactionAction; objectIds?: string[]; limit?: number; offset?: number }) =>
    apiFetch<ListResult<ReactionItem>>('/reactions/search', { query: { ...q, objectIds: q.objectIds?.join(',') } }),
  reactedVideos: (action: 'favourite' | 'watch_later', page: { limit?: number; offset?: number } = {}) =>
    apiFetch<ListResult<ReactedVideo>>('/reactions/videos', { query: { action, ...page } }),
  reactedGalleries: (action: 'favourite' | 'watch_later', page: { limit?: number; offset?: number } = {}) =>
    apiFetch<ListResult<ReactedGallery>>('/reactions/galleries', { query: { action, ...page } }),
  // Money (issue #5): checkouts answer the provider's page to go to (`redirectUrl`).
  subscriptionPackages: () => apiFetch<ListResult<SubscriptionPackageItem>>('/package/subscription/search'),
  subscribe: (body: SubscribeRequest) => apiFetch<CheckoutResponse>('/payment/subscribe', { method: 'POST', body: { ...body } }),
  purchaseVideo: (id: string, body: { couponCode?: string } = {}) =>
    apiFetch<CheckoutResponse>(`/payment/purchase-video/${encodeURIComponent(id)}`, { method: 'POST', body: { ...body } }),
  purchasePost: (id: string, body: { couponCode?: string } = {}) =>
    apiFetch<CheckoutResponse>(`/payment/purchase-post/${encodeURIComponent(id)}`, { method: 'POST', body: { ...body } }),
  purchaseGallery: (id: string, body: { couponCode?: string } = {}) =>
    apiFetch<CheckoutResponse>(`/payment/purchase-gallery/${encodeURIComponent(id)}`, { method: 'POST', body: { ...body } }),
  purchaseProducts: (body: PurchaseProductsRequest) => apiFetch<CheckoutResponse>('/payment/purchase-products', { method: 'POST', body: { ...body } }),
  applyCoupon: (code: string, body: { items?: CartLineRequest[]; amount?: number } = {}) =>
    apiFetch<ApplyCouponResponse>(`/coupons/${encodeURIComponent(code)}/apply-coupon`, { method: 'POST', body: { ...body } }),
  product: (id: string) => apiFetch<ProductItem>(`/user/assets/products/${encodeURIComponent(id)}`),
  paymentStatus: (id: string) => apiFetch<TransactionItem>(`/payment/status/${encodeURIComponent(id)}`),
  sandboxComplete: (chargeId: string, outcome: 'approve' | 'decline' | 'cancel') =>
    apiFetch<{ status: string; delivered: boolean; redirectUrl: string }>(`/payment/sandbox/${encodeURIComponent(chargeId)}/complete`, { method: 'POST', body: { outcome } }),
  cancelSubscription: (id: string) => apiFetch<SubscriptionItem>(`/subscriptions/cancel/${encodeURIComponent(id)}`, { method: 'POST', body: {} }),
  updateOrder: (id: string, body: UpdateOrderRequest) => apiFetch<OrderView>(`/orders/${encodeURIComponent(id)}/update`, { method: 'PUT', body: { ...body } }),
};


// ---------------------------------------------------------------------------------------------------------------
// Catalogue (issue #4): public lists and details, and the performer studio.

export type ListQuery = Record<string, string | number | boolean | null | undefined>;

/** The listings a load-more island can page through, by kind. */
export const catalogue = {
  videos: (q: ListQuery = {}) => apiFetch<ListResult<VideoItem>>('/user/assets/videos/search', { query: q }),
  video: (id: string) => apiFetch<VideoItem>(`/user/assets/videos/${encodeURIComponent(id)}`),
  /** A play of the full video, counted once per viewer and hour (server/videos/views.service.ts). */
  videoPlayed: (id: string) => apiFetch<{ counted: boolean; views: number }>(`/user/assets/videos/${encodeURIComponent(id)}/views`, { method: 'POST' }),
  galleries: (q: ListQuery = {}) => apiFetch<ListResult<GalleryItem>>('/user/assets/galleries/search', { query: q }),
  photos: (q: ListQuery = {}) => apiFetch<ListResult<PhotoItem>>('/user/assets/photos', { query: q }),
  galleryPhotos: (id: string, q: ListQuery = {}) => apiFetch<ListResult<PhotoItem>>(`/user/assets/gallery/${encodeURIComponent(id)}/photos`, { query: q }),
  products: (q: ListQuery = {}) => apiFetch<ListResult<ProductItem>>('/user/assets/products/search', { query: q }),
  productDownload: (id: string) => apiFetch<DownloadLink>(`/user/assets/products/${encodeURIComponent(id)}/download-link`),
  posts: (q: ListQuery = {}) => apiFetch<ListResult<PostCard>>('/posts/search', { query: q }),
  post: (id: string) => apiFetch<PostDetail>(`/posts/${encodeURIComponent(id)}`),
  performers: (q: ListQuery = {}) => apiFetch<ListResult<PerformerCard>>('/performers/search', { query: q }),
  searchTotal: (q: string) => apiFetch<SearchTotals>('/search/total', { query: { q } }),
};

export interface SearchTotals {
  total: number;
  performers: number;
  videos: number;
  galleries: number;
  products: number;
  posts: number;
}


export interface UploadOptions {
  method?: 'POST' | 'PUT';
  /** Called with the fraction sent so far (0..1) while the body uploads. */
  onProgress?: (fraction: number, loaded: number, total: number) => void;
  signal?: AbortSignal;
}


// ---------------------------------------------------------------------------------------------------------------
// Admin console (issue #7): the console's islands call /admin/* through these.

export type AdminMethod = 'POST' | 'PUT' | 'DELETE';

