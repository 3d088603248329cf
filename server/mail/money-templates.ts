import { formatMoney } from '../../common/money.js';
import type { MailMessage } from './mailer.js';
import { escapeHtml, layout, type MailSite } from './templates.js';

/**
 * The money mails (server/payments/README.md, "Mail"): receipts, renewals that failed or are coming, subscriptions
 * cancelled or ended, a performer's new subscriber, an order shipped, a payout's status. Like the account mails: plain
 * text and HTML saying the same, the site's name, one button to the page where the reader can act on it (an absolute
 * link from the site's address), every name escaped in the HTML. Times are written in UTC, said so: the mail does
 * not know the reader's zone.
 */

export interface MailRecipient {
  email: string;
  name: string;
}

export type PlanType = 'monthly' | 'yearly';

const dayFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
const timeFormat = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hour12: false, timeZone: 'UTC' });

/** "12 March 2025" (UTC). */
export function mailDay(iso: string): string {
  return dayFormat.format(new Date(iso));
}

/** "12 March 2025 at 14:03 UTC". */
export function mailDateTime(iso: string): string {
  const d = new Date(iso);
  return `${dayFormat.format(d)} at ${timeFormat.format(d)} UTC`;
}

/** An amount in the site's currency with its symbol ("$9.00"), in any other with its code ("EUR 9.00"). */
export function mailMoney(site: MailSite, minor: number, currency: string): string {
  const code = currency.toUpperCase();
  if (site.currency && code === site.currency.toUpperCase()) return formatMoney(minor, site.currencySymbol ?? '');
  return formatMoney(minor, `${code} `);
}

const url = (site: MailSite, path: string) => `${site.publicUrl}${path}`;
const link = (href: string, text: string) => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;
const performerPage = (site: MailSite, username: string) => url(site, `/performers/${encodeURIComponent(username)}`);

// -----------------------------------------------------------------------------------------------------------------
// Receipts.

export interface ReceiptFacts {
  paymentId: string;
  paidAt: string;
  /** What the buyer paid, after any discount. */
  amount: number;
  currency: string;
  /** What was bought, at list price (the discount is its own line). */
  lines: Array<{ name: string; quantity: number; amount: number }>;
  discount: number;
  couponCode: string | null;
  /** A subscription's payment: the plan, until when it now runs, whether it renews by itself; `renewal` for a renewal's charge. */
  subscription: { performerName: string; type: PlanType; expiresAt: string | null; renews: boolean; renewal: boolean } | null;
  /** Paid and given back in the same step: a refund or chargeback that arrived first, or a sold-out product. */
  reversal: 'refunded' | 'chargeback' | 'out_of_stock' | null;
}

const reversalWords: Record<NonNullable<ReceiptFacts['reversal']>, string> = {
  refunded: 'This payment has since been refunded.',
  chargeback: 'This payment has since been charged back by your bank.',
  out_of_stock: 'The product sold out before your payment reached us, so this payment is being refunded to you.',
};

