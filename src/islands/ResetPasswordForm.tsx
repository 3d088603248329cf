import { useState, type FormEvent } from 'react';
import { account } from '../lib/stores/account.js';
import { FormAlert, FormFooter, DoneWithLink } from './shared/Field.js';
import { ConfirmPasswordField, NewPasswordField } from './shared/account-fields.js';
import { PASSWORD_MISMATCH, useFormErrors } from './shared/useFormErrors.js';
import { tokenFromUrl } from './shared/url-token.js';

export interface ResetPasswordFormProps {
  /** The token of the mailed link; read from `?token=` when not given. */
  token?: string;
}

const FIELDS = ['password', 'confirm', 'token'] as const;

/** Choose a new password with the token from the reset link. */
export default function ResetPasswordForm({ token: tokenProp }: ResetPasswordFormProps) {
  const [token] = useState(() => tokenProp || tokenFromUrl());
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [requesting, setRequesting] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const { fieldErrors, formError, setFieldErrors, setFormError, clear, fail } = useFormErrors(FIELDS);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (requesting) return;
    clear();
    if (!token) {
      setFormError('This link is incomplete. Please ask for a new one.');
      return;
    }
    if (password !== confirm) {
      setFieldErrors({ confirm: PASSWORD_MISMATCH });
      return;
    }
    setRequesting(true);
    try {
      const res = await account.resetPassword(token, password);
      setDone(res.message);
    } catch (err) {
      fail(err);
    } finally {
      setRequesting(false);
    }
  };

  if (done) {
    return (
      <DoneWithLink message={done} href="/auth/login">
        Log in
      </DoneWithLink>
    );
  }

  return (
    <form className="form" onSubmit={onSubmit} data-testid="reset-password-form" aria-busy={requesting}>
      <NewPasswordField error={fieldErrors.password} value={password} onChange={(e) => setPassword(e.target.value)} />
      <ConfirmPasswordField error={fieldErrors.confirm} value={confirm} onChange={(e) => setConfirm(e.target.value)} />
      <FormAlert message={formError ?? fieldErrors.token} />
      {formError || fieldErrors.token ? (
        <p className="form__hint">
          <a href="/auth/forgot-password">Ask for a new link</a>
        </p>
      ) : null}
      <FormFooter busy={requesting} busyLabel="Saving…" testId="reset-password-submit">
        Save new password
      </FormFooter>
    </form>
  );
}
