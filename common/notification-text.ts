import { formatMoney } from './money.js';

/**
 * The one place a notification's type and payload become the words and the link a person sees (the list, the live
 * event, the mail). Payloads follow the convention of server/notifications/README.md; anything missing or of the wrong
 * kind is left out of the words, and an unknown type gets a generic text, so an old or odd row never breaks the list.
 */

export interface NotificationText {
  text: string;
  /** A site path: the payload's `url` when it is one, else where the type's page is. */
  url: string;
  actorName: string | null;
}

type Payload = Record<string, unknown>;

const str = (p: Payload, key: string): string | null => {
  const v = p[key];
  return typeof v === 'string' && v.trim() ? v.trim() : null;
};
const num = (p: Payload, key: string): number | null => {
  const v = p[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
};
/** Only a path of this site: `/x…`, never `//host` or `http:`, so a payload cannot send anyone elsewhere. */
const sitePath = (v: string | null): string | null => (v && /^\/(?![/\\])/.test(v) ? v : null);
const quoted = (title: string | null) => (title ? ` “${title}”` : '');

const FALLBACK_URL: Record<string, string> = {
  message: '/notifications',
  tip: '/studio/earnings',
  subscriber: '/studio',
  comment: '/notifications',
  purchase: '/studio/earnings',
  order: '/account/orders',
  payout: '/studio/earnings',
  report: '/notifications',
  verification: '/studio/verification',
  data_export: '/account/data',
  co_performer: '/studio/co-performers',
};

const ORDER_STATUS: Record<string, string> = {
  created: 'was placed',
  processing: 'is being prepared',
  shipping: 'has shipped',
  shipped: 'has shipped',
  delivered: 'was delivered',
  cancelled: 'was cancelled',
};
const PAYOUT_STATUS: Record<string, string> = {
  requested: 'was requested',
  approved: 'was approved',
  paid: 'was paid',
  rejected: 'was rejected',
};
const REPORT_OUTCOME: Record<string, string> = {
  removed: 'the content was removed',
  suspended: 'the account was suspended',
  dismissed: 'no rule was broken, so nothing was removed',
};

/** The text and link of a notification. `currencySymbol` for amounts (integer cents). */
export function notificationText(type: string, payload: unknown, currencySymbol = '$'): NotificationText {
  const p: Payload = payload && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Payload) : {};
  const actorName = str(p, 'actorName');
  const who = actorName ?? 'Someone';
  const title = str(p, 'title');
  const amount = num(p, 'amount');
  const money = amount !== null ? formatMoney(amount, currencySymbol) : null;
  let text: string;
  switch (type) {
    case 'message':
      text = `${who} sent you a message`;
      break;
    case 'tip':
      // A tip given in a conversation says so: its link is that conversation.
      text = `${money ? `${who} tipped you ${money}` : `${who} sent you a tip`}${str(p, 'objectType') === 'conversation' ? ' in messages' : ''}`;
      break;
    case 'subscriber':
      text = `${who} subscribed to you`;
      break;
    case 'comment':
      text = `${who} commented on${quoted(title) || ' your content'}`;
      break;
    case 'purchase':
      text = `${who} bought${quoted(title) || ' an item'}${money ? ` for ${money}` : ''}`;
      break;
    case 'order': {
      const status = str(p, 'status');
      text = `Your order ${(status && ORDER_STATUS[status]) || 'was updated'}`;
      break;
    }
    case 'payout': {
      const status = str(p, 'status');
      text = `Your payout${money ? ` of ${money}` : ''} ${(status && PAYOUT_STATUS[status]) || 'was updated'}`;
      break;
    }
    case 'report': {
      const outcome = str(p, 'outcome');
      text = `Your report was reviewed${outcome && REPORT_OUTCOME[outcome] ? `: ${REPORT_OUTCOME[outcome]}` : ''}`;
      break;
    }
    case 'verification': {
      const status = str(p, 'status');
      text = status === 'approved' ? 'Your identity is verified: you can publish and sell' : status === 'rejected' ? 'Your identity verification was rejected: see why and send it again' : 'Your identity verification was updated';
      break;
    }
    case 'data_export':
      text = 'Your data export is ready to download';
      break;
    case 'co_performer': {
      // A request to confirm (to the named performer), or its answer (to the item's performer).
      const action = str(p, 'action');
      text =
        action === 'confirmed'
          ? `${who} confirmed appearing in${quoted(title) || ' your item'}`
          : action === 'declined'
            ? `${who} declined appearing in${quoted(title) || ' your item'}`
            : `${who} named you as a co-performer in${quoted(title) || ' an item'}: please confirm or decline`;
      break;
    }
    default:
      text = 'You have a new notification';
  }
  return { text, url: sitePath(str(p, 'url')) ?? FALLBACK_URL[type] ?? '/notifications', actorName };
}

/** The subject of a notification's mail and the words of its email choice, per type. */
export const NOTIFICATION_TYPE_LABELS: Record<string, string> = {
  message: 'Direct messages',
  tip: 'Tips',
  subscriber: 'New subscribers',
  comment: 'Comments on your content',
  purchase: 'Sales of your items',
  order: 'Your orders',
  payout: 'Your payouts',
  report: 'Outcomes of your reports',
  verification: 'Your identity verification',
  co_performer: 'Co-performer requests and answers',
};
