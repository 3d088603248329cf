import { atom } from 'nanostores';
import { registerReset } from './reset.js';

/**
 * Toast queue rendered by the Toaster island. The queue is mirrored in sessionStorage so that a toast
 * raised right before a full-page navigation (e.g. 'Log out!' then /auth/login) shows on the next page.
 */
export type ToastType = 'success' | 'error' | 'info';

export interface Toast {
  id: string;
  type: ToastType;
  message: string;
  createdAt: number;
}

export const TOAST_STORAGE_KEY = 'toasts';
/** How long a toast stays on screen. */
export const TOAST_TIMEOUT_MS = 4000;
/** Toasts older than this are not carried over to the next page. */
const CARRY_OVER_MS = 5_000;
const MAX_TOASTS = 5;

function storage(): Storage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null;
  }
}

function load(): Toast[] {
  const raw = storage()?.getItem(TOAST_STORAGE_KEY);
  if (!raw) return [];
  try {
    const parsed = JSON.parse(raw) as Toast[];
    const now = Date.now();
    return Array.isArray(parsed)
      ? parsed.filter((t) => t && typeof t.message === 'string' && typeof t.id === 'string' && now - t.createdAt < CARRY_OVER_MS).slice(-MAX_TOASTS)
      : [];
  } catch {
    return [];
  }
}

function save(list: readonly Toast[]): void {
  const s = storage();
  if (!s) return;
  try {
    if (list.length === 0) s.removeItem(TOAST_STORAGE_KEY);
    else s.setItem(TOAST_STORAGE_KEY, JSON.stringify(list));
  } catch {
    // storage full or disabled: toasts still work within the page
  }
}

export const toasts = atom<Toast[]>(load());
toasts.listen(save);

let counter = 0;

export function pushToast(type: ToastType, message: string): Toast {
  counter += 1;
  const item: Toast = { id: `${Date.now().toString(36)}-${counter}`, type, message, createdAt: Date.now() };
  toasts.set([...toasts.get(), item].slice(-MAX_TOASTS));
  return item;
}

export function dismissToast(id: string): void {
  toasts.set(toasts.get().filter((t) => t.id !== id));
}

export function clearToasts(): void {
  toasts.set([]);
}

export const toast = {
  success: (message: string) => pushToast('success', message),
  error: (message: string) => pushToast('error', message),
  info: (message: string) => pushToast('info', message),
};

registerReset('toast', clearToasts);
