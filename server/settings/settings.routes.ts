import { z } from 'zod';
import type { ApiApp } from '../http/types.js';

const menuItem = z.object({
  title: z.string(),
  path: z.string(),
  section: z.string(),
  isNewTab: z.boolean().optional(),
  ordering: z.number().optional(),
});

const publicSettings = z
  .object({
    siteName: z.string(),
    logoUrl: z.string(),
    favicon: z.string(),
    loginPlaceholderImage: z.string(),
    menus: z.array(menuItem),
    footerContent: z.string(),
    currency: z.string(),
    currencySymbol: z.string(),
    maintenanceMode: z.boolean(),
    captchaEnabled: z.boolean(),
    captchaSiteKey: z.string(),
  })
  .partial();

export async function settingsRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/settings/public',
    {
      config: { access: 'public' },
      schema: {
        tags: ['settings'],
        summary: 'Public site settings (all, or one group)',
        querystring: z.object({ group: z.string().trim().min(1).max(64).regex(/^[a-zA-Z0-9_-]+$/).optional() }),
        response: { 200: publicSettings },
      },
    },
    async (request) => app.ctx.settings.getPublic(request.query.group),
  );
}
