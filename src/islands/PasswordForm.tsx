import { useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import type { SignupRole } from '../../common/enums.js';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../common/account-limits.js';
import { updatePassword, updating } from '../lib/stores/user.js';
import { Field, FormAlert, FormSuccess } from './shared/Field.js';
import { PASSWORD_MISMATCH, useFormErrors } from './shared/useFormErrors.js';

export interface PasswordFormProps {
  /** Which settings screen this is (the body's `source`). */
  source: SignupRole;
}

const FIELDS = ['currentPassword', 'password', 'confirm'] as const;

/** Change the password of the signed-in account; other sessions are signed out by the server. */
export default function PasswordForm({ source }: PasswordFormProps) {
  const busy = useStore(updating);
  const [values, setValues] = useState({ currentPassword: '', password: '', confirm: '' });
  const [done, setDone] = useState<string | null>(null);
  const { fieldErrors, formError, setFieldErrors, clear, fail } = useFormErrors(FIELDS);
  const set = (key: keyof typeof values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [key]: e.target.value }));

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    clear();
    setDone(null);
    if (values.password !== values.confirm) {
      setFieldErrors({ confirm: PASSWORD_MISMATCH });
      return;
    }
    try {
      const message = await updatePassword({ password: values.password, currentPassword: values.currentPassword, source });
      setValues({ currentPassword: '', password: '', confirm: '' });
      setDone(message);
    } catch (err) {
      fail(err);
    }
  };

  return (
    <form className="form" onSubmit={onSubmit} data-testid="password-form" aria-busy={busy}>
      <Field label="Current password" error={fieldErrors.currentPassword}>
        {(p) => (
          <input {...p} name="currentPassword" type="password" autoComplete="current-password" required maxLength={1024} value={values.currentPassword} onChange={set('currentPassword')} />
        )}
      </Field>
      <Field label="New password" error={fieldErrors.password} hint="At least 8 characters, with a letter and a digit">
        {(p) => <input {...p} name="password" type="password" autoComplete="new-password" required minLength={PASSWORD_MIN} maxLength={PASSWORD_MAX} value={values.password} onChange={set('password')} />}
      </Field>
      <Field label="Confirm new password" error={fieldErrors.confirm}>
        {(p) => <input {...p} name="confirm" type="password" autoComplete="new-password" required maxLength={PASSWORD_MAX} value={values.confirm} onChange={set('confirm')} />}
      </Field>
      <FormAlert message={formError} />
      <FormSuccess message={done} />
      <div className="form__actions">
        <button className="btn btn--primary" type="submit" disabled={busy} data-testid="password-submit">
          {busy ? 'Saving…' : 'Change password'}
        </button>
      </div>
    </form>
  );
}
