import { useEffect, useRef, useState, type FormEvent } from 'react';
import { errorMessage } from '../lib/api/error.js';
import { account } from '../lib/stores/account.js';
import { FormSuccess, FormFooter } from './shared/Field.js';
import { EmailField } from './shared/account-fields.js';
import { useFormErrors } from './shared/useFormErrors.js';
import { tokenFromUrl } from './shared/url-token.js';

export interface VerifyEmailProps {
  /** The token of the mailed link; read from `?token=` when not given. */
  token?: string;
  /** Where the verified visitor goes next: log in (coming back to where they were going), or straight there when signed in. */
  continueHref?: string;
  signedIn?: boolean;
}

type State = { phase: 'verifying' } | { phase: 'verified'; message: string } | { phase: 'failed'; message: string };

export const INCOMPLETE_LINK = 'This verification link is incomplete. Enter your email to get a new one.';

/** Posts the link's token once; on failure shows the server's message and a form to get a new link. */
export default function VerifyEmail({ token: tokenProp, continueHref = '/auth/login', signedIn = false }: VerifyEmailProps) {
  const [state, setState] = useState<State>({ phase: 'verifying' });
  const started = useRef(false);

  useEffect(() => {
    // Tokens are single use: never post twice (React StrictMode runs effects twice in development).
    if (started.current) return;
    started.current = true;
    const token = tokenProp || tokenFromUrl();
    if (!token) {
      setState({ phase: 'failed', message: INCOMPLETE_LINK });
      return;
    }
    account.verifyEmail(token).then(
      (res) => setState({ phase: 'verified', message: res.message }),
      (err) => setState({ phase: 'failed', message: errorMessage(err, 'This link could not be verified. Please request a new one.') }),
    );
  }, [tokenProp]);

  if (state.phase === 'verifying') {
    return (
      <p role="status" aria-busy="true" data-testid="verify-email-pending">
        Verifying your email address…
      </p>
    );
  }
  if (state.phase === 'verified') {
    return (
      <div data-testid="verify-email-success">
        <FormSuccess message={state.message}>
          <p>
            <a className="btn btn--primary" href={continueHref} data-testid="verify-email-continue">
              {signedIn ? 'Continue' : 'Log in'}
            </a>
          </p>
        </FormSuccess>
      </div>
    );
  }
  return (
    <div className="form" data-testid="verify-email-failed">
      <p className="form__error" role="alert">
        {state.message}
      </p>
      <ResendForm />
    </div>
  );
}

function ResendForm() {
  const [email, setEmail] = useState('');
  const [requesting, setRequesting] = useState(false);
  const [sent, setSent] = useState<string | null>(null);
  const { fieldErrors, formError, clear, fail } = useFormErrors(['email']);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (requesting) return;
    clear();
    setRequesting(true);
    try {
      setSent((await account.resendVerification(email.trim())).message);
    } catch (err) {
      fail(err);
    } finally {
      setRequesting(false);
    }
  };

  if (sent) return <FormSuccess message={sent} />;
  return (
    <form className="form" onSubmit={onSubmit} data-testid="resend-verification-form" aria-busy={requesting}>
      <h2>Send a new verification link</h2>
      <EmailField error={fieldErrors.email} value={email} onChange={(e) => setEmail(e.target.value)} />
      <FormFooter error={formError} busy={requesting} busyLabel="Sending…" testId="resend-verification-submit">
        Send link
      </FormFooter>
    </form>
  );
}
