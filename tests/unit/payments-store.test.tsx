// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { OrderView, PlanOffer, SubscriptionItem } from '../../common/schemas/money.js';
import { setNavigator } from '../../src/lib/navigation.js';
import {
  buyVideo,
  createOrderDeliveryStore,
  createPaymentResultStore,
  createSandboxPayStore,
  PAYMENT_POLL_MAX,
  PAYMENT_POLL_MS,
  SANDBOX_REDIRECT_DELAY_MS,
  createSubscriptionsStore,
  downloadProduct,
  pending,
  PURCHASE_ERROR,
  startSubscription,
  SUBSCRIBE_ERROR,
} from '../../src/lib/stores/payments.js';
import { resetAll } from '../../src/lib/stores/reset.js';
import { toasts } from '../../src/lib/stores/toast.js';
import SubscribeButton from '../../src/islands/SubscribeButton.js';
import SubscriptionsList from '../../src/islands/SubscriptionsList.js';
import { reply, stubFetch } from './client-helpers.js';

const toastTexts = () => toasts.get().map((t) => [t.type, t.message]);
const navigate = vi.fn();
const checkout = (url: string) => ({ paymentId: 'pay1', redirectUrl: url });

beforeEach(() => {
  resetAll();
  navigate.mockReset();
  setNavigator(navigate);
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  setNavigator();
});

describe('checkout redirects', () => {
  it('a subscription checkout goes to the provider and stays pending; a second click sends nothing', async () => {
    const { calls } = stubFetch({ 'POST /api/payment/subscribe': reply(200, checkout('https://pay.example/c1')) });
    const first = startSubscription('perf1', 'yearly');
    expect(pending.get()).toEqual({ 'subscribe:perf1': 'yearly' });
    expect(await startSubscription('perf1', 'monthly')).toBe(false);
    expect(await first).toBe(true);
    expect(navigate).toHaveBeenCalledWith('https://pay.example/c1');
    expect(calls.map((c) => c.body)).toEqual([{ performerId: 'perf1', type: 'yearly' }]);
    expect(pending.get()).toEqual({ 'subscribe:perf1': 'yearly' });
  });

  it('a refused checkout is a toast and frees the button; other keys are untouched', async () => {
    stubFetch({
      'POST /api/payment/subscribe': reply(500, 'x'),
      'POST /api/payment/purchase-video/v1': reply(400, { message: 'Unknown coupon', code: 'VALIDATION_FAILED' }),
    });
    pending.setKey('download:p9', 'download');
    expect(await startSubscription('perf1', 'monthly')).toBe(false);
    expect(await buyVideo('v1', '  SAVE10 ')).toBe(false);
    expect(toastTexts()).toEqual([['error', SUBSCRIBE_ERROR], ['error', 'Unknown coupon']]);
    expect(pending.get()).toEqual({ 'download:p9': 'download' });
    expect(navigate).not.toHaveBeenCalled();
    expect(PURCHASE_ERROR).toContain('purchase');
  });

  it('a video purchase sends the trimmed coupon, none when blank', async () => {
    const { calls } = stubFetch({ 'POST /api/payment/purchase-video/v1': reply(200, checkout('/pay/sandbox/1')) });
    await buyVideo('v1', ' SAVE10 ');
    pending.set({});
    await buyVideo('v1', '   ');
    expect(calls.map((c) => c.body)).toEqual([{ couponCode: 'SAVE10' }, {}]);
  });

  it('a download goes to the signed link and frees the button', async () => {
    stubFetch({ 'GET /api/user/assets/products/p1/download-link': reply(200, { downloadLink: '/media/protected/x', expiresAt: 'x', fileName: 'f' }) });
    expect(await downloadProduct('p1')).toBe(true);
    expect(navigate).toHaveBeenCalledWith('/media/protected/x');
    expect(pending.get()).toEqual({});
  });

  it('SubscribeButton shows the pending plan from the store', async () => {
    stubFetch({ 'POST /api/payment/subscribe': () => new Promise<Response>(() => {}) });
    render(<SubscribeButton performerId="perf1" monthlyPrice={999} yearlyPrice={9999} loggedIn />);
    fireEvent.click(screen.getByTestId('subscribe-monthly'));
    await waitFor(() => expect(screen.getByTestId('subscribe-monthly').textContent).toBe('Redirecting…'));
    expect((screen.getByTestId('subscribe-yearly') as HTMLButtonElement).disabled).toBe(true);
  });
});

