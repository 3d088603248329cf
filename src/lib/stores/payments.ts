import { atom, map } from 'nanostores';
import type { OrderView, SubscriptionItem, TipRequest } from '../../../common/schemas/money.js';
import type { DeliveryStatus, PaymentStatus } from '../../../common/enums.js';
import { ApiError, errorMessage } from '../api/error.js';
import { call, via } from './client.js';
import { navigate } from '../navigation.js';
import { registerReset } from './reset.js';
import { toast } from './toast.js';

/**
 * The buyer's side of money from the islands: starting a checkout (subscription, video, gallery or post purchase) and
 * going to the provider's hosted page, a bought product's download, cancelling a subscription, and the performer's
 * delivery update.
 *
 * `pending` says which action is in flight, keyed by what it acts on (`subscribe:<performerId>`, `video:<id>`,
 * `gallery:<id>`, `post:<id>`, `message:<id>`, `download:<productId>`), so two buttons for different things never share a busy state. It only changes on a
 * click, in the browser, so the server's render of an island always reads it empty. A checkout that answered
 * stays pending: the page is leaving for the provider, and a second click must not start a second checkout.
 */
export const pending = map<Record<string, string>>({});

export const SUBSCRIBE_ERROR = 'Could not start the subscription, please try again';
export const PURCHASE_ERROR = 'Could not start the purchase, please try again';
export const TIP_ERROR = 'Could not start the tip, please try again';
export const DOWNLOAD_ERROR = 'Could not get the download, please try again';

export const pendingKey = {
  subscribe: (performerId: string) => `subscribe:${performerId}`,
  video: (videoId: string) => `video:${videoId}`,
  post: (postId: string) => `post:${postId}`,
  gallery: (galleryId: string) => `gallery:${galleryId}`,
  message: (messageId: string) => `message:${messageId}`,
  download: (productId: string) => `download:${productId}`,
  tip: (performerId: string) => `tip:${performerId}`,
};

function clear(key: string): void {
  const { [key]: _gone, ...rest } = pending.get();
  pending.set(rest);
}

/** Runs `send` once per key at a time; on its answer goes to the URL it names. */
async function redirectAfter(key: string, label: string, send: () => Promise<string>, failure: string, keepPending: boolean): Promise<boolean> {
  if (pending.get()[key]) return false;
  pending.setKey(key, label);
  try {
    navigate(await send());
    if (!keepPending) clear(key);
    return true;
  } catch (err) {
    toast.error(errorMessage(err, failure));
    clear(key);
    return false;
  }
}

/** A plan: monthly, yearly, or a bundle of 3, 6 or 12 monthly periods (its pending label is `bundle<months>`). */
export function startSubscription(performerId: string, type: 'monthly' | 'yearly', bundleMonths?: 3 | 6 | 12): Promise<boolean> {
  const body = { performerId, type, ...(bundleMonths ? { bundleMonths } : {}) };
  return redirectAfter(pendingKey.subscribe(performerId), bundleMonths ? `bundle${bundleMonths}` : type, async () => (await call(({ money }) => money.subscribe(body))).redirectUrl, SUBSCRIBE_ERROR, true);
}

export function buyVideo(videoId: string, couponCode = ''): Promise<boolean> {
  const code = couponCode.trim();
  return redirectAfter(pendingKey.video(videoId), 'buy', async () => (await call(({ money }) => money.purchaseVideo(videoId, code ? { couponCode: code } : {}))).redirectUrl, PURCHASE_ERROR, true);
}

export function buyPost(postId: string, couponCode = ''): Promise<boolean> {
  const code = couponCode.trim();
  return redirectAfter(pendingKey.post(postId), 'buy', async () => (await call(({ money }) => money.purchasePost(postId, code ? { couponCode: code } : {}))).redirectUrl, PURCHASE_ERROR, true);
}

export function buyGallery(galleryId: string, couponCode = ''): Promise<boolean> {
  const code = couponCode.trim();
  return redirectAfter(pendingKey.gallery(galleryId), 'buy', async () => (await call(({ money }) => money.purchaseGallery(galleryId, code ? { couponCode: code } : {}))).redirectUrl, PURCHASE_ERROR, true);
}

/** Unlocks a paid direct message through the provider's hosted page (it sends the fan back to the conversation). */
export function buyMessage(messageId: string): Promise<boolean> {
  return redirectAfter(pendingKey.message(messageId), 'buy', async () => (await call(({ money }) => money.purchaseMessage(messageId))).redirectUrl, PURCHASE_ERROR, true);
}

/** A tip (amount, note, where it is given) through the provider's hosted page. */
export function sendTip(body: TipRequest): Promise<boolean> {
  return redirectAfter(pendingKey.tip(body.performerId), 'tip', async () => (await call(({ money }) => money.tip(body))).redirectUrl, TIP_ERROR, true);
}

