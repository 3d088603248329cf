import type { AdminSettings } from '../../common/schemas/admin.js';
import { apiFetch, multipart, type AdminMethod } from './api.js';

/* The admin console's endpoints, apart from src/lib/api.ts so that no other page ships them. */

export const adminApi = {
  /** Any admin change: `PUT /admin/settings`, `POST /admin/coupons`, `DELETE /admin/banners/{id}`... */
  send: <T = unknown>(method: AdminMethod, path: string, body?: Record<string, unknown>) =>
    apiFetch<T>(path.startsWith('/admin/') ? path : `/admin/${path.replace(/^\/+/, '')}`, { method, body }),
  /** One image to a console upload route (`/admin/settings/images/{kind}`, `/admin/banners/{id}/image`). */
  upload: <T = unknown>(path: string, file: Blob) => apiFetch<T>(path, { method: 'POST', body: multipart(file) }),
  settings: () => apiFetch<AdminSettings>('/admin/settings'),
  updateSettings: (body: Partial<Omit<AdminSettings, 'payment'>>) => apiFetch<AdminSettings>('/admin/settings', { method: 'PUT', body: { ...body } }),
  suspendUser: (id: string, reason?: string) => apiFetch<{ _id: string; status: string; sessionsRevoked: number }>(`/admin/users/${encodeURIComponent(id)}/suspend`, { method: 'POST', body: { reason } }),
  createCoupon: (body: { name: string; code: string; valueBps: number; maxUses: number; expiresAt?: string | null; status?: 'active' | 'inactive' }) =>
    apiFetch<{ _id: string; code: string }>('/admin/coupons', { method: 'POST', body: { ...body } }),
};
