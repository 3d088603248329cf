// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PayoutBalance, PayoutDetailsView, PayoutRequest } from '../../common/schemas/money.js';
import type { PayoutDetailsFull } from '../../common/schemas/admin.js';
import { ApiError, NETWORK_ERROR_MESSAGE } from '../../src/lib/api/error.js';
import { setNavigator } from '../../src/lib/navigation.js';
import { resetAll } from '../../src/lib/stores/reset.js';
import { PAYOUT_DETAILS_SAVED, PAYOUT_REQUESTED } from '../../src/lib/stores/studio.js';
import { toasts } from '../../src/lib/stores/toast.js';
import StudioPayouts from '../../src/islands/studio/StudioPayouts.js';
import { reply, stubFetch } from './client-helpers.js';

const send = vi.fn();
vi.mock('../../src/lib/stores/admin.js', () => ({ admin: { send: (...args: unknown[]) => send(...args), upload: vi.fn() } }));
const { default: PayoutDetailsReveal } = await import('../../src/islands/admin/PayoutDetailsReveal.js');

/**
 * The payout islands: the studio's balance, payout details and request (StudioPayouts, through its store and the
 * studio client, fetch stubbed), and the console's audited reveal of a payout's full details (PayoutDetailsReveal).
 */

const toastTexts = () => toasts.get().map((t) => [t.type, t.message]);

function balance(over: Partial<PayoutBalance> = {}): PayoutBalance {
  return {
    currency: 'USD', pending: 2500, available: 7000, requested: 0, paid: 1000, test: 400, holdDays: 7, minimum: 5000, hasDetails: false, openRequest: null, blocked: 'details',
    ...over,
  };
}
const bankView: PayoutDetailsView = { method: 'bank', accountHolder: 'Mona Payee', account: '•••• 3000', bankCode: 'COBADEFFXXX', bankCountry: 'DE', updatedAt: '2026-03-01T10:00:00.000Z' };
function payout(over: Partial<PayoutRequest> = {}): PayoutRequest {
  return {
    _id: 'po1', performerId: 'perf', status: 'requested', amount: 7000, currency: 'USD', earningsCount: 2, account: { method: 'bank', accountHolder: 'Mona Payee', account: '•••• 3000', bankCode: 'COBADEFFXXX', bankCountry: 'DE' },
    reference: null, reason: null, note: null, createdAt: '2026-03-02T10:00:00.000Z', approvedAt: null, paidAt: null, rejectedAt: null,
    ...over,
  };
}

beforeEach(() => {
  resetAll();
  setNavigator(vi.fn());
  send.mockReset();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  setNavigator();
});

