import type { MailMessage } from './mailer.js';
import { escapeHtml, layout, type MailSite } from './templates.js';
import type { MailRecipient } from './money-templates.js';

/**
 * The mail of one notification (server/notifications/README.md, "Mail"): its text as the list shows it, one button
 * to where it links, and the way out of this type of mail (the signed unsubscribe page; the same link's one-click
 * address is in the `List-Unsubscribe` header).
 */
export interface NotificationMailFacts {
  /** The notification's text (common/notification-text.ts). */
  text: string;
  /** Absolute link to what it is about. */
  url: string;
  /** What this type of mail is called ("Comments on your content"). */
  typeLabel: string;
  unsubscribePage: string;
  headers: Record<string, string>;
}

export function notificationMail(site: MailSite, to: MailRecipient, f: NotificationMailFacts): MailMessage {
  const preferences = `${site.publicUrl}/account/notifications`;
  const footer = `You get this mail because “${f.typeLabel}” mails are on.`;
  return {
    to: to.email,
    template: 'notification',
    subject: f.text,
    links: { open: f.url, unsubscribe: f.unsubscribePage, preferences },
    headers: f.headers,
    text: [`Hi ${to.name},`, '', f.text, f.url, '', footer, `Stop these mails: ${f.unsubscribePage}`, `All your choices: ${preferences}`].join('\n'),
    html: layout(
      site,
      f.text,
      [
        `Hi ${escapeHtml(to.name)},`,
        escapeHtml(f.text),
        `<span style="font-size:12px;color:#666">${escapeHtml(footer)} <a href="${escapeHtml(f.unsubscribePage)}">Unsubscribe from these mails</a> · <a href="${escapeHtml(preferences)}">All your choices</a></span>`,
      ],
      { label: 'Open', url: f.url },
    ),
  };
}

/** Adds the unsubscribe link and headers to a mail of a notification type sent elsewhere (the money mail "new subscriber"). */
export function withUnsubscribe(message: MailMessage, page: string, headers: Record<string, string>): MailMessage {
  const line = `Stop these mails: ${page}`;
  return {
    ...message,
    links: { ...message.links, unsubscribe: page },
    headers: { ...message.headers, ...headers },
    text: `${message.text}\n\n${line}`,
    html: message.html.replace('</body>', `<p style="font-size:12px;color:#888"><a href="${escapeHtml(page)}">Unsubscribe from these mails</a></p>\n</body>`),
  };
}
