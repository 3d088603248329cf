import { useState } from 'react';
import type { PayoutDetailsFull } from '../../../common/schemas/admin.js';
import { errorMessage } from '../../lib/api/error.js';
import { admin } from '../../lib/stores/admin.js';
import { toast } from '../../lib/stores/toast.js';

export interface PayoutDetailsRevealProps {
  payoutId: string;
}

/**
 * The full payout details of an open payout, for the admin making the transfer: asked for on a click (each look is
 * written to the audit log, POST /admin/payout-requests/{id}/reveal), shown in place, and hidden again on request.
 * The list around it shows the details masked only.
 */
export default function PayoutDetailsReveal({ payoutId }: PayoutDetailsRevealProps) {
  const [details, setDetails] = useState<PayoutDetailsFull | null>(null);
  const [busy, setBusy] = useState(false);
  const reveal = async () => {
    if (busy) return;
    setBusy(true);
    try {
      setDetails(await admin.send<PayoutDetailsFull>('POST', `/admin/payout-requests/${encodeURIComponent(payoutId)}/reveal`));
    } catch (err) {
      toast.error(errorMessage(err, 'Could not show the payout details'));
    } finally {
      setBusy(false);
    }
  };
  if (!details) {
    return (
      <button type="button" className="btn btn--small" onClick={() => void reveal()} disabled={busy} data-testid="payout-reveal">
        {busy ? 'Loading…' : 'Show full details'}
      </button>
    );
  }
  const rows: Array<[string, string | null]> =
    details.method === 'bank'
      ? [
          ['Account holder', details.accountHolder],
          ['IBAN / account', details.accountNumber],
          ['SWIFT/BIC / routing', details.bankCode],
          ['Bank country', details.bankCountry],
        ]
      : [['PayPal', details.paypalEmail]];
  return (
    <div className="payout-full" data-testid="payout-full">
      <dl>
        {rows.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>
              <code>{value ?? '—'}</code>
            </dd>
          </div>
        ))}
      </dl>
      <button type="button" className="btn btn--small" onClick={() => setDetails(null)} data-testid="payout-hide">
        Hide
      </button>
    </div>
  );
}
