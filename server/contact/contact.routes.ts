import type { ApiApp } from '../http/types.js';
import { newId, nowIso } from '../db/ids.js';
import { insertContactMessage } from './contact.repository.js';
import { contactBody, contactSentSchema } from '../../common/schemas/site.js';

export async function contactRoutes(app: ApiApp): Promise<void> {
  app.post(
    '/contact',
    {
      // Per-IP limit: a contact form is a spam target.
      config: { access: 'public', rateLimit: { max: 5, timeWindow: '10 minutes' } },
      schema: {
        tags: ['contact'],
        summary: 'Send a message to the site (captcha when enabled; 5 per address every 10 minutes)',
        body: contactBody,
        response: { 201: contactSentSchema },
      },
    },
    async (request, reply) => {
      const { captchaToken, ...body } = request.body;
      await app.ctx.captcha.require(captchaToken, request.ip);
      await insertContactMessage(app.ctx.db, { id: newId(), name: body.name, email: body.email.toLowerCase(), subject: body.subject ?? null, message: body.message, ip: request.ip, createdAt: nowIso() });
      return reply.status(201).send({ success: true as const });
    },
  );
}
