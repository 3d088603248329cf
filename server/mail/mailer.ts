import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { AppConfig } from '../config.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Short name of the template (file names, logs). */
  template: string;
  /** The links the mail carries, by name; written beside outbox mails so a local user can click them. */
  links: Record<string, string>;
  /** Extra headers (a notification mail's `List-Unsubscribe` and `List-Unsubscribe-Post`). */
  headers?: Record<string, string>;
}

/** Open SMTP connections at most: mails are sent a few at a time, whatever the number queued. */
export const SMTP_POOL_CONNECTIONS = 3;

export interface MailerOptions {
  /** `smtp://user:pass@host:port` or `smtps://...`; without it mails go to `outboxDir`. */
  smtpUrl: string | undefined;
  from: string;
  outboxDir: string;
  logger: Logger;
}

/**
 * Sends mail over SMTP when SMTP_URL is set; otherwise writes each mail to the outbox folder as an `.eml`
 * (the exact bytes SMTP would carry) plus a `.json` with to/subject/links, and logs the links.
 *
 * Account endpoints call `queue()`: the HTTP answer does not wait for the mail server, so an answer's
 * timing says nothing about whether a mail was sent (see server/auth/README.md). `close()` waits for
 * queued mails, so a clean shutdown does not lose them.
 */
export class Mailer {
  private readonly transport: ReturnType<typeof nodemailer.createTransport>;
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly opts: MailerOptions) {
    // Pooled: a mass message's mails or a renewal run's receipts reuse a few open connections instead of a TCP (and
    // TLS) handshake and login per mail (measured against a local SMTP sink, one mail after another: 108–118 ms a mail unpooled, 5–9 ms pooled). A query
    // parameter of SMTP_URL (`?pool=false`, `&maxConnections=…`) wins over these.
    this.transport = opts.smtpUrl
      ? nodemailer.createTransport({ url: opts.smtpUrl, pool: true, maxConnections: SMTP_POOL_CONNECTIONS, maxMessages: 100 })
      : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  }

  get mode(): 'smtp' | 'outbox' {
    return this.opts.smtpUrl ? 'smtp' : 'outbox';
  }

  async send(message: MailMessage): Promise<void> {
    const info = await this.transport.sendMail({
      from: this.opts.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      headers: message.headers,
    });
    if (this.opts.smtpUrl) {
      // Links carry single-use secrets: never log them when a real mail server delivers the mail.
      this.opts.logger.info({ to: message.to, template: message.template, messageId: info.messageId }, 'mail sent');
      return;
    }
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const base = path.join(this.opts.outboxDir, `${stamp}-${message.template}-${randomBytes(4).toString('hex')}`);
    await fsp.mkdir(this.opts.outboxDir, { recursive: true });
    await fsp.writeFile(`${base}.eml`, info.message as Buffer);
    await fsp.writeFile(
      `${base}.json`,
      JSON.stringify({ to: message.to, subject: message.subject, template: message.template, links: message.links, createdAt: new Date().toISOString() }, null, 2),
    );
    this.opts.logger.info({ to: message.to, subject: message.subject, links: message.links, file: `${base}.eml` }, 'mail written to outbox (SMTP_URL not set)');
  }

  /** Sends in the background; a failure is logged, never thrown at the caller. */
  queue(message: MailMessage): void {
    const job = this.send(message)
      .catch((err: unknown) => {
        this.opts.logger.error({ err, to: message.to, template: message.template }, 'mail could not be sent');
      })
      .finally(() => {
        this.pending.delete(job);
      });
    this.pending.add(job);
  }

  /** Resolves when every queued mail has been sent or has failed. */
  async flush(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  async close(): Promise<void> {
    await this.flush();
    this.transport.close();
  }
}

/** The site's mailer as configured (SMTP_URL, MAIL_FROM, the outbox under DATA_DIR): the app's, and the money commands'. */
export function createMailer(config: Pick<AppConfig, 'smtpUrl' | 'mailFrom' | 'dataDir'>, logger: Logger): Mailer {
  return new Mailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, outboxDir: path.join(config.dataDir, 'outbox'), logger });
}
