import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';

export interface CaughtMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** The mail's headers as sent, by lower-case name (the last of a repeated one). */
  headers: Record<string, string>;
}

/**
 * A real SMTP server on a random local port (no TLS, no auth) that parses every mail it accepts.
 * Point the app at it with `SMTP_URL=catcher.smtpUrl`. A mail is in `mails` before the SMTP
 * transaction completes, so once the app's mailer has flushed, its mails are here.
 */
export class MailCatcher {
  readonly mails: CaughtMail[] = [];
  /** SMTP connections opened to this server so far. */
  connections = 0;
  private server: SMTPServer | undefined;
  private port = 0;

  async start(): Promise<void> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onConnect: (_session, callback) => {
        this.connections += 1;
        callback();
      },
      size: 5 * 1024 * 1024,
      onData: (stream, session, callback) => {
        simpleParser(stream)
          .then((parsed) => {
            this.mails.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
              headers: Object.fromEntries(parsed.headerLines.map((h) => [h.key, h.line.slice(h.line.indexOf(':') + 1).trim()])),
            });
            callback();
          })
          .catch((err: Error) => callback(err));
      },
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.server.address() as AddressInfo).port;
  }

  get smtpUrl(): string {
    // No STARTTLS is offered; ignoreTLS makes nodemailer not even ask.
    return `smtp://127.0.0.1:${this.port}?ignoreTLS=true`;
  }

  /** Position to pass to `waitFor` so only mails received after this point count. */
  mark(): number {
    return this.mails.length;
  }

  /** Mails to `to` received since `since` (optionally with a matching subject). */
  find(to: string, subject?: RegExp, since = 0): CaughtMail[] {
    return this.mails.slice(since).filter((m) => m.to.includes(to.toLowerCase()) && (!subject || subject.test(m.subject)));
  }

  /** The first mail to `to` (subject matching) received since `since`, waiting up to `timeoutMs`. */
  async waitFor(to: string, subject?: RegExp, since = 0, timeoutMs = 5000): Promise<CaughtMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.find(to, subject, since)[0];
      if (found) return found;
      if (Date.now() > deadline) {
        const seen = this.mails.slice(since).map((m) => `${m.to.join(',')}: ${m.subject}`);
        throw new Error(`no mail to ${to} matching ${subject} within ${timeoutMs} ms; received since mark: ${JSON.stringify(seen)}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

/** The `token` query parameter of the first link in `text` whose path is `pathname`, checked to point at `origin`. */
export function linkToken(text: string, origin: string, pathname: string): string {
  const links = text.match(/https?:\/\/[^\s<>"]+/g) ?? [];
  for (const raw of links) {
    const url = new URL(raw);
    if (url.pathname !== pathname) continue;
    if (url.origin !== origin) throw new Error(`link ${raw} does not point at ${origin}`);
    const token = url.searchParams.get('token');
    if (token) return token;
  }
  throw new Error(`no ${pathname} link in mail:\n${text}`);
}