describe('subscription offers on the buttons', () => {
  const plan = (over: Partial<PlanOffer> = {}): PlanOffer => ({
    type: 'monthly', bundleMonths: null, price: 999, periodDays: 30, discountBps: null, firstPrice: 999, trialDays: null, promotion: null, ...over,
  });

  it('words a trial, a bundle, a promotion with its end and what is left; a bundle click sends bundleMonths', async () => {
    const promotion = { _id: 'pr1', valueBps: 2000, endsAt: '2026-06-30T12:00:00.000Z', left: 12 };
    const plans = [
      plan({ firstPrice: 0, trialDays: 7 }),
      plan({ bundleMonths: 3, price: 2697, periodDays: 90, discountBps: 1000, firstPrice: 2158, promotion }),
      plan({ bundleMonths: 6, price: 5095, periodDays: 180, discountBps: 1500, firstPrice: 5095 }),
      plan({ type: 'yearly', price: 9999, periodDays: 365, firstPrice: 7999, promotion }),
    ];
    const { calls } = stubFetch({ 'POST /api/payment/subscribe': reply(201, checkout('https://pay.example/b3')) });
    render(<SubscribeButton performerId="perf1" monthlyPrice={999} yearlyPrice={9999} plans={plans} loggedIn />);
    expect(screen.getByTestId('subscribe-monthly').textContent).toBe('Start 7-day free trial, then $9.99/month');
    expect(screen.getByTestId('subscribe-bundle3').textContent).toBe('3 months $21.58, then $26.97 (save 10%)');
    expect(screen.getByTestId('subscribe-bundle6').textContent).toBe('6 months $50.95 (save 15%)');
    expect(screen.getByTestId('subscribe-yearly').textContent).toBe('Subscribe · $79.99 first year, then $99.99/year');
    expect(screen.getByTestId('subscribe-promotion').textContent).toBe('20 % off your first period as a new subscriber, until Jun 30, 2026 · 12 left');
    fireEvent.click(screen.getByTestId('subscribe-bundle3'));
    await waitFor(() => expect(navigate).toHaveBeenCalledWith('https://pay.example/b3'));
    expect(calls.map((c) => c.body)).toEqual([{ performerId: 'perf1', type: 'monthly', bundleMonths: 3 }]);
    expect(pending.get()).toEqual({ 'subscribe:perf1': 'bundle3' });
  });

  it('no plans: no buttons; a plain monthly plan reads as before', () => {
    const { container } = render(<SubscribeButton performerId="perf1" monthlyPrice={null} yearlyPrice={null} plans={[]} loggedIn />);
    expect(container.textContent).toBe('');
    cleanup();
    render(<SubscribeButton performerId="perf1" monthlyPrice={999} yearlyPrice={null} plans={[plan()]} loggedIn />);
    expect(screen.getByTestId('subscribe-monthly').textContent).toBe('Subscribe · $9.99/month');
    expect(screen.queryByTestId('subscribe-promotion')).toBeNull();
  });
});

describe('subscriptions and order delivery', () => {
  const sub = (over: Partial<SubscriptionItem> = {}): SubscriptionItem => ({
    _id: 's1', userId: 'u1', performerId: 'perf1', user: null, performer: { _id: 'perf1', name: 'Ada', username: 'ada', avatar: '/a.png' } as SubscriptionItem['performer'],
    type: 'monthly', bundleMonths: null, status: 'active', isLive: true, cancelAtPeriodEnd: false, startedAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-02-01T00:00:00.000Z', cancelledAt: null,
    createdAt: '2026-01-01T00:00:00.000Z', autoRenew: false, nextBillingAt: null, renewalAmount: null, renewalCurrency: null, renewalFailedAt: null,
    graceUntil: null, ...over,
  });

  it('cancel shows the answer and says until when; a failure is a toast', async () => {
    const store = createSubscriptionsStore([sub(), sub({ _id: 's2' })]);
    stubFetch({ 'POST /api/subscriptions/cancel/s1': reply(409, { message: 'Already cancelled', code: 'CONFLICT' }) });
    expect(await store.cancel('s1')).toBe(false);
    expect(toastTexts()).toEqual([['error', 'Already cancelled']]);
    stubFetch({
      'POST /api/subscriptions/cancel/s1': () => {
        expect(store.store.get().busy).toBe('s1');
        return reply(200, sub({ cancelAtPeriodEnd: true }));
      },
    });
    expect(await store.cancel('s1')).toBe(true);
    expect(store.store.get()).toMatchObject({ busy: null, items: [{ _id: 's1', cancelAtPeriodEnd: true }, { _id: 's2', cancelAtPeriodEnd: false }] });
    expect(toastTexts()[1]).toEqual(['success', 'Cancelled. You keep access until 2026-02-01.']);
  });

  it('SubscriptionsList cancels through its store', async () => {
    vi.stubGlobal('confirm', () => true);
    stubFetch({ 'POST /api/subscriptions/cancel/s1': reply(200, sub({ cancelAtPeriodEnd: true })) });
    render(<SubscriptionsList initial={[sub()]} />);
    fireEvent.click(screen.getByTestId('subscription-cancel'));
    await waitFor(() => expect(screen.getByTestId('subscription-status').textContent).toBe('Cancelled (active until the end of the period)'));
  });

  it('SubscriptionsList says when each renews and for how much, a failed renewal and its retries, or that it does not renew', () => {
    render(
      <SubscriptionsList
        currency="EUR"
        currencySymbol="€"
        initial={[
          sub({ _id: 'r', autoRenew: true, nextBillingAt: '2026-02-01T00:00:00.000Z', renewalAmount: 999, renewalCurrency: 'EUR' }),
          sub({ _id: 'u', bundleMonths: 3, autoRenew: true, nextBillingAt: '2026-02-01T00:00:00.000Z', renewalAmount: 500, renewalCurrency: 'USD' }),
          sub({ _id: 'f', isLive: false, autoRenew: true, renewalFailedAt: '2026-02-01T00:00:00.000Z', graceUntil: '2026-02-04T00:00:00.000Z' }),
          sub({ _id: 'c', cancelAtPeriodEnd: true }),
          sub({ _id: 'p' }),
          sub({ _id: 'e', type: 'yearly', isLive: false, status: 'expired' }),
        ]}
      />,
    );
    expect(screen.getAllByTestId('subscription-plan').map((c) => c.textContent)).toEqual(['Monthly', '3 months', 'Monthly', 'Monthly', 'Monthly', 'Yearly']);
    expect(screen.getAllByTestId('subscription-billing').map((c) => c.textContent)).toEqual([
      'Renews 2026-02-01 for €9.99',
      'Renews 2026-02-01 for USD 5.00',
      'Payment failed: we retry until 2026-02-04, then the subscription ends',
      'Ends 2026-02-01, no further charge',
      'Ends 2026-02-01 (paid once, does not renew)',
      '—',
    ]);
    expect(screen.getAllByTestId('subscription-status')[2]!.textContent).toBe('Payment failed');
    // Renewing, failing (its retries can be stopped) and prepaid rows can be cancelled; cancelled and ended ones cannot.
    expect(screen.getAllByTestId('subscription-row').map((r) => !!r.querySelector('[data-testid="subscription-cancel"]'))).toEqual([true, true, true, false, true, false]);
  });

  it('a delivery update answers the saved order; a failure is a toast and null', async () => {
    const store = createOrderDeliveryStore({ _id: 'o1' });
    const saved = { _id: 'o1', orderNumber: 'A-1', deliveryStatus: 'shipping', trackingCode: 'T1' } as OrderView;
    const { calls } = stubFetch({ 'PUT /api/orders/o1/update': reply(200, saved) });
    expect(await store.save('shipping', 'T1')).toEqual(saved);
    expect(calls[0]!.body).toEqual({ deliveryStatus: 'shipping', trackingCode: 'T1' });
    expect(toastTexts()).toEqual([['success', 'Order A-1 updated']]);
    stubFetch({ 'PUT /api/orders/o1/update': reply(500, 'x') });
    expect(await store.save('delivered', null)).toBeNull();
    expect(store.store.get().busy).toBe(false);
    expect(toastTexts()[1]).toEqual(['error', 'Could not update the order']);
  });
});

