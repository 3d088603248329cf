import type { ApiApp } from '../http/types.js';
import { captchaVerifyBody, captchaVerifySchema } from '../../common/schemas/site.js';
import { route } from '../http/route.js';

export async function captchaRoutes(app: ApiApp): Promise<void> {
  app.post(
    '/re-captcha/verify',
    route({
      access: 'public',
      tags: ['captcha'],
      summary: 'Check a reCAPTCHA token with the provider (`enabled: false` when the site has no captcha)',
      body: captchaVerifyBody,
      response: { 200: captchaVerifySchema },
    }),
    async (request) => {
      const result = await app.ctx.captcha.verify(request.body.token, request.ip);
      return result.enabled ? result : { ...result, message: 'Captcha is disabled on this site' };
    },
  );
}
