import type { ApiApp } from '../http/types.js';
import { captchaVerifyBody, captchaVerifySchema } from '../../common/schemas/site.js';

export async function captchaRoutes(app: ApiApp): Promise<void> {
  app.post(
    '/re-captcha/verify',
    {
      config: { access: 'public' },
      schema: {
        tags: ['captcha'],
        summary: 'Check a reCAPTCHA token with the provider (`enabled: false` when the site has no captcha)',
        body: captchaVerifyBody,
        response: { 200: captchaVerifySchema },
      },
    },
    async (request) => {
      const result = await app.ctx.captcha.verify(request.body.token, request.ip);
      return result.enabled ? result : { ...result, message: 'Captcha is disabled on this site' };
    },
  );
}
