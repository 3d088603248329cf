import { formatMoney, formatPercent } from '../../../../common/money.js';
import { itemHref, performerHref, userHref } from './links.js';

/**
 * The audit log in words: what an entry's action means ("created the coupon"), what it was done to (a name and a
 * link), and its details as labelled values in the site's units (money, percentages, yes/no) instead of raw JSON.
 * Pure functions of an entry of GET /admin/audit (server/admin/admin.repository.ts listAuditNamed).
 */

export interface AuditEntryView {
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
  target: { type: string; _id: string | null; name: string | null; username: string | null; parentId: string | null; exists: boolean } | null;
}

const VERBS: Record<string, string> = {
  'admin.create': 'created the admin account',
  'admin.promote': 'made an admin of',
  'banner.create': 'created the banner',
  'banner.update': 'changed the banner',
  'banner.delete': 'deleted the banner',
  'banner.image': 'uploaded a new picture for the banner',
  'category.create': 'created the category',
  'category.update': 'changed the category',
  'category.delete': 'deleted the category',
  'comment.delete': 'deleted the comment',
  'content.hide': 'hid',
  'content.status': 'changed the status of',
  'country_block.create': 'blocked visitors from',
  'country_block.delete': 'unblocked visitors from',
  'coupon.create': 'created the coupon',
  'coupon.update': 'changed the coupon',
  'coupon.delete': 'deleted the coupon',
  'coupon.deactivate': 'deactivated the coupon (it was used, so it is kept)',
  'earnings.payout': 'recorded a payout to',
  'payout.approve': 'approved the payout request of',
  'payout.reject': 'rejected the payout request of',
  'payout.pay': 'marked paid the payout request of',
  'payout.details.reveal': 'looked at the full payout details of',
  'order.delivery': 'updated the delivery of order',
  'package.create': 'created the package',
  'package.update': 'changed the package',
  'package.delete': 'deleted the package',
  'payment.refund': 'refunded the payment of',
  'performer.approve': 'approved the performer',
  'performer.unapprove': 'withdrew the approval of',
  'performer.commission': 'changed the commission of',
  'settings.update': 'changed',
  'takedown.uphold': 'upheld the takedown of',
  'takedown.restore': 'restored after a takedown request',
  'settings.payment.update': 'changed',
  'settings.image.upload': 'uploaded a new picture for',
  'settings.watermark.update': 'changed',
  'watermark.run.start': 'started (or found running) the watermark run',
  'user.suspend': 'suspended',
  'user.reactivate': 'reactivated',
  'verification.approve': 'verified the identity of',
  'verification.reject': 'rejected the identity verification of',
};

/** "coupon.create" → "created the coupon"; an action this list does not know reads as its words ("coupon create"). */
export function auditVerb(action: string): string {
  return VERBS[action] ?? action.replace(/[._]+/g, ' ');
}

const LABELS: Record<string, string> = {
  valueBps: 'Discount', commissionBps: 'Commission', maxUses: 'Number of uses', expiresAt: 'Expires', price: 'Price', amount: 'Amount',
  durationDays: 'Duration (days)', deliveryStatus: 'Delivery', trackingCode: 'Tracking code', siteName: 'Site name', logoUrl: 'Logo', favicon: 'Favicon',
  loginPlaceholderImage: 'Login picture', menus: 'Menus', footerContent: 'Footer', recordKeepingStatement: 'Record-keeping statement', currency: 'Currency', currencySymbol: 'Currency symbol',
  maintenanceMode: 'Maintenance mode', ageGateEnabled: 'Age gate', ageGateCountries: 'Age gate countries', unapprovedItemQuota: 'Drafts before approval', verificationDocumentRetentionDays: 'Identity pictures kept (days)', paymentGateway: 'Payment gateway', checkoutExpiryMinutes: 'Checkout expiry (minutes)',
  stockHoldMaxPerBuyer: 'Units one buyer may hold', renewalGraceDays: 'Renewal grace days', renewalReminderDays: 'Yearly renewal reminder (days before)', sessionsRevoked: 'Sessions ended', earnings: 'Earnings paid', payoutId: 'Payout', fileId: 'File',
  payoutHoldDays: 'Payout hold (days)', payoutMinimum: 'Smallest payout', tipMinimum: 'Smallest tip', tipMaximum: 'Largest tip', reference: 'Transfer reference', reason: 'Reason', method: 'Paid by',
  objectType: 'On a', objectId: 'On id', userId: 'By user', from: 'Before', to: 'After', isNewTab: 'New tab', keys: 'Changed', takedown: 'Takedown request', references: 'Takedown requests', requests: 'Requests', itemStatus: 'Item status now',
};
/** "checkoutExpiryMinutes" → "Checkout expiry minutes" when the list has no better label. */
export const labelOf = (key: string) => LABELS[key] ?? (key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase()).replace(/ ([A-Z])/g, (_, c: string) => ` ${c.toLowerCase()}`));