describe('StudioPayouts', () => {
  it('shows the balance and why no payout can be asked for yet; a refused IBAN is shown at its field and nothing changes', async () => {
    const { calls } = stubFetch({
      'PUT /api/performer/payout-details': reply(400, {
        message: 'Invalid body.accountNumber: This IBAN is not valid: check it for a typo', code: 'VALIDATION_FAILED',
        details: [{ path: 'body.accountNumber', message: 'This IBAN is not valid: check it for a typo' }],
      }),
    });
    render(<StudioPayouts initial={{ balance: balance(), details: null, payouts: [] }} currencySymbol="$" />);
    expect(screen.getByTestId('payout-available').textContent).toBe('$70.00');
    expect(screen.getByTestId('payout-pending').textContent).toBe('$25.00');
    expect(screen.getByTestId('payout-requested').textContent).toBe('$0.00');
    expect(screen.getByTestId('payout-paid').textContent).toBe('$10.00');
    expect(screen.getByTestId('payout-blocked').textContent).toBe('Add your payout details below to request a payout.');
    expect((screen.getByTestId('payout-request') as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId('payouts-empty')).toBeTruthy();

    fireEvent.change(screen.getByTestId('payout-holder'), { target: { value: 'Mona Payee' } });
    fireEvent.change(screen.getByTestId('payout-account-number'), { target: { value: 'DE89 3704 0044 0532 0130 01' } });
    fireEvent.change(screen.getByTestId('payout-bank-country'), { target: { value: 'DE' } });
    fireEvent.submit(screen.getByTestId('payout-details-form'));
    const form = screen.getByTestId('payout-details-form');
    expect((await within(form).findByRole('alert')).textContent).toBe('This IBAN is not valid: check it for a typo');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.body).toEqual({ method: 'bank', accountHolder: 'Mona Payee', accountNumber: 'DE89 3704 0044 0532 0130 01', bankCode: null, bankCountry: 'DE' });
    // Said beside the field, not again in a toast.
    expect(toastTexts()).toEqual([]);
    expect(screen.queryByTestId('payout-details')).toBeNull();
  });

  it('saves PayPal details, shows them masked, then requests the available balance: the payout heads the list and the figures move', async () => {
    const { calls } = stubFetch({
      'PUT /api/performer/payout-details': reply(200, { method: 'paypal', accountHolder: null, account: 'm••••@example.com', bankCode: null, bankCountry: null, updatedAt: '2026-03-02T09:00:00.000Z' }),
      'GET /api/performer/payouts/balance': () =>
        calls.some((c) => c.method === 'POST')
          ? reply(200, balance({ available: 0, requested: 7000, hasDetails: true, blocked: 'open', openRequest: payout() }))
          : reply(200, balance({ hasDetails: true, blocked: null })),
      'POST /api/performer/payouts': reply(201, payout({ account: { method: 'paypal', accountHolder: null, account: 'm••••@example.com', bankCode: null, bankCountry: null } })),
    });
    render(<StudioPayouts initial={{ balance: balance(), details: null, payouts: [] }} currencySymbol="$" />);
    fireEvent.click(screen.getByTestId('payout-method-paypal'));
    expect(screen.queryByTestId('payout-holder')).toBeNull();
    fireEvent.change(screen.getByTestId('payout-paypal-email'), { target: { value: 'mona@example.com' } });
    fireEvent.submit(screen.getByTestId('payout-details-form'));
    expect((await screen.findByTestId('payout-account')).textContent).toBe('m••••@example.com');
    expect(calls[0]!.body).toEqual({ method: 'paypal', paypalEmail: 'mona@example.com' });
    await waitFor(() => expect((screen.getByTestId('payout-request') as HTMLButtonElement).disabled).toBe(false));
    expect(screen.queryByTestId('payout-blocked')).toBeNull();
    expect(screen.getByTestId('payout-request').textContent).toBe('Request payout of $70.00');

    fireEvent.click(screen.getByTestId('payout-request'));
    const row = await screen.findByTestId('payout-row');
    expect(row.getAttribute('data-status')).toBe('requested');
    expect(row.textContent).toContain('$70.00');
    expect(row.textContent).toContain('m••••@example.com');
    await waitFor(() => expect(screen.getByTestId('payout-requested').textContent).toBe('$70.00'));
    expect(screen.getByTestId('payout-available').textContent).toBe('$0.00');
    expect(screen.getByTestId('payout-blocked').textContent).toBe('Your payout of $70.00 is requested. You can request the next one once it is paid or rejected.');
    expect((screen.getByTestId('payout-request') as HTMLButtonElement).disabled).toBe(true);
    expect(toastTexts()).toEqual([
      ['success', PAYOUT_DETAILS_SAVED],
      ['success', PAYOUT_REQUESTED],
    ]);
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);
  });

  it('a refused request is a toast with the server\'s words; the list stays and the figures are read again', async () => {
    stubFetch({
      'POST /api/performer/payouts': reply(400, { message: 'The smallest payout is $50.00; $49.00 is available now', code: 'BELOW_MINIMUM', details: { available: 4900, minimum: 5000 } }),
      'GET /api/performer/payouts/balance': reply(200, balance({ available: 4900, hasDetails: true, blocked: 'minimum' })),
    });
    const paid = payout({ _id: 'po0', status: 'paid', reference: 'SEPA-1', paidAt: '2026-02-01T00:00:00.000Z' });
    render(<StudioPayouts initial={{ balance: balance({ hasDetails: true, blocked: null }), details: bankView, payouts: [paid] }} currencySymbol="$" />);
    expect(screen.getByTestId('payout-account').textContent).toBe('•••• 3000');
    expect(screen.getByTestId('payout-row').textContent).toContain('Paid 2026-02-01 · reference SEPA-1');
    fireEvent.click(screen.getByTestId('payout-request'));
    await waitFor(() => expect(toastTexts()).toEqual([['error', 'The smallest payout is $50.00; $49.00 is available now']]));
    await waitFor(() => expect(screen.getByTestId('payout-blocked').textContent).toBe('Payouts start at $50.00; $49.00 is available now.'));
    expect(screen.getAllByTestId('payout-row')).toHaveLength(1);

    // Changing the details opens the form; cancelling keeps the masked details.
    fireEvent.click(screen.getByTestId('payout-details-edit'));
    expect(screen.getByTestId('payout-details-form')).toBeTruthy();
    fireEvent.click(screen.getByText('Cancel'));
    expect(screen.getByTestId('payout-account').textContent).toBe('•••• 3000');
  });

  it('a save that does not reach the server is a toast', async () => {
    stubFetch({ 'PUT /api/performer/payout-details': () => Promise.reject(new TypeError('Failed to fetch')) });
    render(<StudioPayouts initial={{ balance: balance(), details: null, payouts: [] }} currencySymbol="$" />);
    fireEvent.click(screen.getByTestId('payout-method-paypal'));
    fireEvent.change(screen.getByTestId('payout-paypal-email'), { target: { value: 'mona@example.com' } });
    fireEvent.submit(screen.getByTestId('payout-details-form'));
    await waitFor(() => expect(toastTexts()).toEqual([['error', NETWORK_ERROR_MESSAGE]]));
    expect((screen.getByTestId('payout-details-save') as HTMLButtonElement).disabled).toBe(false);
  });

  it('shows a rejected payout with its reason', () => {
    const rejected = payout({ status: 'rejected', reason: 'Holder name does not match', rejectedAt: '2026-03-03T00:00:00.000Z' });
    render(<StudioPayouts initial={{ balance: balance({ hasDetails: true, blocked: null }), details: bankView, payouts: [rejected] }} currencySymbol="€" />);
    const row = screen.getByTestId('payout-row');
    expect(row.getAttribute('data-status')).toBe('rejected');
    expect(row.textContent).toContain('Rejected 2026-03-03: Holder name does not match');
    expect(row.textContent).toContain('€70.00');
  });
});

