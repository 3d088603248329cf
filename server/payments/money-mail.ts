import type { AppContext } from '../context.js';
import type { PaymentType } from '../../common/enums.js';
import type { MailMessage } from '../mail/mailer.js';
import type { MailSite } from '../mail/templates.js';
import {
  newSubscriberMail, orderShippedMail, payoutStatusMail, receiptMail, renewalFailedMail, renewalReminderMail, subscriptionCancelledMail, subscriptionExpiredMail,
  type MailRecipient, type PayoutFacts, type PlanType, type ReceiptFacts,
} from '../mail/money-templates.js';
import { itemsOfOrders, ordersOfPayment } from '../orders/orders.repository.js';
import { mailContacts, type MailContact } from '../users/users.repository.js';
import { withUnsubscribe } from '../mail/notification-templates.js';
import { wantsEmail } from '../notifications/notifications.service.js';
import { unsubscribeHeaders, unsubscribeLinks, unsubscribeToken } from '../notifications/unsubscribe.js';

/**
 * The money mails (server/payments/README.md, "Mail"). Each is decided where the money moved, inside the transaction
 * that moved it, from what that transaction read and wrote (the payment row as it was paid, the subscription as the
 * period left it): a `MoneyMail` in the settlement's `Effects`, or returned by the use case. Nothing is sent there. Once
 * the transaction has committed, `sendMoneyMails` looks up the addresses and names (a person's address is not money
 * state: the latest is the right one) and queues the mails on the Mailer, which sends them in the background.
 *
 * So a mail never goes out for money that was rolled back, a repeated provider event (a duplicate, stopped by the
 * event's unique key before anything runs) mails nothing, and a mail that cannot be built or sent is logged: the money
 * has committed and stays as it is. The demo seed settles its subscriptions through the same settlement in its own
 * transaction and never runs the effects, so it mails nobody.
 */
export type MoneyMail =
  | {
      kind: 'receipt';
      userId: string;
      paymentId: string;
      paymentType: PaymentType;
      performerId: string | null;
      paidAt: string;
      amount: number;
      originalPrice: number;
      discount: number;
      currency: string;
      /** The payment's description from its checkout ("Video: …", "Mug × 2"). */
      description: string;
      couponCode: string | null;
      subscription: { type: PlanType; expiresAt: string | null; renews: boolean; renewal: boolean } | null;
      reversal: ReceiptFacts['reversal'];
    }
  | { kind: 'new-subscriber'; performerId: string; fanId: string; type: PlanType; amount: number; currency: string }
  | { kind: 'renewal-failed'; userId: string; performerId: string; type: PlanType; amount: number; currency: string; expiresAt: string | null; graceUntil: string; at: string }
  | { kind: 'renewal-reminder'; userId: string; performerId: string; type: PlanType; amount: number; currency: string; renewsAt: string }
  | { kind: 'subscription-cancelled'; userId: string; performerId: string; type: PlanType; expiresAt: string | null; atProvider: boolean; at: string }
  | { kind: 'subscription-expired'; userId: string; performerId: string; type: PlanType; expiresAt: string | null }
  | { kind: 'order-shipped'; userId: string; performerId: string; orderId: string; orderNumber: string; trackingCode: string | null }
  | { kind: 'payout-status'; performerId: string; payout: PayoutFacts };

export type MoneyMailDeps = Pick<AppContext, 'db' | 'config' | 'settings' | 'logger'> & Partial<Pick<AppContext, 'mailer'>>;

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function peopleOf(mail: MoneyMail): string[] {
  switch (mail.kind) {
    case 'receipt':
      return [mail.userId, mail.performerId ?? ''];
    case 'new-subscriber':
      return [mail.performerId, mail.fanId];
    case 'payout-status':
      return [mail.performerId];
    default:
      return [mail.userId, mail.performerId];
  }
}

/** A performer's name as their page shows it. */
const performerName = (c: MailContact | undefined) => c?.displayName ?? c?.name ?? 'a creator';

async function receiptLines(deps: MoneyMailDeps, mail: Extract<MoneyMail, { kind: 'receipt' }>, performer: MailContact | undefined): Promise<ReceiptFacts['lines']> {
  if (mail.subscription) {
    const { type, renewal } = mail.subscription;
    const name = renewal ? `Renewal of your ${type} subscription to ${performerName(performer)}` : `${capitalised(type)} subscription to ${performerName(performer)}`;
    return [{ name, quantity: 1, amount: mail.originalPrice }];
  }
  if (mail.paymentType === 'products') {
    // The lines as the checkout wrote them (names and prices at the time of the order), before the discount.
    const items = await itemsOfOrders(deps.db, (await ordersOfPayment(deps.db, mail.paymentId)).map((o) => o.id));
    if (items.length) return items.map((i) => ({ name: i.name, quantity: i.quantity, amount: i.unitPrice * i.quantity }));
  }
  return [{ name: mail.description, quantity: 1, amount: mail.originalPrice }];
}

/** A mail its recipient chose not to get. */
const SKIPPED = 'skipped' as const;

