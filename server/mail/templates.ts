import type { MailMessage } from './mailer.js';

/** What every template needs to know about the site. Links are absolute, built from config.publicUrl. */
export interface MailSite {
  siteName: string;
  publicUrl: string;
  /** The site's currency code and symbol (settings): an amount in it is written with the symbol, any other with its code. */
  currency?: string;
  currencySymbol?: string;
}

/** Everything a person or the site wrote goes through this before it is put into a mail's HTML. */
export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The HTML of a mail: `paragraphs` are HTML already (escape what goes into them), the button's text and link are escaped here. */
export function layout(site: MailSite, title: string, paragraphs: string[], button?: { label: string; url: string }): string {
  const body = paragraphs.map((p) => `<p style="margin:0 0 16px">${p}</p>`).join('\n');
  const action = button
    ? `<p style="margin:24px 0"><a href="${escapeHtml(button.url)}" style="background:#d6336c;color:#fff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block">${escapeHtml(button.label)}</a></p>
<p style="margin:0 0 16px;font-size:13px;color:#666">If the button does not work, copy this address into your browser:<br><a href="${escapeHtml(button.url)}">${escapeHtml(button.url)}</a></p>`
    : '';
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body style="font-family:Arial,Helvetica,sans-serif;color:#222;line-height:1.5;max-width:560px;margin:0 auto;padding:24px">
<h1 style="font-size:20px">${escapeHtml(title)}</h1>
${body}
${action}
<p style="margin:32px 0 0;font-size:12px;color:#888">${escapeHtml(site.siteName)} · <a href="${escapeHtml(site.publicUrl)}">${escapeHtml(site.publicUrl)}</a></p>
</body></html>`;
}

/** `next`: a safe path on the site (common/next-path.ts) the visitor was going to; the verified page leads back there. */
export function verificationMail(site: MailSite, to: { email: string; name: string }, token: string, next?: string | null): MailMessage {
  const link = `${site.publicUrl}/auth/verify-email?token=${encodeURIComponent(token)}${next ? `&next=${encodeURIComponent(next)}` : ''}`;
  const title = `Verify your email for ${site.siteName}`;
  return {
    to: to.email,
    template: 'verify-email',
    subject: title,
    links: { verify: link },
    text: [
      `Hi ${to.name},`,
      '',
      `Please confirm that this is your email address by opening the link below (valid for 48 hours):`,
      link,
      '',
      `If you did not sign up for ${site.siteName}, you can ignore this email.`,
    ].join('\n'),
    html: layout(
      site,
      title,
      [`Hi ${escapeHtml(to.name)},`, 'Please confirm that this is your email address. The link is valid for 48 hours.', `If you did not sign up for ${escapeHtml(site.siteName)}, you can ignore this email.`],
      { label: 'Verify my email', url: link },
    ),
  };
}

export function passwordResetMail(site: MailSite, to: { email: string; name: string }, token: string): MailMessage {
  const link = `${site.publicUrl}/auth/reset-password?token=${encodeURIComponent(token)}`;
  const title = `Reset your ${site.siteName} password`;
  return {
    to: to.email,
    template: 'reset-password',
    subject: title,
    links: { reset: link },
    text: [
      `Hi ${to.name},`,
      '',
      'Someone (hopefully you) asked to reset the password of your account. Open the link below to choose a new one (valid for 1 hour, usable once):',
      link,
      '',
      'If you did not ask for this, ignore this email: your password stays as it is.',
    ].join('\n'),
    html: layout(
      site,
      title,
      [
        `Hi ${escapeHtml(to.name)},`,
        'Someone (hopefully you) asked to reset the password of your account. The link is valid for 1 hour and can be used once.',
        'If you did not ask for this, ignore this email: your password stays as it is.',
      ],
      { label: 'Choose a new password', url: link },
    ),
  };
}

/** Sent instead of a verification mail when someone registers with an email that already has an account. */
export function registrationAttemptMail(site: MailSite, to: { email: string; name: string }): MailMessage {
  const login = `${site.publicUrl}/auth/login`;
  const forgot = `${site.publicUrl}/auth/forgot-password`;
  const title = `Someone tried to sign up to ${site.siteName} with your email`;
  return {
    to: to.email,
    template: 'registration-attempt',
    subject: title,
    links: { login, forgot },
    text: [
      `Hi ${to.name},`,
      '',
      `Someone just tried to create a new ${site.siteName} account with this email address, which already has an account. No new account was created.`,
      '',
      `If it was you, log in here: ${login}`,
      `Forgot your password? Reset it here: ${forgot}`,
      '',
      'If it was not you, you can ignore this email: your account has not changed.',
    ].join('\n'),
    html: layout(
      site,
      title,
      [
        `Hi ${escapeHtml(to.name)},`,
        `Someone just tried to create a new ${escapeHtml(site.siteName)} account with this email address, which already has an account. No new account was created.`,
        `Forgot your password? <a href="${escapeHtml(forgot)}">Reset it here</a>.`,
        'If it was not you, you can ignore this email: your account has not changed.',
      ],
      { label: 'Log in', url: login },
    ),
  };
}
