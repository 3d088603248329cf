import { describe, expect, it } from 'vitest';
import { notificationText } from '../../common/notification-text.js';
import { notificationTypeSchema } from '../../common/enums.js';
import { readUnsubscribeToken, unsubscribeToken } from '../../server/notifications/unsubscribe.js';

/** The one mapping from a notification's type and payload to its words and link (common/notification-text.ts). */
describe('notification text', () => {
  it('words each type of the convention with who did it, what and how much, and links where the payload says', () => {
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ['message', { conversationId: 'c1', messageId: 'm1', actorId: 'u', actorName: 'Ann', url: '/messages/c1' }, 'Ann sent you a message', '/messages/c1'],
      ['tip', { tipId: 't', paymentId: 'p', amount: 1250, actorId: 'u', actorName: 'Bob', url: '/studio/earnings' }, 'Bob tipped you €12.50', '/studio/earnings'],
      ['subscriber', { subscriptionId: 's', actorId: 'u', actorName: 'Cy', url: '/studio' }, 'Cy subscribed to you', '/studio'],
      ['comment', { commentId: 'c', objectType: 'video', objectId: 'v', userId: 'u', title: 'Dawn', actorName: 'Di', url: '/videos/v' }, 'Di commented on “Dawn”', '/videos/v'],
      ['purchase', { paymentId: 'p', actorName: 'Ed', title: 'Mug', amount: 1500, url: '/studio/orders' }, 'Ed bought “Mug” for €15.00', '/studio/orders'],
      ['order', { orderId: 'o', status: 'shipping', url: '/account/orders/o' }, 'Your order has shipped', '/account/orders/o'],
      ['order', { orderId: 'o', status: 'delivered', url: '/account/orders/o' }, 'Your order was delivered', '/account/orders/o'],
      ['payout', { payoutId: 'x', status: 'paid', amount: 8000, url: '/studio/earnings' }, 'Your payout of €80.00 was paid', '/studio/earnings'],
      ['payout', { payoutId: 'x', status: 'rejected', amount: 8000, url: '/studio/earnings' }, 'Your payout of €80.00 was rejected', '/studio/earnings'],
      ['report', { reportId: 'r', outcome: 'removed', targetType: 'video', url: '/notifications' }, 'Your report was reviewed: the content was removed', '/notifications'],
      ['report', { reportId: 'r', outcome: 'dismissed', targetType: 'video', url: '/notifications' }, 'Your report was reviewed: no rule was broken, so nothing was removed', '/notifications'],
    ];
    for (const [type, payload, text, url] of cases) expect(notificationText(type, payload, '€'), type).toEqual({ text, url, actorName: payload.actorName ?? null });
    // Every type of the enumeration has its own words (none falls to the generic text).
    for (const type of notificationTypeSchema.options) expect(notificationText(type, {}).text).not.toBe('You have a new notification');
  });

  it('never breaks on an unknown type or a broken payload, and never links off the site', () => {
    for (const payload of [null, undefined, 'text', 42, [], { actorName: 7, amount: 'lots', title: {}, url: 5 }]) {
      expect(() => notificationText('comment', payload)).not.toThrow();
    }
    expect(notificationText('comment', { actorName: 7, title: {} })).toEqual({ text: 'Someone commented on your content', url: '/notifications', actorName: null });
    expect(notificationText('tip', { amount: 'lots' }).text).toBe('Someone sent you a tip');
    expect(notificationText('order', { status: 'lost-in-space' }).text).toBe('Your order was updated');
    expect(notificationText('brand-new-type', { url: '/somewhere' })).toEqual({ text: 'You have a new notification', url: '/somewhere', actorName: null });
    expect(notificationText('brand-new-type', null)).toEqual({ text: 'You have a new notification', url: '/notifications', actorName: null });
    for (const url of ['https://evil.example', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)', 'videos/x']) {
      expect(notificationText('purchase', { url }).url, url).toBe('/studio/earnings');
    }
  });
});

describe('unsubscribe tokens', () => {
  it('name one user and one type under the app secret; any change, or another secret, does not verify', () => {
    const token = unsubscribeToken('secret', 'abc123', 'comment');
    expect(readUnsubscribeToken('secret', token)).toEqual({ userId: 'abc123', type: 'comment' });
    const [user, type, sig] = token.split('.') as [string, string, string];
    for (const bad of [`${user}.tip.${sig}`, `abc124.${type}.${sig}`, `${user}.${type}.${sig.slice(1)}`, `${user}.${type}.${sig}x`, `${user}.${type}`, '', `${user}.bogus.${sig}`]) {
      expect(readUnsubscribeToken('secret', bad), bad).toBeNull();
    }
    expect(readUnsubscribeToken('other-secret', token)).toBeNull();
  });
});
