import type { MailMessage } from './mailer.js';
import { escapeHtml, layout, type MailSite } from './templates.js';

/**
 * The verification mails (server/verification/README.md): to each admin when a performer submits, to the performer
 * when an admin decides. Like the account mails: plain text and HTML saying the same, one button, every name and the
 * admin's reason escaped in the HTML. None carries the submitted details or pictures: a mail is not private storage.
 */

export interface MailRecipient {
  email: string;
  name: string;
}

/** To an admin: a performer is waiting for a review (by username only: the legal name stays in the console). */
export function verificationSubmittedMail(site: MailSite, to: MailRecipient, v: { id: string; performerUsername: string; resubmission: boolean }): MailMessage {
  const review = `${site.publicUrl}/admin/verifications?id=${encodeURIComponent(v.id)}`;
  const title = `Identity verification to review: @${v.performerUsername}`;
  const what = v.resubmission ? 'sent a new identity verification after a rejection' : 'sent an identity verification';
  return {
    to: to.email,
    template: 'verification-submitted',
    subject: title,
    links: { review },
    text: [`Hi ${to.name},`, '', `The performer @${v.performerUsername} ${what}. Please review it in the console:`, review].join('\n'),
    html: layout(site, title, [`Hi ${escapeHtml(to.name)},`, `The performer @${escapeHtml(v.performerUsername)} ${what}. Please review it in the console.`], {
      label: 'Review it',
      url: review,
    }),
  };
}

export function verificationApprovedMail(site: MailSite, to: MailRecipient): MailMessage {
  const studio = `${site.publicUrl}/studio`;
  const title = `Your identity is verified on ${site.siteName}`;
  return {
    to: to.email,
    template: 'verification-approved',
    subject: title,
    links: { studio },
    text: [`Hi ${to.name},`, '', 'An admin checked your identity documents and approved your account. You can now publish and sell from your studio:', studio].join('\n'),
    html: layout(site, title, [`Hi ${escapeHtml(to.name)},`, 'An admin checked your identity documents and approved your account. You can now publish and sell from your studio.'], {
      label: 'Open my studio',
      url: studio,
    }),
  };
}

export function verificationRejectedMail(site: MailSite, to: MailRecipient, reason: string): MailMessage {
  const again = `${site.publicUrl}/studio/verification`;
  const title = `Your identity verification on ${site.siteName} needs another try`;
  return {
    to: to.email,
    template: 'verification-rejected',
    subject: title,
    links: { verification: again },
    text: [`Hi ${to.name},`, '', 'An admin could not approve your identity verification. The reason:', reason, '', 'You can send it again here:', again].join('\n'),
    html: layout(
      site,
      title,
      [`Hi ${escapeHtml(to.name)},`, 'An admin could not approve your identity verification. The reason:', `<em>${escapeHtml(reason)}</em>`, 'You can send it again.'],
      { label: 'Send it again', url: again },
    ),
  };
}