const MONEY_KEYS = new Set(['price', 'amount', 'originalPrice', 'discount', 'totalPrice', 'payoutMinimum', 'tipMinimum', 'tipMaximum']);

/** A detail's value in the site's units: minor units as money, basis points as a percent, flags as yes/no, menus as "Label → /path". */
export function detailValue(key: string, value: unknown, symbol: string, action = ''): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  const isRate = key.endsWith('Bps') || (action === 'performer.commission' && (key === 'from' || key === 'to'));
  if (typeof value === 'number' && Number.isInteger(value) && isRate) return formatPercent(value);
  if (typeof value === 'number' && Number.isInteger(value) && MONEY_KEYS.has(key)) return formatMoney(value, symbol);
  if (Array.isArray(value)) {
    if (value.every((v) => v && typeof v === 'object' && 'title' in v && 'path' in v)) {
      return (value as Array<{ title: string; path: string; section?: string }>).map((m) => `${m.title} → ${m.path}${m.section ? ` (${m.section})` : ''}`).join(', ');
    }
    if (value.every((v) => typeof v === 'string')) return (value as string[]).map(labelOf).join(', ');
    return JSON.stringify(value);
  }
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The details as labelled rows; a settings change lists the values it set, not its bookkeeping. */
export function detailRows(entry: Pick<AuditEntryView, 'action' | 'details'>, symbol: string): Array<{ label: string; value: string }> {
  let d = entry.details;
  if (entry.action === 'settings.update' && d.values && typeof d.values === 'object' && !Array.isArray(d.values)) d = d.values as Record<string, unknown>;
  return Object.entries(d).map(([k, v]) => ({ label: labelOf(k), value: detailValue(k, v, symbol, entry.action) }));
}

/** What the entry was done to: a name, and where the console or site shows it (null: nowhere, e.g. deleted). */
export function auditTarget(entry: AuditEntryView): { label: string; href: string | null; deleted: boolean } | null {
  const t = entry.target;
  if (!t) return null;
  const name = t.name ?? t._id ?? '';
  const q = (path: string, value: string) => `${path}?q=${encodeURIComponent(value)}`;
  const deleted = !t.exists && !['country', 'settings'].includes(t.type);
  if (deleted) return { label: name ? `${name}` : `a ${t.type}`, href: null, deleted: true };
  switch (t.type) {
    case 'user':
      return { label: name, href: t.username ? userHref(t.username) : null, deleted };
    case 'performer':
      return { label: name, href: t.username ? performerHref(t.username) : null, deleted };
    case 'coupon':
      return { label: name, href: q('/admin/coupons', name), deleted };
    case 'package':
      return { label: name, href: '/admin/packages', deleted };
    case 'banner':
      return { label: name, href: '/admin/banners', deleted };
    case 'category':
      return { label: name, href: '/admin/categories', deleted };
    case 'order':
      return { label: name, href: q('/admin/orders', name), deleted };
    case 'payment':
      return { label: t.name ?? 'a payment', href: t._id ? q('/admin/payments', t._id) : null, deleted };
    case 'comment':
      return { label: `“${name}”`, href: '/admin/comments', deleted };
    case 'country':
      return { label: t.name ?? t._id ?? 'a country', href: '/admin/country-blocks', deleted };
    case 'settings': {
      // "changed the site settings", "changed the payment settings", "uploaded a new picture for the logo".
      const label = entry.action === 'settings.payment.update' ? 'the payment settings' : entry.action === 'settings.watermark.update' ? 'the watermark settings' : t._id ? `the ${labelOf(t._id).toLowerCase()}` : 'the site settings';
      return { label, href: '/admin/settings', deleted };
    }
    default: {
      const href = t._id ? itemHref({ type: t.type, _id: t._id, username: t.username, parentId: t.parentId }) : null;
      return { label: `${t.type} “${name}”`, href, deleted };
    }
  }
}