/** Asks for a short-lived signed link and goes there (the file downloads, the page stays). */
export function downloadProduct(productId: string): Promise<boolean> {
  return redirectAfter(pendingKey.download(productId), 'download', async () => (await call(({ catalogue }) => catalogue.productDownload(productId))).downloadLink, DOWNLOAD_ERROR, false);
}

registerReset('payments', () => pending.set({}));

// ---------------------------------------------------------------------------------------------------------------
// Per island instance (seeded from the page's render, so nothing is shared between requests on the server).

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '—');

/** My subscriptions, with cancel at the end of the paid period. */
export function createSubscriptionsStore(initial: SubscriptionItem[]) {
  const store = map<{ items: SubscriptionItem[]; busy: string | null }>({ items: initial, busy: null });
  return {
    store,
    async cancel(id: string): Promise<boolean> {
      if (store.get().busy) return false;
      store.setKey('busy', id);
      try {
        const updated = await call(({ money }) => money.cancelSubscription(id));
        store.setKey('items', store.get().items.map((x) => (x._id === updated._id ? updated : x)));
        toast.success(`Cancelled. You keep access until ${day(updated.expiresAt)}.`);
        return true;
      } catch (err) {
        toast.error(errorMessage(err, 'Could not cancel, please try again'));
        return false;
      } finally {
        store.setKey('busy', null);
      }
    },
  };
}

/** The performer's delivery update of one order. */
export function createOrderDeliveryStore(order: Pick<OrderView, '_id'>) {
  const store = map<{ busy: boolean }>({ busy: false });
  return {
    store,
    /** Answers the saved order (the island shows its status and tracking code), or null after an error toast. */
    async save(deliveryStatus: DeliveryStatus, trackingCode: string | null): Promise<OrderView | null> {
      if (store.get().busy) return null;
      store.setKey('busy', true);
      try {
        const updated = await call(({ money }) => money.updateOrder(order._id, { deliveryStatus, trackingCode }));
        toast.success(`Order ${updated.orderNumber} updated`);
        return updated;
      } catch (err) {
        toast.error(errorMessage(err, 'Could not update the order'));
        return null;
      } finally {
        store.setKey('busy', false);
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// After a checkout: the result page and the sandbox provider's page.

/** How often, and how many times, a pending payment's status is asked for while its webhook has not arrived. */
export const PAYMENT_POLL_MS = 1500;
export const PAYMENT_POLL_MAX = 40;

/** A payment's status on the result page; `follow` polls while it is pending (a failed ask waits for the next tick). */
export function createPaymentResultStore(paymentId: string, initial: PaymentStatus) {
  const status = atom<PaymentStatus>(initial);
  return {
    status,
    /** Starts polling when pending; answers the stop function (the island's effect cleanup). */
    follow(): () => void {
      if (status.get() !== 'pending') return () => {};
      let polls = 0;
      const timer = setInterval(() => {
        polls += 1;
        if (polls > PAYMENT_POLL_MAX) return clearInterval(timer);
        call(({ money }) => money.paymentStatus(paymentId)).then((p) => status.set(p.status), () => {});
      }, PAYMENT_POLL_MS);
      return () => clearInterval(timer);
    },
  };
}

export const SANDBOX_ERROR = 'The payment could not be processed';
/** How long a refused sandbox choice's message shows before the buyer is sent where the server said. */
export const SANDBOX_REDIRECT_DELAY_MS = 1500;

/** The sandbox provider's buttons: the choice is recorded and the buyer sent back to the result page. */
export function createSandboxPayStore(chargeId: string) {
  const store = map<{ busy: string | null; error: string | null }>({ busy: null, error: null });
  return {
    store,
    async act(outcome: 'approve' | 'decline' | 'cancel'): Promise<void> {
      if (store.get().busy) return;
      store.set({ busy: outcome, error: null });
      try {
        const res = await call(({ money }) => money.sandboxComplete(chargeId, outcome));
        navigate(res.redirectUrl);
      } catch (err) {
        // A checkout already over answers where its result is: show why, then go there.
        const redirect = err instanceof ApiError ? (err.body.details as { redirectUrl?: string } | undefined)?.redirectUrl : undefined;
        store.set({ busy: null, error: errorMessage(err, SANDBOX_ERROR) });
        if (redirect) setTimeout(() => navigate(redirect), SANDBOX_REDIRECT_DELAY_MS);
      }
    },
  };
}

/** The cart's and the checkout form's requests: a cart line's product, a coupon's price, placing the order. */
export const checkout = {
  product: via('catalogue', 'product'),
  applyCoupon: via('money', 'applyCoupon'),
  purchaseProducts: via('money', 'purchaseProducts'),
};
