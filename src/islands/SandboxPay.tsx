import { useState } from 'react';
import { useStore } from '@nanostores/react';
import { createSandboxPayStore } from '../lib/stores/payments.js';

export interface SandboxPayProps {
  chargeId: string;
  /** Where the buyer goes back to when the checkout is already over. */
  returnUrl: string;
  open: boolean;
}

/**
 * The sandbox provider's hosted page buttons. The choice is recorded by the provider, which then posts its signed
 * webhook to the site (server side); the buyer is sent back to the result page.
 */
export default function SandboxPay({ chargeId, returnUrl, open }: SandboxPayProps) {
  const [sandbox] = useState(() => createSandboxPayStore(chargeId));
  const { busy, error } = useStore(sandbox.store);
  if (!open) {
    return (
      <p className="empty" data-testid="sandbox-closed">
        This checkout is closed. <a href={returnUrl}>See the payment</a>
      </p>
    );
  }
  const act = (outcome: 'approve' | 'decline' | 'cancel') => void sandbox.act(outcome);
  return (
    <div className="form__actions sandbox-pay" data-testid="sandbox-pay">
      <button type="button" className="btn btn--primary" disabled={!!busy} onClick={() => act('approve')} data-testid="sandbox-approve">
        {busy === 'approve' ? 'Paying…' : 'Approve payment'}
      </button>
      <button type="button" className="btn btn--danger" disabled={!!busy} onClick={() => act('decline')} data-testid="sandbox-decline">
        Decline
      </button>
      <button type="button" className="btn btn--link" disabled={!!busy} onClick={() => act('cancel')} data-testid="sandbox-cancel">
        Cancel and go back
      </button>
      {error && (
        <p className="form__error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
