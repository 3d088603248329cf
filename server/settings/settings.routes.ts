import type { ApiApp } from '../http/types.js';
import { publicSettingsQuery, publicSettingsSchema } from '../../common/schemas/site.js';
import { route } from '../http/route.js';

export async function settingsRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/settings/public',
    route({ access: 'public', tags: ['settings'], summary: 'Public site settings (all, or one group)', querystring: publicSettingsQuery, response: { 200: publicSettingsSchema.partial() } }),
    async (request) => app.ctx.settings.getPublic(request.query.group),
  );
}
