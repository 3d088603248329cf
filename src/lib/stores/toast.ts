import { atom } from 'nanostores';
import { registerReset } from './reset.js';

/**
 * Toast queue rendered by the Toaster island. A toast belongs to the page that raised it: the queue lives in this
 * page's memory only, so nothing shown on one page shows again on the next. (It used to be mirrored in
 * sessionStorage and reloaded by every page for 5 s, so a "saved" toast followed the visitor to the page they
 * clicked to next.)
 *
 * A message meant for the NEXT page, raised right before a full-page navigation (e.g. 'Log out!' then /auth/login),
 * is handed over on purpose with `toastOnNextPage`: it waits in sessionStorage, and the next page takes it out when
 * this store loads, so it shows there once (a reload does not show it again).
 */
export type ToastType = 'success' | 'error' | 'info';

export interface Toast {
  id: string;
  type: ToastType;
  message: string;
  createdAt: number;
}

/** sessionStorage key of the messages handed to the next page. */
export const TOAST_STORAGE_KEY = 'toasts:next-page';
/** How long a toast stays on screen. */
export const TOAST_TIMEOUT_MS = 4000;
/** A handed-over message older than this is dropped: the navigation it was meant for did not happen then. */
const HANDOVER_MAX_AGE_MS = 15_000;
const MAX_TOASTS = 5;

function storage(): Storage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null;
  }
}

function readHandedOver(s: Storage): Toast[] {
  const raw = s.getItem(TOAST_STORAGE_KEY);
  if (!raw) return [];
  try {
    const parsed = JSON.parse(raw) as Toast[];
    const now = Date.now();
    return Array.isArray(parsed)
      ? parsed.filter((t) => t && typeof t.message === 'string' && typeof t.id === 'string' && now - t.createdAt < HANDOVER_MAX_AGE_MS).slice(-MAX_TOASTS)
      : [];
  } catch {
    return [];
  }
}

/** The messages the previous page handed over, taken out of storage so they show on this page only. */
function takeHandedOver(): Toast[] {
  const s = storage();
  if (!s) return [];
  const list = readHandedOver(s);
  try {
    s.removeItem(TOAST_STORAGE_KEY);
  } catch {
    // storage disabled: nothing was handed over either
  }
  return list;
}

export const toasts = atom<Toast[]>(takeHandedOver());

let counter = 0;

function make(type: ToastType, message: string): Toast {
  counter += 1;
  return { id: `${Date.now().toString(36)}-${counter}`, type, message, createdAt: Date.now() };
}

/** Shows a toast on this page. */
export function pushToast(type: ToastType, message: string): Toast {
  const item = make(type, message);
  toasts.set([...toasts.get(), item].slice(-MAX_TOASTS));
  return item;
}

/**
 * Shows a toast on the page the browser loads next (call it right before a full-page navigation). Without
 * sessionStorage it shows here instead, so the message is not lost.
 */
export function toastOnNextPage(type: ToastType, message: string): Toast {
  const item = make(type, message);
  const s = storage();
  try {
    if (!s) throw new Error('no storage');
    s.setItem(TOAST_STORAGE_KEY, JSON.stringify([...readHandedOver(s), item].slice(-MAX_TOASTS)));
  } catch {
    toasts.set([...toasts.get(), item].slice(-MAX_TOASTS));
  }
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
