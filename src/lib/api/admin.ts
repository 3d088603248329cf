import type { AccountState, AdminCoupon, AdminSettings, CouponRequest, SettingsChanges } from '../../../common/schemas/admin.js';
import { apiFetch, multipart } from './transport.js';

/* The admin console's endpoints, apart from the clients every page's stores load (index.ts) so that no other page ships them. */

export type AdminMethod = 'POST' | 'PUT' | 'DELETE';

export const adminApi = {
  /** Any admin change: `PUT /admin/settings`, `POST /admin/coupons`, `DELETE /admin/banners/{id}`... */
  send: <T = unknown>(method: AdminMethod, path: string, body?: Record<string, unknown>) =>
    apiFetch<T>(path.startsWith('/admin/') ? path : `/admin/${path.replace(/^\/+/, '')}`, { method, body }),
  /** One image to a console upload route (`/admin/settings/images/{kind}`, `/admin/banners/{id}/image`). */
  upload: <T = unknown>(path: string, file: Blob) => apiFetch<T>(path, { method: 'POST', body: multipart(file) }),
  settings: () => apiFetch<AdminSettings>('/admin/settings'),
  updateSettings: (body: SettingsChanges) => apiFetch<AdminSettings>('/admin/settings', { method: 'PUT', body: { ...body } }),
  suspendUser: (id: string, reason?: string) => apiFetch<AccountState>(`/admin/users/${encodeURIComponent(id)}/suspend`, { method: 'POST', body: { reason } }),
  createCoupon: (body: CouponRequest) => apiFetch<AdminCoupon>('/admin/coupons', { method: 'POST', body: { ...body } }),
};
