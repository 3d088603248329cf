import type { ApiErrorBody } from '../../../common/schemas/http.js';
import { getRuntimeConfig } from '../runtime.js';
import { navigate } from '../navigation.js';
import { ApiError, NETWORK_ERROR_MESSAGE, UNAUTHORIZED_MESSAGE, UNAUTHORIZED_REDIRECT, unauthorizedRedirectUrl } from './error.js';

/**
 * The browser's one HTTP transport (docs/product.md), under the clients of each area (auth.ts, catalogue.ts,
 * engagement.ts, money.ts, studio.ts, admin.ts; index.ts is what the stores load). The session token is an
 * httpOnly cookie, so requests go with `credentials: 'same-origin'` and page scripts never see or send the token.
 *
 * - 401: the session is gone; the user is sent to /login and 'Forbidden in the action!' is thrown.
 * - other non-2xx: rejects with an ApiError carrying the status and the server's `{ message, code, details? }`.
 * - 204/205: resolves to undefined.
 *
 * The request and answer types are the API's schemas' (common/schemas/*), imported as types: no zod here.
 */

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
  /** A 401 only means the visitor is a guest (a public page asking who is signed in): no trip to the login page. */
  guestOn401?: boolean;
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
  const { method = 'GET', body, query, headers, signal, guestOn401 } = opts;
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
    if (!guestOn401 && typeof window !== 'undefined' && window.location.pathname !== UNAUTHORIZED_REDIRECT) navigate(unauthorizedRedirectUrl());
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

/** The query of a list request: its filters, sort and page (undefined and null are left out). */
export type ListQuery = Record<string, string | number | boolean | null | undefined>;
