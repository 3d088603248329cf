import { describe, expect, it } from 'vitest';
import type { MailMessage } from '../../server/mail/mailer.js';
import {
  mailDateTime, mailDay, mailMoney, newSubscriberMail, orderShippedMail, payoutStatusMail, receiptMail, renewalFailedMail, renewalReminderMail,
  subscriptionCancelledMail, subscriptionExpiredMail, type ReceiptFacts,
} from '../../server/mail/money-templates.js';
import { verificationMail, type MailSite } from '../../server/mail/templates.js';

/**
 * The money mails as text: what each says, where its links point, and that every name a person chose (theirs, a
 * performer's, a product's, a coupon's, a tracking code) reaches the HTML escaped and the plain text as written.
 */

const site: MailSite = { siteName: 'Fan & <Stage>', publicUrl: 'https://fans.example', currency: 'USD', currencySymbol: '$' };
const evil = `<img src=x onerror="alert(1)"> O'Neil & Co`;
const evilHtml = '&lt;img src=x onerror=&quot;alert(1)&quot;&gt; O&#39;Neil &amp; Co';
const fan = { email: 'fan@example.com', name: evil };

/** No tag or attribute a name could have brought in: the only tags are the layout's own. */
function expectEscaped(mail: MailMessage) {
  expect(mail.html).not.toContain('<img');
  expect(mail.html).not.toContain('onerror="');
  expect(mail.html).toContain(evilHtml);
  expect(mail.text).toContain(evil);
  // The site's name is the reader's too.
  expect(mail.html).toContain('Fan &amp; &lt;Stage&gt;');
}