describe('after a checkout', () => {
  it('a pending payment is asked for until it settles, at most PAYMENT_POLL_MAX times', async () => {
    vi.useFakeTimers();
    let answer = 'pending';
    const { calls } = stubFetch({ 'GET /api/payment/status/pay1': () => reply(200, { _id: 'pay1', status: answer }) });
    const payment = createPaymentResultStore('pay1', 'pending');
    const stop = payment.follow();
    await vi.advanceTimersByTimeAsync(PAYMENT_POLL_MS * 2);
    expect(calls).toHaveLength(2);
    expect(payment.status.get()).toBe('pending');
    answer = 'success';
    await vi.advanceTimersByTimeAsync(PAYMENT_POLL_MS);
    expect(payment.status.get()).toBe('success');
    stop();
    await vi.advanceTimersByTimeAsync(PAYMENT_POLL_MS * 3);
    expect(calls).toHaveLength(3);

    const settled = createPaymentResultStore('pay1', 'failed');
    settled.follow();
    await vi.advanceTimersByTimeAsync(PAYMENT_POLL_MS * 3);
    expect(calls).toHaveLength(3);

    answer = 'pending';
    createPaymentResultStore('pay1', 'pending').follow();
    await vi.advanceTimersByTimeAsync(PAYMENT_POLL_MS * (PAYMENT_POLL_MAX + 5));
    expect(calls).toHaveLength(3 + PAYMENT_POLL_MAX);
  });

  it('a sandbox choice goes to the result; a refused one shows why, then goes where the server said', async () => {
    const sandbox = createSandboxPayStore('ch1');
    const { calls } = stubFetch({ 'POST /api/payment/sandbox/ch1/complete': reply(200, { status: 'paid', delivered: true, redirectUrl: '/payment/result/pay1' }) });
    await sandbox.act('approve');
    expect(calls[0]!.body).toEqual({ outcome: 'approve' });
    expect(navigate).toHaveBeenCalledWith('/payment/result/pay1');
    expect(sandbox.store.get()).toEqual({ busy: 'approve', error: null });

    vi.useFakeTimers();
    const late = createSandboxPayStore('ch2');
    stubFetch({ 'POST /api/payment/sandbox/ch2/complete': reply(409, { message: 'This checkout is over', code: 'CONFLICT', details: { redirectUrl: '/payment/result/pay2' } }) });
    await late.act('decline');
    expect(late.store.get()).toEqual({ busy: null, error: 'This checkout is over' });
    expect(navigate).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(SANDBOX_REDIRECT_DELAY_MS);
    expect(navigate).toHaveBeenLastCalledWith('/payment/result/pay2');
  });
});
