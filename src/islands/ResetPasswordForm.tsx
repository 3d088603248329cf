import { useState, type FormEvent } from 'react';
import { account } from '../lib/stores/account.js';
import { Field, FormAlert, FormSuccess } from './shared/Field.js';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../common/account-limits.js';
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
      <FormSuccess message={done}>
        <p>
          <a className="btn btn--primary" href="/auth/login">
            Log in
          </a>
        </p>
      </FormSuccess>
    );
  }

  return (
    <form className="form" onSubmit={onSubmit} data-testid="reset-password-form" aria-busy={requesting}>
      <Field label="New password" error={fieldErrors.password} hint="At least 8 characters, with a letter and a digit">
        {(p) => (
          <input {...p} name="password" type="password" autoComplete="new-password" required minLength={PASSWORD_MIN} maxLength={PASSWORD_MAX} value={password} onChange={(e) => setPassword(e.target.value)} />
        )}
      </Field>
      <Field label="Confirm new password" error={fieldErrors.confirm}>
        {(p) => (
          <input {...p} name="confirm" type="password" autoComplete="new-password" required maxLength={PASSWORD_MAX} value={confirm} onChange={(e) => setConfirm(e.target.value)} />
        )}
      </Field>
      <FormAlert message={formError ?? fieldErrors.token} />
      {formError || fieldErrors.token ? (
        <p className="form__hint">
          <a href="/auth/forgot-password">Ask for a new link</a>
        </p>
      ) : null}
      <div className="form__actions">
        <button className="btn btn--primary" type="submit" disabled={requesting} data-testid="reset-password-submit">
          {requesting ? 'Saving…' : 'Save new password'}
        </button>
      </div>
    </form>
  );
}
