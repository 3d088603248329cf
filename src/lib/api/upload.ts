import { navigate } from '../navigation.js';
import { ApiError, NETWORK_ERROR_MESSAGE, UNAUTHORIZED_MESSAGE, UNAUTHORIZED_REDIRECT, unauthorizedRedirectUrl } from './error.js';
import { apiUrl, errorBody, hasMessage, NO_BODY } from './transport.js';

export interface UploadOptions {
  method?: 'POST' | 'PUT';
  /** Called with the fraction sent so far (0..1) while the body uploads. */
  onProgress?: (fraction: number, loaded: number, total: number) => void;
  signal?: AbortSignal;
}

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
