import type { MailMessage } from '../mail/mailer.js';
import { escapeHtml, layout, type MailSite } from '../mail/templates.js';
import type { TakedownRelationship, TakedownStatus } from '../../common/enums.js';

/** The mails of a takedown request: the requester's receipt and outcome, and the admins' notice. */

export const RELATIONSHIP_LABELS: Record<TakedownRelationship, string> = {
  depicted: 'I am depicted in it',
  representative: 'I represent the person depicted',
  copyright: 'I own the copyright',
};

interface Requester {
  email: string;
  name: string;
  reference: string;
}

export function takedownReceivedMail(site: MailSite, to: Requester, url: string): MailMessage {
  const title = `Your takedown request ${to.reference}`;
  const lines = [
    `Hi ${to.name},`,
    `We received your request to remove ${url} from ${site.siteName}. Its reference is ${to.reference}.`,
    'The content is no longer shown while an admin reviews your request. We will write to you again with the outcome.',
    'If you did not send this request, please reply to this mail.',
  ];
  return {
    to: to.email,
    template: 'takedown-received',
    subject: title,
    links: {},
    text: lines.join('\n\n'),
    html: layout(site, title, lines.map(escapeHtml)),
  };
}

export function takedownAdminMail(site: MailSite, to: string, request: { reference: string; url: string; relationship: TakedownRelationship; targetType: string }): MailMessage {
  const queue = `${site.publicUrl}/admin/takedowns`;
  const title = `Takedown request ${request.reference}`;
  const lines = [
    `A takedown request was filed for a ${request.targetType}: ${request.url}`,
    `Relationship: ${RELATIONSHIP_LABELS[request.relationship]}.`,
    request.targetType === 'performer'
      ? 'A performer page is not hidden automatically: please review the request.'
      : 'The item was hidden at once. Please uphold or restore it within 48 hours.',
  ];
  return {
    to,
    template: 'takedown-admin',
    subject: title,
    links: { queue },
    text: [...lines, `Queue: ${queue}`].join('\n\n'),
    html: layout(site, title, lines.map(escapeHtml), { label: 'Open the takedown queue', url: queue }),
  };
}

export function takedownOutcomeMail(site: MailSite, to: Requester, outcome: Exclude<TakedownStatus, 'open'>): MailMessage {
  const title = `Your takedown request ${to.reference}: ${outcome === 'upheld' ? 'content removed' : 'content restored'}`;
  const lines = [
    `Hi ${to.name},`,
    outcome === 'upheld'
      ? `We reviewed your request ${to.reference}: the content stays removed from ${site.siteName}.`
      : `We reviewed your request ${to.reference} and could not confirm it: the content is shown again on ${site.siteName}. If you have more information, please file a new request or contact us.`,
  ];
  return {
    to: to.email,
    template: `takedown-${outcome}`,
    subject: title,
    links: {},
    text: lines.join('\n\n'),
    html: layout(site, title, lines.map(escapeHtml)),
  };
}
