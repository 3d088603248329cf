import { useState } from 'react';
import type { AdminMethod } from '../../lib/api/admin.js';
import { errorMessage } from '../../lib/api/error.js';
import { admin } from '../../lib/stores/admin.js';
import { toast } from '../../lib/stores/toast.js';
import { GENERIC_ERROR } from '../shared/useFormErrors.js';

export interface AdminActionProps {
  label: string;
  method: AdminMethod;
  path: string;
  body?: Record<string, unknown>;
  /** Asked with window.confirm before the call. */
  confirm?: string;
  danger?: boolean;
  testId?: string;
  success?: string;
}

/** One console action button (suspend, approve, delete, refund, payout...); the page reloads to show the result. */
export default function AdminAction({ label, method, path, body, confirm, danger, testId, success = 'Done' }: AdminActionProps) {
  const [busy, setBusy] = useState(false);
  const run = async () => {
    if (busy || (confirm && !window.confirm(confirm))) return;
    setBusy(true);
    try {
      await admin.send(method, path, body);
      toast.success(success);
      window.location.reload();
    } catch (err) {
      toast.error(errorMessage(err, GENERIC_ERROR));
      setBusy(false);
    }
  };
  return (
    <button type="button" className={`btn btn--small ${danger ? 'btn--danger' : ''}`} onClick={run} disabled={busy} data-testid={testId}>
      {label}
    </button>
  );
}