/** A receipt for a paid payment (first payments, purchases, carts, renewals: a renewal's is worded as one). */
export function receiptMail(site: MailSite, to: MailRecipient, r: ReceiptFacts): MailMessage {
  const transactions = url(site, '/account/transactions');
  const subscriptions = url(site, '/account/subscriptions');
  const money = (minor: number) => mailMoney(site, minor, r.currency);
  const sub = r.subscription;
  const title = sub?.renewal
    ? `Your ${sub.type} subscription to ${sub.performerName} renewed`
    : `Your ${site.siteName} receipt`;
  const intro = sub?.renewal
    ? `Your ${sub.type} subscription to ${sub.performerName} renewed and the payment went through. This is your receipt.`
    : 'Thank you for your payment. This is your receipt.';
  const lineText = (l: ReceiptFacts['lines'][number]) => `${l.name}${l.quantity > 1 ? ` × ${l.quantity}` : ''}: ${money(l.amount)}`;
  const discount = r.discount > 0 ? `Discount${r.couponCode ? ` (coupon ${r.couponCode})` : ''}: ${money(-r.discount)}` : null;
  const facts = [`Total paid: ${money(r.amount)}`, `Date: ${mailDateTime(r.paidAt)}`, `Payment id: ${r.paymentId}`];
  // A payment given back at once bought no period: nothing to say about one.
  const subscriptionText = sub?.expiresAt && !r.reversal
    ? `Your subscription to ${sub.performerName} now runs until ${mailDateTime(sub.expiresAt)}.${sub.renews ? ' It renews by itself at the end of each period; you can cancel it at any time on your subscriptions page.' : ''}`
    : null;
  const reversal = r.reversal ? reversalWords[r.reversal] : null;
  const links: Record<string, string> = { transactions, ...(sub ? { subscriptions } : {}) };
  return {
    to: to.email,
    template: sub?.renewal ? 'receipt-renewal' : 'receipt',
    subject: sub?.renewal ? `${title}: receipt` : `${title}: ${r.lines.length === 1 ? r.lines[0]!.name : `${r.lines.length} items`}`,
    links,
    text: [
      `Hi ${to.name},`,
      '',
      intro,
      '',
      ...r.lines.map(lineText),
      ...(discount ? [discount] : []),
      ...facts,
      ...(subscriptionText ? ['', subscriptionText, ...(sub?.renews ? [subscriptions] : [])] : []),
      ...(reversal ? ['', reversal] : []),
      '',
      `Your payments and receipts: ${transactions}`,
    ].join('\n'),
    html: layout(
      site,
      title,
      [
        `Hi ${escapeHtml(to.name)},`,
        escapeHtml(intro),
        [...r.lines.map(lineText), ...(discount ? [discount] : [])].map(escapeHtml).join('<br>'),
        facts.map(escapeHtml).join('<br>'),
        ...(subscriptionText ? [`${escapeHtml(subscriptionText)}${sub?.renews ? ` ${link(subscriptions, 'Your subscriptions')}` : ''}`] : []),
        ...(reversal ? [escapeHtml(reversal)] : []),
      ],
      { label: 'See your payments', url: transactions },
    ),
  };
}

// -----------------------------------------------------------------------------------------------------------------
// Subscriptions.

export interface RenewalFailedFacts {
  performerName: string;
  type: PlanType;
  amount: number;
  currency: string;
  /** The end of the period paid for. */
  expiresAt: string | null;
  /** The provider retries until then; after it the subscription ends. */
  graceUntil: string;
  /** When the attempt failed. */
  at: string;
}

export function renewalFailedMail(site: MailSite, to: MailRecipient, f: RenewalFailedFacts): MailMessage {
  const subscriptions = url(site, '/account/subscriptions');
  const title = `Your subscription to ${f.performerName} could not be renewed`;
  const first = `We could not take the renewal payment of your ${f.type} subscription to ${f.performerName} (${mailMoney(site, f.amount, f.currency)}).`;
  const access = f.expiresAt
    ? `${f.expiresAt <= f.at ? `Your paid period ended on ${mailDateTime(f.expiresAt)}` : `Your paid period ends on ${mailDateTime(f.expiresAt)}`}: subscriber content stays locked until a renewal goes through.`
    : 'Subscriber content stays locked until a renewal goes through.';
  const retry = `The payment will be tried again until ${mailDateTime(f.graceUntil)}. If it goes through, your subscription carries on; if not, it ends then and you will not be charged.`;
  const act = 'Please check the card or account you pay with. You can see the subscription, or cancel it, on your subscriptions page:';
  return {
    to: to.email,
    template: 'renewal-failed',
    subject: title,
    links: { subscriptions },
    text: [`Hi ${to.name},`, '', first, access, '', retry, '', act, subscriptions].join('\n'),
    html: layout(site, title, [`Hi ${escapeHtml(to.name)},`, `${escapeHtml(first)} ${escapeHtml(access)}`, escapeHtml(retry), escapeHtml(act)], {
      label: 'Your subscriptions',
      url: subscriptions,
    }),
  };
}

export interface RenewalReminderFacts {
  performerName: string;
  type: PlanType;
  amount: number;
  currency: string;
  /** When the next charge falls: the end of the period paid for. */
  renewsAt: string;
}

