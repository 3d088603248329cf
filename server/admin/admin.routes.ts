import multipart from '@fastify/multipart';
import type { ApiApp } from '../http/types.js';
import { declareGroupAccess } from '../http/access.js';
import { imageUploadLimits } from '../http/single-image.js';
import { adminSettingsRoutes } from './settings.routes.js';
import { adminSiteRoutes } from './site.routes.js';
import { adminModerationRoutes } from './moderation.routes.js';
import { adminMoneyRoutes } from './money.routes.js';
import { adminPayoutRoutes } from './payouts.routes.js';
import { adminOverviewRoutes } from './overview.routes.js';
import { listenForSettingsChanges } from './settings-sync.js';
import { adminReportsRoutes } from '../reports/reports.admin.routes.js';
import { adminTakedownsRoutes } from '../takedowns/takedowns.admin.routes.js';
import { adminWatermarkRoutes } from '../media/watermark/watermark.routes.js';
import { adminVerificationRoutes } from '../verification/verification.admin.routes.js';
import { adminConsentRoutes } from '../consent/consent.admin.routes.js';

/** Every admin route, per app: the role-enforcement tests walk this list so no route is missed. */
export const adminRouteTable = new WeakMap<object, Array<{ method: string; url: string }>>();

/**
 * The admin console's API under /admin/*. The whole group declares one access, admins only (server/http/access.ts
 * enforces it: 401 for guests, 403 for every other role, before the body is read or validated). Each change runs in
 * one transaction with its audit_log entry (server/admin/admin.http.ts adminTx).
 */
export async function adminRoutes(app: ApiApp): Promise<void> {
  const table: Array<{ method: string; url: string }> = [];
  adminRouteTable.set(app.ctx, table);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') table.push({ method, url: route.url });
  });
  declareGroupAccess(app, { roles: ['admin'] });
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });
  await app.register(multipart, { limits: imageUploadLimits, throwFileSizeLimit: true });
  for (const routes of [adminSettingsRoutes, adminSiteRoutes, adminModerationRoutes, adminMoneyRoutes, adminPayoutRoutes, adminOverviewRoutes, adminReportsRoutes, adminConsentRoutes, adminWatermarkRoutes, adminVerificationRoutes, adminTakedownsRoutes]) await app.register(routes);

  const stop = listenForSettingsChanges(app.ctx);
  if (stop) app.addHook('onClose', async () => stop());
}
