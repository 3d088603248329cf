import { useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import { formatMoney } from '../../../common/money.js';
import type { PayoutAccount, PayoutBalance, PayoutDetailsChanges, PayoutDetailsView, PayoutRequest } from '../../../common/schemas/money.js';
import { createPayoutStudio } from '../../lib/stores/studio.js';
import { Field } from '../shared/Field.js';

export interface StudioPayoutsProps {
  initial: { balance: PayoutBalance; details: PayoutDetailsView | null; payouts: PayoutRequest[] };
  currencySymbol: string;
}

const STATUS_WORDS: Record<PayoutRequest['status'], string> = { requested: 'Requested', approved: 'Approved', paid: 'Paid', rejected: 'Rejected' };
const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '');

/**
 * The studio's payouts (server/payments/README.md, "Payouts"): the balance (in hold, available, requested, paid), the
 * request of the available balance with the reason it cannot be made yet, the payout details (shown masked, edited
 * in a form whose fields follow the method) and the payouts so far.
 */
export default function StudioPayouts({ initial, currencySymbol }: StudioPayoutsProps) {
  const [studio] = useState(() => createPayoutStudio(initial));
  const { balance, details, payouts, savingDetails, detailErrors, requesting } = useStore(studio.store);
  const [editing, setEditing] = useState(initial.details === null);
  const [method, setMethod] = useState<PayoutAccount['method']>(initial.details?.method ?? 'bank');
  const money = (minor: number) => formatMoney(minor, currencySymbol);

  const onSave = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    const body: PayoutDetailsChanges =
      method === 'bank'
        ? { method, accountHolder: text('accountHolder'), accountNumber: text('accountNumber'), bankCode: text('bankCode') || null, bankCountry: text('bankCountry') }
        : { method, paypalEmail: text('paypalEmail') };
    if (await studio.saveDetails(body)) setEditing(false);
  };

  const open = balance.openRequest;
  const why =
    balance.blocked === 'open' && open
      ? `Your payout of ${money(open.amount)} is ${STATUS_WORDS[open.status].toLowerCase()}. You can request the next one once it is paid or rejected.`
      : balance.blocked === 'details'
        ? 'Add your payout details below to request a payout.'
        : balance.blocked === 'minimum'
          ? `Payouts start at ${money(balance.minimum)}; ${money(Math.max(0, balance.available))} is available now.`
          : null;

  return (
    <section className="payouts" aria-labelledby="payouts-title" data-testid="payouts">
      <h2 id="payouts-title">Balance and payouts</h2>
      <div className="totals" data-testid="payout-balance">
        <div className="totals__card">
          <span>Available</span>
          <strong data-testid="payout-available">{money(balance.available)}</strong>
        </div>
        <div className="totals__card">
          <span>In the {balance.holdDays}-day hold</span>
          <strong data-testid="payout-pending">{money(balance.pending)}</strong>
        </div>
        <div className="totals__card">
          <span>Requested</span>
          <strong data-testid="payout-requested">{money(balance.requested)}</strong>
        </div>
        <div className="totals__card">
          <span>Paid out</span>
          <strong data-testid="payout-paid">{money(balance.paid)}</strong>
        </div>
      </div>
      <p className="form__hint">
        Earnings become available {balance.holdDays} days after the sale, so that refunds and chargebacks can come in first. Test money from the sandbox is never paid out.
      </p>
      <div className="form__actions">
        <button type="button" className="btn btn--primary" disabled={balance.blocked !== null || requesting} onClick={() => void studio.request()} data-testid="payout-request">
          {requesting ? 'Requesting…' : `Request payout of ${money(Math.max(0, balance.available))}`}
        </button>
        {why ? (
          <span className="form__hint" data-testid="payout-blocked" data-reason={balance.blocked ?? ''}>
            {why}
          </span>
        ) : null}
      </div>

      <h3>Payout details</h3>
      {details && !editing ? (
        <div className="studio-panel" data-testid="payout-details">
          <p>
            {details.method === 'bank' ? (
              <>
                Bank transfer to <b>{details.accountHolder}</b>, account <b data-testid="payout-account">{details.account}</b>
                {details.bankCode ? <> ({details.bankCode})</> : null}, {details.bankCountry}
              </>
            ) : (
              <>
                PayPal: <b data-testid="payout-account">{details.account}</b>
              </>
            )}
          </p>
          <button type="button" className="btn" onClick={() => setEditing(true)} data-testid="payout-details-edit">
            Change
          </button>
        </div>
      ) : (
        <form className="form studio-panel" onSubmit={(e) => void onSave(e)} data-testid="payout-details-form" noValidate>
          <fieldset className="inline-fields">
            <legend>Paid by</legend>
            {(['bank', 'paypal'] as const).map((m) => (
              <label key={m}>
                <input type="radio" name="method" value={m} checked={method === m} onChange={() => setMethod(m)} data-testid={`payout-method-${m}`} />{' '}
                {m === 'bank' ? 'Bank transfer' : 'PayPal'}
              </label>
            ))}
          </fieldset>
          {method === 'bank' ? (
            <>
              <Field label="Account holder" error={detailErrors.accountHolder}>
                {(c) => <input {...c} name="accountHolder" autoComplete="name" maxLength={100} data-testid="payout-holder" />}
              </Field>
              <Field label="IBAN or account number" error={detailErrors.accountNumber}>
                {(c) => <input {...c} name="accountNumber" autoComplete="off" spellCheck={false} maxLength={60} data-testid="payout-account-number" />}
              </Field>
              <Field label="SWIFT/BIC, routing number or sort code" hint="May be left empty with an IBAN." error={detailErrors.bankCode}>
                {(c) => <input {...c} name="bankCode" autoComplete="off" spellCheck={false} maxLength={20} data-testid="payout-bank-code" />}
              </Field>
              <Field label="Bank country" hint="Two-letter code, e.g. DE, GB, US." error={detailErrors.bankCountry}>
                {(c) => <input {...c} name="bankCountry" autoComplete="country" maxLength={2} placeholder="DE" data-testid="payout-bank-country" />}
              </Field>
            </>
          ) : (
            <Field label="PayPal email" error={detailErrors.paypalEmail}>
              {(c) => <input {...c} type="email" name="paypalEmail" autoComplete="email" maxLength={254} data-testid="payout-paypal-email" />}
            </Field>
          )}
          <p className="form__hint">Stored encrypted; shown back with only the last 4 characters. A payout already requested goes to the details it was requested with.</p>
          <div className="form__actions">
            <button type="submit" className="btn btn--primary" disabled={savingDetails} data-testid="payout-details-save">
              {savingDetails ? 'Saving…' : 'Save payout details'}
            </button>
            {details ? (
              <button type="button" className="btn" onClick={() => setEditing(false)}>
                Cancel
              </button>
            ) : null}
          </div>
        </form>
      )}

      <h3>Payouts so far</h3>
      {payouts.length === 0 ? (
        <p className="empty" data-testid="payouts-empty">
          No payouts yet.
        </p>
      ) : (
        <table className="money-table money-table--cards" data-testid="payouts-table">
          <thead>
            <tr>
              <th scope="col">Requested</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">
                Amount
              </th>
              <th scope="col">To</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {payouts.map((p) => (
              <tr key={p._id} data-testid="payout-row" data-status={p.status}>
                <td data-label="Requested">{day(p.createdAt)}</td>
                <td data-label="Status">
                  <span className={`status-pill status-pill--${p.status}`}>{STATUS_WORDS[p.status]}</span>
                </td>
                <td data-label="Amount" className="num">
                  {money(p.amount)}
                </td>
                <td data-label="To">{p.account ? p.account.account : '—'}</td>
                <td data-label="Details">
                  {p.status === 'paid' ? `Paid ${day(p.paidAt)}${p.reference ? ` · reference ${p.reference}` : ''}` : null}
                  {p.status === 'rejected' ? `Rejected ${day(p.rejectedAt)}: ${p.reason ?? ''}` : null}
                  {p.status === 'approved' ? `Approved ${day(p.approvedAt)}, the transfer is on its way` : null}
                  {p.status === 'requested' ? 'Waiting for review' : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
