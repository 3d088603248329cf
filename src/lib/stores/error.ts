import { atom } from 'nanostores';
import { navigate } from '../navigation.js';
import { registerReset } from './reset.js';

/**
 * docs/product.md, Browser state: an error page is reached with a stored error. The error is kept
 * in the store and in sessionStorage, because the navigation loads a new page; the error page takes it.
 */
export interface PageError {
  message: string;
  status?: number;
  code?: string;
}

export const PAGE_ERROR_STORAGE_KEY = 'page-error';

export const pageError = atom<PageError | null>(null);

function toPageError(error: unknown): PageError {
  if (error && typeof error === 'object') {
    const e = error as { message?: unknown; status?: unknown; code?: unknown };
    return {
      message: typeof e.message === 'string' && e.message ? e.message : 'Something went wrong',
      ...(typeof e.status === 'number' ? { status: e.status } : {}),
      ...(typeof e.code === 'string' ? { code: e.code } : {}),
    };
  }
  return { message: typeof error === 'string' && error ? error : 'Something went wrong' };
}

export function redirectToError(error: unknown, url: string): void {
  const stored = toPageError(error);
  pageError.set(stored);
  try {
    sessionStorage.setItem(PAGE_ERROR_STORAGE_KEY, JSON.stringify(stored));
  } catch {
    // no storage: the error page shows its generic text
  }
  navigate(url);
}

/** The error stored by `redirectToError` (on this page or the previous one), removed from storage. */
export function takePageError(): PageError | null {
  let stored: PageError | null = pageError.get();
  try {
    const raw = sessionStorage.getItem(PAGE_ERROR_STORAGE_KEY);
    sessionStorage.removeItem(PAGE_ERROR_STORAGE_KEY);
    if (!stored && raw) stored = JSON.parse(raw) as PageError;
  } catch {
    // ignore unreadable storage
  }
  pageError.set(null);
  return stored;
}

registerReset('error', () => {
  pageError.set(null);
  try {
    sessionStorage.removeItem(PAGE_ERROR_STORAGE_KEY);
  } catch {
    // ignore
  }
});
