import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import { newId, nowIso } from '../db/ids.js';

export const contactBody = z.object({
  name: z.string().trim().min(1, 'Name is required').max(100),
  email: z.email('A valid email is required').max(254),
  subject: z.string().trim().max(200).optional(),
  message: z.string().trim().min(10, 'Message must be at least 10 characters').max(5000),
  captchaToken: z.string().max(4000).optional(),
});

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
        response: { 201: z.object({ success: z.literal(true) }) },
      },
    },
    async (request, reply) => {
      const { captchaToken, ...body } = request.body;
      await app.ctx.captcha.require(captchaToken, request.ip);
      await app.ctx.db
        .insertInto('contacts')
        .values({ id: newId(), name: body.name, email: body.email.toLowerCase(), subject: body.subject ?? null, message: body.message, ip: request.ip, createdAt: nowIso() })
        .execute();
      return reply.status(201).send({ success: true as const });
    },
  );
}
