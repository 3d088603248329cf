import type { AdminMethod } from '../api/admin.js';

/**
 * The admin console's changes. The console's endpoints (src/lib/api/admin.ts) load with the first one, so no other
 * page ships them; the islands show the outcome (toasts, reloads) themselves.
 */
const adminClient = () => import('../api/admin.js').then((m) => m.adminApi);

export const admin = {
  send: async <T = unknown>(method: AdminMethod, path: string, body?: Record<string, unknown>): Promise<T> => (await adminClient()).send<T>(method, path, body),
  upload: async <T = unknown>(path: string, file: Blob): Promise<T> => (await adminClient()).upload<T>(path, file),
};