describe('PayoutDetailsReveal', () => {
  const full: PayoutDetailsFull = { payoutId: 'po1', method: 'bank', accountHolder: 'Mona Payee', accountNumber: 'DE89370400440532013000', bankCode: 'COBADEFFXXX', bankCountry: 'DE', paypalEmail: null };

  it('asks for the full details on a click (the audited action), shows them, and hides them again', async () => {
    send.mockResolvedValue(full);
    render(<PayoutDetailsReveal payoutId="po1" />);
    expect(screen.queryByText('DE89370400440532013000')).toBeNull();
    expect(send).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId('payout-reveal'));
    expect((await screen.findByTestId('payout-full')).textContent).toContain('DE89370400440532013000');
    expect(send).toHaveBeenCalledWith('POST', '/admin/payout-requests/po1/reveal');
    expect(screen.getByTestId('payout-full').textContent).toContain('COBADEFFXXX');
    fireEvent.click(screen.getByTestId('payout-hide'));
    expect(screen.queryByTestId('payout-full')).toBeNull();
    expect(screen.getByTestId('payout-reveal')).toBeTruthy();
  });

  it('shows a PayPal address, and a refusal as a toast', async () => {
    send.mockResolvedValueOnce({ ...full, method: 'paypal', accountHolder: null, accountNumber: null, bankCode: null, bankCountry: null, paypalEmail: 'mona@example.com' });
    render(<PayoutDetailsReveal payoutId="po2" />);
    fireEvent.click(screen.getByTestId('payout-reveal'));
    expect((await screen.findByTestId('payout-full')).textContent).toBe('PayPalmona@example.comHide');
    cleanup();

    send.mockRejectedValueOnce(new ApiError(409, { message: 'The full details are kept only while a payout is open (this one is paid)', code: 'PAYOUT_DETAILS_GONE' }));
    render(<PayoutDetailsReveal payoutId="po3" />);
    fireEvent.click(screen.getByTestId('payout-reveal'));
    await waitFor(() => expect(toastTexts()).toEqual([['error', 'The full details are kept only while a payout is open (this one is paid)']]));
    expect(screen.queryByTestId('payout-full')).toBeNull();
    expect((screen.getByTestId('payout-reveal') as HTMLButtonElement).disabled).toBe(false);
  });
});
