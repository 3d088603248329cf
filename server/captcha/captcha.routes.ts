import { z } from 'zod';
import type { ApiApp } from '../http/types.js';

export async function captchaRoutes(app: ApiApp): Promise<void> {
  app.post(
    '/re-captcha/verify',
    {
      config: { access: 'public' },
      schema: {
        tags: ['captcha'],
        summary: 'Check a reCAPTCHA token with the provider (`enabled: false` when the site has no captcha)',
        body: z.object({ token: z.string().min(1).max(4000) }),
        response: { 200: z.object({ success: z.boolean(), enabled: z.boolean(), message: z.string().optional() }) },
      },
    },
    async (request) => {
      const result = await app.ctx.captcha.verify(request.body.token, request.ip);
      return result.enabled ? result : { ...result, message: 'Captcha is disabled on this site' };
    },
  );
}
