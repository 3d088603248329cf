import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mailer, SMTP_POOL_CONNECTIONS } from '../../server/mail/mailer.js';
import { MailCatcher } from '../helpers/mail-catcher.js';

const catcher = new MailCatcher();
beforeAll(() => catcher.start());
afterAll(() => catcher.stop());

const mail = (i: number) => ({ to: `fan${i}@example.com`, subject: `Hello ${i}`, text: `Hi ${i}`, html: `<p>Hi ${i}</p>`, template: 'test', links: {} });

describe('the mailer over SMTP', () => {
  it('sends many mails over a few pooled connections, every mail delivered once', async () => {
    const mailer = new Mailer({ smtpUrl: catcher.smtpUrl, from: 'site@example.com', outboxDir: '/nonexistent', logger: pino({ level: 'silent' }) });
    const before = catcher.connections;
    for (let i = 0; i < 30; i += 1) mailer.queue(mail(i));
    await mailer.flush();
    await mailer.close();
    expect(catcher.mails.map((m) => m.to[0]).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `fan${i}@example.com`).sort());
    // Unpooled, each of the 30 mails opened a connection of its own.
    expect(catcher.connections - before).toBeGreaterThan(0);
    expect(catcher.connections - before).toBeLessThanOrEqual(SMTP_POOL_CONNECTIONS);
  });
});