/** Sent a few days (renewalReminderDays) before a yearly subscription renews, once per period. */
export function renewalReminderMail(site: MailSite, to: MailRecipient, f: RenewalReminderFacts): MailMessage {
  const subscriptions = url(site, '/account/subscriptions');
  const title = `Your ${f.type} subscription to ${f.performerName} renews on ${mailDay(f.renewsAt)}`;
  const first = `Your ${f.type} subscription to ${f.performerName} renews on ${mailDateTime(f.renewsAt)}, for ${mailMoney(site, f.amount, f.currency)}.`;
  const keep = 'To keep it, there is nothing to do.';
  const cancel = 'If you do not want it to renew, cancel it before then on your subscriptions page: you keep access until the end of the period you paid for.';
  return {
    to: to.email,
    template: 'renewal-reminder',
    subject: title,
    links: { subscriptions },
    text: [`Hi ${to.name},`, '', first, keep, '', cancel, subscriptions].join('\n'),
    html: layout(site, title, [`Hi ${escapeHtml(to.name)},`, `${escapeHtml(first)} ${escapeHtml(keep)}`, escapeHtml(cancel)], { label: 'Your subscriptions', url: subscriptions }),
  };
}

export interface SubscriptionEndFacts {
  performerName: string;
  performerUsername: string;
  type: PlanType;
  /** The end of the period paid for (access lasts until then). */
  expiresAt: string | null;
}

/**
 * The subscription will not renew: cancelled by its subscriber (or an admin), or ended at the payment provider.
 * `at`: when; access is mentioned while the period paid for runs past it.
 */
export function subscriptionCancelledMail(site: MailSite, to: MailRecipient, f: SubscriptionEndFacts & { atProvider: boolean; at: string }): MailMessage {
  const subscriptions = url(site, '/account/subscriptions');
  const performer = performerPage(site, f.performerUsername);
  const title = `Your subscription to ${f.performerName} is cancelled`;
  const first = `Your ${f.type} subscription to ${f.performerName} ${f.atProvider ? 'was ended at the payment provider' : 'is cancelled'}: it will not renew, and you will not be charged for it again.`;
  const access = f.expiresAt && f.expiresAt > f.at ? `You keep access until ${mailDateTime(f.expiresAt)}.` : null;
  const again = `Changed your mind? You can subscribe again on ${f.performerName}'s page.`;
  return {
    to: to.email,
    template: 'subscription-cancelled',
    subject: title,
    links: { performer, subscriptions },
    text: [`Hi ${to.name},`, '', first, ...(access ? [access] : []), '', again, performer, '', `Your subscriptions: ${subscriptions}`].join('\n'),
    html: layout(
      site,
      title,
      [`Hi ${escapeHtml(to.name)},`, [first, access].filter(Boolean).map((p) => escapeHtml(p!)).join(' '), escapeHtml(again), link(subscriptions, 'Your subscriptions')],
      { label: 'Subscribe again', url: performer },
    ),
  };
}

/** Renewals kept failing past the grace period: the subscription ended. */
export function subscriptionExpiredMail(site: MailSite, to: MailRecipient, f: SubscriptionEndFacts): MailMessage {
  const subscriptions = url(site, '/account/subscriptions');
  const performer = performerPage(site, f.performerUsername);
  const title = `Your subscription to ${f.performerName} has ended`;
  const first = `The renewal of your ${f.type} subscription to ${f.performerName} could not be paid, so the subscription has ended${f.expiresAt ? ` (the last period paid for ended on ${mailDateTime(f.expiresAt)})` : ''}. It will not be charged again.`;
  const again = `You can subscribe again at any time on ${f.performerName}'s page.`;
  return {
    to: to.email,
    template: 'subscription-expired',
    subject: title,
    links: { performer, subscriptions },
    text: [`Hi ${to.name},`, '', first, '', again, performer, '', `Your subscriptions: ${subscriptions}`].join('\n'),
    html: layout(site, title, [`Hi ${escapeHtml(to.name)},`, escapeHtml(first), escapeHtml(again), link(subscriptions, 'Your subscriptions')], {
      label: 'Subscribe again',
      url: performer,
    }),
  };
}

export interface NewSubscriberFacts {
  fanName: string;
  type: PlanType;
  amount: number;
  currency: string;
}

