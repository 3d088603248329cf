import { useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import { forgotPassword, forgotStatus } from '../lib/stores/auth.js';
import { FormSuccess, FormFooter } from './shared/Field.js';
import { EmailField } from './shared/account-fields.js';
import { useFormErrors } from './shared/useFormErrors.js';

/** Asks for a password reset link; the answer is the same whether or not the email has an account. */
export default function ForgotPasswordForm() {
  const status = useStore(forgotStatus);
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const { fieldErrors, formError, clear, fail } = useFormErrors(['email']);
  const requesting = status === 'requesting';

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (requesting) return;
    clear();
    try {
      setSent(await forgotPassword(email.trim()));
    } catch (err) {
      fail(err);
    }
  };

  if (sent) {
    return (
      <FormSuccess message={sent}>
        <p>
          <a href="/auth/login">Back to log in</a>
        </p>
      </FormSuccess>
    );
  }

  return (
    <form className="form" onSubmit={onSubmit} data-testid="forgot-form" aria-busy={requesting}>
      <EmailField error={fieldErrors.email} value={email} onChange={(e) => setEmail(e.target.value)} />
      <FormFooter error={formError} busy={requesting} busyLabel="Sending…" testId="forgot-submit" after={<a href="/auth/login">Back to log in</a>}>
        Send reset link
      </FormFooter>
    </form>
  );
}
