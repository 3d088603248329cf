import type { ProductItem } from '../../common/schemas/catalogue.js';
import type { ListResult } from '../../common/schemas/http.js';
import type {
  GalleryChanges,
  PhotoChanges,
  PostChanges,
  ProcessingState,
  ProductChanges,
  StudioGallery,
  StudioPhoto,
  StudioPost,
  StudioProduct,
  StudioProfile,
  StudioVideo,
  VideoChanges,
} from '../../common/schemas/studio.js';
import {
  ApiError,
  apiFetch,
  apiUrl,
  errorBody,
  hasMessage,
  NETWORK_ERROR_MESSAGE,
  NO_BODY,
  UNAUTHORIZED_MESSAGE,
  UNAUTHORIZED_REDIRECT,
  type ListQuery,
  type UploadOptions,
} from './api.js';
import { unauthorizedRedirectUrl } from './api-error.js';
import { navigate } from './navigation.js';

/*
 * The performer studio's endpoints and the upload with progress it uses, apart from src/lib/api.ts so that pages
 * without the studio (every guest page) do not ship them. Same client: requests go through `apiFetch`.
 */

export const studioApi = {
  profile: () => apiFetch<StudioProfile>('/performer/profile'),
  updateProfile: (body: Partial<Pick<StudioProfile, 'bio' | 'monthlyPrice' | 'yearlyPrice' | 'blockedCountries'>>) =>
    apiFetch<StudioProfile>('/performer/profile', { method: 'PUT', body: { ...body } }),
  videos: (q: ListQuery = {}) => apiFetch<ListResult<StudioVideo>>('/performer/assets/videos/search', { query: q }),
  /** `PUT /performer/assets/videos/{id}`: only the fields sent change (price in minor units, `scheduledAt` null clears). */
  updateVideo: (id: string, body: VideoChanges) => apiFetch<StudioVideo>(`/performer/assets/videos/${encodeURIComponent(id)}`, { method: 'PUT', body: { ...body } }),
  deleteVideo: (id: string) => apiFetch<void>(`/performer/assets/videos/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  retryVideo: (id: string) => apiFetch<StudioVideo>(`/performer/assets/videos/${encodeURIComponent(id)}/retry`, { method: 'POST' }),
  videoProcessing: (id: string) => apiFetch<ProcessingState>(`/performer/assets/videos/${encodeURIComponent(id)}/processing`),
  galleries: (q: ListQuery = {}) => apiFetch<ListResult<StudioGallery>>('/performer/assets/galleries/search', { query: q }),
  createGallery: (body: Record<string, unknown>) => apiFetch<StudioGallery>('/performer/assets/galleries', { method: 'POST', body }),
  updateGallery: (id: string, body: GalleryChanges) => apiFetch<StudioGallery>(`/performer/assets/galleries/${encodeURIComponent(id)}`, { method: 'PUT', body: { ...body } }),
  updatePhoto: (id: string, body: PhotoChanges) =>
    apiFetch<StudioPhoto>(`/performer/assets/photos/${encodeURIComponent(id)}`, { method: 'PUT', body: { ...body } }),
  deleteGallery: (id: string) => apiFetch<void>(`/performer/assets/galleries/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  products: (q: ListQuery = {}) => apiFetch<ListResult<ProductItem>>('/performer/assets/products/search', { query: q }),
  /** Fields only, as JSON (a new picture or file goes through `upload` with method PUT). */
  updateProduct: (id: string, body: ProductChanges) => apiFetch<StudioProduct>(`/performer/assets/products/${encodeURIComponent(id)}`, { method: 'PUT', body: { ...body } }),
  deleteProduct: (id: string) => apiFetch<void>(`/performer/assets/products/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  posts: (q: ListQuery = {}) => apiFetch<ListResult<StudioPost>>('/performer/assets/posts/search', { query: q }),
  createPost: (body: Record<string, unknown>) => apiFetch<StudioPost>('/performer/assets/posts', { method: 'POST', body }),
  updatePost: (id: string, body: PostChanges) => apiFetch<StudioPost>(`/performer/assets/posts/${encodeURIComponent(id)}`, { method: 'PUT', body: { ...body } }),
  deletePost: (id: string) => apiFetch<void>(`/performer/assets/posts/${encodeURIComponent(id)}`, { method: 'DELETE' }),
};

/**
 * Multipart upload with progress (fetch reports none, so this uses XMLHttpRequest). Same contract as
 * `apiFetch`: 401 sends the user to /login, other non-2xx reject with an ApiError carrying the server's body.
 */
export function upload<T>(path: string, form: FormData, opts: UploadOptions = {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(opts.method ?? 'POST', apiUrl(path));
    xhr.withCredentials = true;
    xhr.setRequestHeader('accept', 'application/json');
    xhr.responseType = 'text';
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && opts.onProgress) opts.onProgress(e.total ? e.loaded / e.total : 0, e.loaded, e.total);
    };
    xhr.onload = () => {
      let data: unknown = undefined;
      try {
        data = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        data = undefined;
      }
      const status = xhr.status;
      if (status === 401) {
        if (typeof window !== 'undefined' && window.location.pathname !== UNAUTHORIZED_REDIRECT) navigate(unauthorizedRedirectUrl());
        reject(new ApiError(401, errorBody(data, 401), UNAUTHORIZED_MESSAGE, hasMessage(data)));
        return;
      }
      if (status < 200 || status >= 300) {
        const body = errorBody(data, status);
        reject(new ApiError(status, body, body.message, hasMessage(data)));
        return;
      }
      opts.onProgress?.(1, 1, 1);
      resolve((NO_BODY.has(status) ? undefined : data) as T);
    };
    xhr.onerror = () => reject(new ApiError(0, { message: NETWORK_ERROR_MESSAGE, code: 'NETWORK_ERROR' }, NETWORK_ERROR_MESSAGE, false));
    xhr.onabort = () => reject(new DOMException('Upload aborted', 'AbortError'));
    if (opts.signal) {
      if (opts.signal.aborted) return xhr.abort();
      opts.signal.addEventListener('abort', () => xhr.abort(), { once: true });
    }
    xhr.send(form);
  });
}
