import { useState } from 'react';
import { unsubscribeWithToken } from '../lib/stores/notifications.js';

export interface UnsubscribeButtonProps {
  token: string;
  /** What these mails are called ("Comments on your content"). */
  label: string;
}

/** The unsubscribe page's confirmation: one button, then what happened. No login: the signed token is the permission. */
export default function UnsubscribeButton({ token, label }: UnsubscribeButtonProps) {
  const [state, setState] = useState<{ status: 'idle' | 'sending' | 'done' } | { status: 'error'; message: string }>({ status: 'idle' });
  if (state.status === 'done') {
    return (
      <p role="status" data-testid="unsubscribe-done">
        Done: no more “{label}” mails. You can turn them on again on <a href="/account/notifications">your notification settings</a>.
      </p>
    );
  }
  const send = async () => {
    setState({ status: 'sending' });
    const r = await unsubscribeWithToken(token);
    setState(r.ok ? { status: 'done' } : { status: 'error', message: r.message });
  };
  return (
    <div>
      <button type="button" className="btn btn--primary" disabled={state.status === 'sending'} onClick={() => void send()} data-testid="unsubscribe-confirm">
        Unsubscribe
      </button>
      {state.status === 'error' ? <p className="form__error" role="alert">{state.message}</p> : null}
    </div>
  );
}