async function build(deps: MoneyMailDeps, site: MailSite, mail: MoneyMail, contacts: Map<string, MailContact>): Promise<MailMessage | null | typeof SKIPPED> {
  const to = (id: string): MailRecipient | null => {
    const c = contacts.get(id);
    return c ? { email: c.email, name: c.name } : null;
  };
  switch (mail.kind) {
    case 'receipt': {
      const buyer = to(mail.userId);
      if (!buyer) return null;
      const performer = mail.performerId ? contacts.get(mail.performerId) : undefined;
      return receiptMail(site, buyer, {
        paymentId: mail.paymentId, paidAt: mail.paidAt, amount: mail.amount, currency: mail.currency, discount: mail.discount, couponCode: mail.couponCode,
        lines: await receiptLines(deps, mail, performer),
        subscription: mail.subscription ? { ...mail.subscription, performerName: performerName(performer) } : null,
        reversal: mail.reversal,
      });
    }
    case 'payout-status': {
      const performer = to(mail.performerId);
      return performer ? payoutStatusMail(site, performer, mail.payout) : null;
    }
    case 'new-subscriber': {
      const performer = to(mail.performerId);
      if (!performer) return null;
      // A notification type's mail (server/notifications/README.md): sent only while the performer wants 'subscriber'
      // mails, with the signed link and headers that turn them off.
      if (!(await wantsEmail(deps.db, mail.performerId, 'subscriber'))) return SKIPPED;
      const links = unsubscribeLinks(deps.config.publicUrl, deps.config.apiBase, unsubscribeToken(deps.config.appSecret, mail.performerId, 'subscriber'));
      const message = newSubscriberMail(site, { ...performer, name: performerName(contacts.get(mail.performerId)) }, {
        fanName: contacts.get(mail.fanId)?.name ?? 'A fan', type: mail.type, amount: mail.amount, currency: mail.currency,
      });
      return withUnsubscribe(message, links.page, unsubscribeHeaders(links.oneClick));
    }
    case 'renewal-failed': {
      const fan = to(mail.userId);
      return fan && renewalFailedMail(site, fan, { ...mail, performerName: performerName(contacts.get(mail.performerId)) });
    }
    case 'renewal-reminder': {
      const fan = to(mail.userId);
      return fan && renewalReminderMail(site, fan, { ...mail, performerName: performerName(contacts.get(mail.performerId)) });
    }
    case 'subscription-cancelled':
    case 'subscription-expired': {
      const fan = to(mail.userId);
      const performer = contacts.get(mail.performerId);
      if (!fan) return null;
      const facts = { performerName: performerName(performer), performerUsername: performer?.username ?? mail.performerId, type: mail.type, expiresAt: mail.expiresAt };
      return mail.kind === 'subscription-cancelled'
        ? subscriptionCancelledMail(site, fan, { ...facts, atProvider: mail.atProvider, at: mail.at })
        : subscriptionExpiredMail(site, fan, facts);
    }
    case 'order-shipped': {
      const buyer = to(mail.userId);
      if (!buyer) return null;
      const items = await itemsOfOrders(deps.db, [mail.orderId]);
      return orderShippedMail(site, buyer, {
        orderId: mail.orderId, orderNumber: mail.orderNumber, trackingCode: mail.trackingCode, performerName: performerName(contacts.get(mail.performerId)),
        items: items.map((i) => ({ name: i.name, quantity: i.quantity })),
      });
    }
  }
}

/**
 * Queues the mails of committed money events. Call it after the commit, never inside a transaction. Never throws: a
 * mail that cannot be built (its recipient is gone, the database does not answer) or sent is logged and dropped.
 */
export async function sendMoneyMails(deps: MoneyMailDeps, mails: readonly MoneyMail[]): Promise<void> {
  const { mailer, logger } = deps;
  if (!mails.length) return;
  if (!mailer) {
    logger.warn({ mails: mails.map((m) => m.kind) }, 'money mails not sent: no mailer here');
    return;
  }
  let site: MailSite;
  let contacts: Map<string, MailContact>;
  try {
    const [siteName, currency, currencySymbol] = await Promise.all([deps.settings.get('siteName'), deps.settings.get('currency'), deps.settings.get('currencySymbol')]);
    site = { siteName: String(siteName), publicUrl: deps.config.publicUrl, currency: String(currency), currencySymbol: String(currencySymbol) };
    contacts = await mailContacts(deps.db, [...new Set(mails.flatMap(peopleOf).filter(Boolean))]);
  } catch (err) {
    logger.error({ err, mails: mails.map((m) => m.kind) }, 'money mails could not be prepared: not sent');
    return;
  }
  for (const mail of mails) {
    try {
      const message = await build(deps, site, mail, contacts);
      if (message === SKIPPED) continue;
      if (message) mailer.queue(message);
      else logger.warn({ mail: mail.kind }, 'money mail has no recipient: not sent');
    } catch (err) {
      logger.error({ err, mail: mail.kind }, 'money mail could not be built: not sent');
    }
  }
}