/** Every link in the text and the HTML is absolute, on the site, and one of the links the mail names. */
function expectLinks(mail: MailMessage, expected: Record<string, string>) {
  expect(mail.links).toEqual(expected);
  const inText = (mail.text.match(/https?:\/\/[^\s<>"]+/g) ?? []).filter((u) => u !== site.publicUrl);
  const inHtml = [...mail.html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&')).filter((u) => u !== site.publicUrl);
  for (const u of [...inText, ...inHtml]) expect(Object.values(expected)).toContain(u);
  for (const u of Object.values(expected)) {
    expect(inText).toContain(u);
    expect(inHtml).toContain(u);
  }
}

const paidAt = '2025-03-12T14:03:09.000Z';
const receipt = (o: Partial<ReceiptFacts> = {}): ReceiptFacts => ({
  paymentId: 'pay_1', paidAt, amount: 900, currency: 'USD', lines: [{ name: `Video: ${evil}`, quantity: 1, amount: 1000 }], discount: 100,
  couponCode: 'WELCOME10', subscription: null, reversal: null, ...o,
});

describe('money mail helpers', () => {
  it('write amounts with the site symbol, other currencies with their code, and times in UTC', () => {
    expect(mailMoney(site, 1299, 'usd')).toBe('$12.99');
    expect(mailMoney(site, 900, 'EUR')).toBe('EUR 9.00');
    expect(mailMoney(site, -100, 'USD')).toBe('-$1.00');
    expect(mailMoney({ siteName: 's', publicUrl: 'https://s' }, 500, 'USD')).toBe('USD 5.00');
    expect(mailDay('2025-03-12T23:59:00.000Z')).toBe('12 March 2025');
    expect(mailDateTime('2025-03-12T04:05:00.000Z')).toBe('12 March 2025 at 04:05 UTC');
  });
});

describe('receipts', () => {
  it('say what was bought, the discount, the amount, the date and the payment id, and link to the transactions', () => {
    const mail = receiptMail(site, fan, receipt());
    expect(mail).toMatchObject({ to: 'fan@example.com', template: 'receipt', subject: `Your Fan & <Stage> receipt: Video: ${evil}` });
    expect(mail.text).toContain(`Video: ${evil}: $10.00`);
    expect(mail.text).toContain('Discount (coupon WELCOME10): -$1.00');
    expect(mail.text).toContain('Total paid: $9.00');
    expect(mail.text).toContain('Date: 12 March 2025 at 14:03 UTC');
    expect(mail.text).toContain('Payment id: pay_1');
    expect(mail.html).toContain('Total paid: $9.00');
    expectEscaped(mail);
    expectLinks(mail, { transactions: 'https://fans.example/account/transactions' });
  });

  it('list each line of a cart with its quantity; the subject counts the lines', () => {
    const mail = receiptMail(site, fan, receipt({ lines: [{ name: 'Mug', quantity: 2, amount: 3000 }, { name: 'Ebook', quantity: 1, amount: 999 }], discount: 0, couponCode: null, amount: 3999 }));
    expect(mail.subject).toBe('Your Fan & <Stage> receipt: 2 items');
    expect(mail.text).toContain('Mug × 2: $30.00\nEbook: $9.99\nTotal paid: $39.99');
    expect(mail.text).not.toContain('Discount');
  });

  it("of a first subscription payment say until when it runs and that it renews, linking the subscriptions page too", () => {
    const expiresAt = '2025-04-11T14:03:09.000Z';
    const mail = receiptMail(site, fan, receipt({ subscription: { performerName: evil, type: 'monthly', expiresAt, renews: true, renewal: false } }));
    expect(mail.template).toBe('receipt');
    expect(mail.text).toContain(`Your subscription to ${evil} now runs until 11 April 2025 at 14:03 UTC. It renews by itself`);
    expectEscaped(mail);
    expectLinks(mail, { transactions: 'https://fans.example/account/transactions', subscriptions: 'https://fans.example/account/subscriptions' });
  });

  it('of a renewal are worded as a renewal', () => {
    const mail = receiptMail(site, fan, receipt({ discount: 0, couponCode: null, subscription: { performerName: 'Mona', type: 'yearly', expiresAt: paidAt, renews: true, renewal: true } }));
    expect(mail).toMatchObject({ template: 'receipt-renewal', subject: 'Your yearly subscription to Mona renewed: receipt' });
    expect(mail.text).toContain('Your yearly subscription to Mona renewed and the payment went through. This is your receipt.');
  });

  it('say when the payment was given back in the same step', () => {
    expect(receiptMail(site, fan, receipt({ reversal: 'out_of_stock' })).text).toContain('sold out before your payment reached us, so this payment is being refunded');
    expect(receiptMail(site, fan, receipt({ reversal: 'refunded' })).html).toContain('This payment has since been refunded.');
    const subscription = { performerName: 'Mona', type: 'monthly' as const, expiresAt: paidAt, renews: true, renewal: false };
    expect(receiptMail(site, fan, receipt({ reversal: 'chargeback', subscription })).text).not.toContain('runs until');
  });
});

describe('subscription mails', () => {
  const graceUntil = '2025-03-15T10:00:00.000Z';
  it('a failed renewal says until when it is retried and links the subscriptions page', () => {
    const mail = renewalFailedMail(site, fan, { performerName: evil, type: 'monthly', amount: 1000, currency: 'USD', expiresAt: '2025-03-12T10:00:00.000Z', graceUntil, at: '2025-03-12T10:01:00.000Z' });
    expect(mail).toMatchObject({ template: 'renewal-failed', subject: `Your subscription to ${evil} could not be renewed` });
    expect(mail.text).toContain('($10.00)');
    expect(mail.text).toContain('Your paid period ended on 12 March 2025 at 10:00 UTC');
    expect(mail.text).toContain('tried again until 15 March 2025 at 10:00 UTC');
    expect(mail.html).toContain('tried again until 15 March 2025 at 10:00 UTC');
    expectEscaped(mail);
    expectLinks(mail, { subscriptions: 'https://fans.example/account/subscriptions' });
    // Failing just before the period ends: it still runs.
    expect(renewalFailedMail(site, fan, { performerName: 'M', type: 'monthly', amount: 1, currency: 'USD', expiresAt: '2025-03-12T10:00:00.000Z', graceUntil, at: '2025-03-12T09:55:00.000Z' }).text).toContain('Your paid period ends on');
  });

  it('the yearly reminder says when and how much, and where to cancel', () => {
    const mail = renewalReminderMail(site, fan, { performerName: evil, type: 'yearly', amount: 9000, currency: 'USD', renewsAt: '2026-01-02T08:00:00.000Z' });
    expect(mail).toMatchObject({ template: 'renewal-reminder', subject: `Your yearly subscription to ${evil} renews on 2 January 2026` });
    expect(mail.text).toContain('renews on 2 January 2026 at 08:00 UTC, for $90.00');
    expectEscaped(mail);
    expectLinks(mail, { subscriptions: 'https://fans.example/account/subscriptions' });
  });

  it('a cancellation says it will not renew, until when access lasts, and leads back to the performer', () => {
    const f = { performerName: evil, performerUsername: 'mona money', type: 'monthly' as const, expiresAt: '2025-04-01T00:00:00.000Z', at: '2025-03-20T00:00:00.000Z' };
    const mail = subscriptionCancelledMail(site, fan, { ...f, atProvider: false });
    expect(mail).toMatchObject({ template: 'subscription-cancelled', subject: `Your subscription to ${evil} is cancelled` });
    expect(mail.text).toContain('is cancelled: it will not renew');
    expect(mail.text).toContain('You keep access until 1 April 2025 at 00:00 UTC.');
    expectEscaped(mail);
    expectLinks(mail, { performer: 'https://fans.example/performers/mona%20money', subscriptions: 'https://fans.example/account/subscriptions' });
    expect(subscriptionCancelledMail(site, fan, { ...f, atProvider: true }).text).toContain('was ended at the payment provider');
    expect(subscriptionCancelledMail(site, fan, { ...f, at: '2025-05-01T00:00:00.000Z', atProvider: true }).text).not.toContain('keep access');
  });

  it('an expiry after failed renewals says so and leads back to the performer', () => {
    const mail = subscriptionExpiredMail(site, fan, { performerName: evil, performerUsername: 'mona', type: 'yearly', expiresAt: '2025-03-01T00:00:00.000Z' });
    expect(mail).toMatchObject({ template: 'subscription-expired', subject: `Your subscription to ${evil} has ended` });
    expect(mail.text).toContain('could not be paid, so the subscription has ended (the last period paid for ended on 1 March 2025 at 00:00 UTC)');
    expectEscaped(mail);
    expectLinks(mail, { performer: 'https://fans.example/performers/mona', subscriptions: 'https://fans.example/account/subscriptions' });
  });

  it("a performer's new subscriber is named and the mail opens the studio", () => {
    const mail = newSubscriberMail(site, { email: 'perf@example.com', name: 'Mona' }, { fanName: evil, type: 'monthly', amount: 900, currency: 'USD' });
    expect(mail).toMatchObject({ to: 'perf@example.com', template: 'new-subscriber', subject: `New subscriber: ${evil}` });
    expect(mail.text).toContain(`${evil} just subscribed to you (monthly, $9.00 paid).`);
    expect(mail.html).toContain(evilHtml);
    expect(mail.html).not.toContain('<img');
    expectLinks(mail, { studio: 'https://fans.example/studio' });
  });
});

describe('order and payout mails', () => {
  it('a shipped order gives its tracking code and links the order', () => {
    const mail = orderShippedMail(site, fan, { orderId: 'ord 1', orderNumber: 'A-100', performerName: evil, trackingCode: `TRK<1>&"2"`, items: [{ name: evil, quantity: 2 }] });
    expect(mail).toMatchObject({ template: 'order-shipped', subject: 'Your order A-100 has shipped' });
    expect(mail.text).toContain('Tracking code: TRK<1>&"2"');
    expect(mail.html).toContain('Tracking code: TRK&lt;1&gt;&amp;&quot;2&quot;');
    expect(mail.text).toContain(`  ${evil} × 2`);
    expectEscaped(mail);
    expectLinks(mail, { order: 'https://fans.example/account/orders/ord%201' });
    expect(orderShippedMail(site, fan, { orderId: 'o', orderNumber: 'A', performerName: 'M', trackingCode: null, items: [] }).text).toContain('has not given a tracking code');
  });

  it('a payout mail says each status, with the reason of a rejection and the reference of a payment', () => {
    const to = { email: 'perf@example.com', name: evil };
    const base = { id: 'po_1', amount: 12345, currency: 'USD' };
    const requested = payoutStatusMail(site, to, { ...base, status: 'requested' });
    expect(requested).toMatchObject({ template: 'payout-requested', subject: 'Payout of $123.45 requested' });
    expect(payoutStatusMail(site, to, { ...base, status: 'approved' }).subject).toBe('Payout of $123.45 approved');
    const paid = payoutStatusMail(site, to, { ...base, status: 'paid', reference: 'SEPA <ref> 42' });
    expect(paid.text).toContain('Reference: SEPA <ref> 42');
    expect(paid.html).toContain('Reference: SEPA &lt;ref&gt; 42');
    const rejected = payoutStatusMail(site, to, { ...base, status: 'rejected', reason: evil });
    expect(rejected.subject).toBe('Payout of $123.45 not approved');
    expect(rejected.text).toContain(`Reason: ${evil}`);
    expect(rejected.text).toContain('Payout id: po_1');
    expectEscaped(rejected);
    expectLinks(rejected, { earnings: 'https://fans.example/studio/earnings' });
    expect(payoutStatusMail(site, to, { ...base, status: 'rejected' }).text).not.toContain('Reason');
  });
});

describe('account mails', () => {
  it('escape the name in the HTML too', () => {
    const mail = verificationMail(site, fan, 'tok');
    expectEscaped(mail);
  });
});