/** To the performer: someone subscribed (a first payment, not a renewal, of a subscription that was not running). */
export function newSubscriberMail(site: MailSite, to: MailRecipient, f: NewSubscriberFacts): MailMessage {
  const studio = url(site, '/studio');
  const title = `New subscriber: ${f.fanName}`;
  const first = `${f.fanName} just subscribed to you (${f.type}, ${mailMoney(site, f.amount, f.currency)} paid).`;
  const more = 'Your studio counts your subscribers, and your earnings page lists what each payment brought you.';
  return {
    to: to.email,
    template: 'new-subscriber',
    subject: title,
    links: { studio },
    text: [`Hi ${to.name},`, '', first, more, studio].join('\n'),
    html: layout(site, title, [`Hi ${escapeHtml(to.name)},`, escapeHtml(first), escapeHtml(more)], { label: 'Open your studio', url: studio }),
  };
}

// -----------------------------------------------------------------------------------------------------------------
// Orders and payouts.

export interface OrderShippedFacts {
  orderId: string;
  orderNumber: string;
  performerName: string;
  trackingCode: string | null;
  items: Array<{ name: string; quantity: number }>;
}

/** To the buyer, when the seller sets an order's delivery to shipping (or gives it a new tracking code while it ships). */
export function orderShippedMail(site: MailSite, to: MailRecipient, f: OrderShippedFacts): MailMessage {
  const order = url(site, `/account/orders/${encodeURIComponent(f.orderId)}`);
  const title = `Your order ${f.orderNumber} has shipped`;
  const first = `${f.performerName} has shipped your order ${f.orderNumber}:`;
  const items = f.items.map((i) => `${i.name}${i.quantity > 1 ? ` × ${i.quantity}` : ''}`);
  const tracking = f.trackingCode ? `Tracking code: ${f.trackingCode}` : 'The seller has not given a tracking code.';
  return {
    to: to.email,
    template: 'order-shipped',
    subject: title,
    links: { order },
    text: [`Hi ${to.name},`, '', first, ...items.map((i) => `  ${i}`), '', tracking, '', `Your order: ${order}`].join('\n'),
    html: layout(site, title, [`Hi ${escapeHtml(to.name)},`, `${escapeHtml(first)}<br>${items.map(escapeHtml).join('<br>')}`, escapeHtml(tracking)], {
      label: 'See your order',
      url: order,
    }),
  };
}

export type PayoutStatus = 'requested' | 'approved' | 'paid' | 'rejected';

export interface PayoutFacts {
  id: string;
  status: PayoutStatus;
  amount: number;
  currency: string;
  /** Why it was rejected (rejected). */
  reason?: string | null;
  /** The transfer's reference (paid). */
  reference?: string | null;
}

/** To the performer, at each step of a payout they asked for. */
export function payoutStatusMail(site: MailSite, to: MailRecipient, payout: PayoutFacts): MailMessage {
  const earnings = url(site, '/studio/earnings');
  const amount = mailMoney(site, payout.amount, payout.currency);
  const words: Record<PayoutStatus, { title: string; lines: string[] }> = {
    requested: { title: `Payout of ${amount} requested`, lines: [`We have your request for a payout of ${amount}. You can follow it on your earnings page.`] },
    approved: { title: `Payout of ${amount} approved`, lines: [`Your payout of ${amount} is approved and will be paid shortly.`] },
    paid: {
      title: `Payout of ${amount} paid`,
      lines: [`Your payout of ${amount} has been paid.`, ...(payout.reference ? [`Reference: ${payout.reference}`] : [])],
    },
    rejected: {
      title: `Payout of ${amount} not approved`,
      lines: [`Your payout request of ${amount} was not approved.`, ...(payout.reason ? [`Reason: ${payout.reason}`] : [])],
    },
  };
  const { title, lines } = words[payout.status];
  const id = `Payout id: ${payout.id}`;
  return {
    to: to.email,
    template: `payout-${payout.status}`,
    subject: title,
    links: { earnings },
    text: [`Hi ${to.name},`, '', ...lines, id, '', `Your earnings: ${earnings}`].join('\n'),
    html: layout(site, title, [`Hi ${escapeHtml(to.name)},`, [...lines, id].map(escapeHtml).join('<br>')], { label: 'See your earnings', url: earnings }),
  };
}
