import type { ApiErrorBody, ValidationIssue } from '../../../common/schemas/http.js';

/*
 * The client's error type and messages, apart from the clients (src/lib/api/*.ts): stores and islands that only
 * recognise or word an error import this small module, and the client loads with the first request.
 */

export const UNAUTHORIZED_MESSAGE = 'Forbidden in the action!';
export const UNAUTHORIZED_REDIRECT = '/login';

/**
 * Where a 401 sends the browser: /login, saying why (`reason=session`: the page then says the session has ended; a
 * visitor who opens /login themselves is greeted normally) and where to come back to after logging in again.
 */
export function unauthorizedRedirectUrl(): string {
  const here = typeof window === 'undefined' ? '' : window.location.pathname + window.location.search;
  const next = here && here !== '/' ? `&next=${encodeURIComponent(here)}` : '';
  return `${UNAUTHORIZED_REDIRECT}?reason=session${next}`;
}
export const NETWORK_ERROR_MESSAGE = 'Network error, please check your connection and try again';

export class ApiError extends Error {
  constructor(
    /** HTTP status; 0 when no response arrived (network failure). */
    readonly status: number,
    /** The server's JSON error body (or a synthesized one of the same shape). */
    readonly body: ApiErrorBody,
    message: string = body.message,
    /** False when the reply had no JSON `message` and `body` was made up from the status. */
    readonly fromServer = true,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  get code(): string {
    return this.body.code;
  }

  /**
   * Field messages of a `400 VALIDATION_FAILED` answer keyed by field name (`body.email` → `email`),
   * plus the `{ field }` detail a 409 carries (e.g. a taken username). First message per field wins.
   */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    const details = this.body.details;
    if (Array.isArray(details)) {
      for (const d of details as Partial<ValidationIssue>[]) {
        if (!d || typeof d.path !== 'string' || typeof d.message !== 'string') continue;
        const field = d.path.replace(/^(body|querystring|params)\.?/, '').replace(/^\.+/, '').split('.')[0] ?? '';
        if (field && !(field in out)) out[field] = d.message;
      }
    } else if (details && typeof details === 'object' && typeof (details as { field?: unknown }).field === 'string') {
      out[(details as { field: string }).field] = this.body.message;
    }
    return out;
  }
}

/**
 * The message to show for a failed call: the server's message (or the 401 / network-failure text),
 * else `fallback` (a reply without a JSON message, an unexpected exception).
 */
export function errorMessage(err: unknown, fallback: string): string {
  if (err instanceof ApiError && err.message && (err.fromServer || err.status === 0 || err.status === 401)) return err.message;
  return fallback;
}
