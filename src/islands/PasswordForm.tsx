import { useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import type { SignupRole } from '../../common/enums.js';
import { updatePassword, updating } from '../lib/stores/user.js';
import { FormFooter } from './shared/Field.js';
import { ConfirmPasswordField, CurrentPasswordField, NewPasswordField } from './shared/account-fields.js';
import { PASSWORD_MISMATCH, useFormErrors } from './shared/useFormErrors.js';
import { useFormValues } from './shared/useFormValues.js';

export interface PasswordFormProps {
  /** Which settings screen this is (the body's `source`). */
  source: SignupRole;
}

const FIELDS = ['currentPassword', 'password', 'confirm'] as const;

/** Change the password of the signed-in account; other sessions are signed out by the server. */
export default function PasswordForm({ source }: PasswordFormProps) {
  const busy = useStore(updating);
  const { values, setValues, set } = useFormValues({ currentPassword: '', password: '', confirm: '' });
  const [done, setDone] = useState<string | null>(null);
  const { fieldErrors, formError, setFieldErrors, clear, fail } = useFormErrors(FIELDS);

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
      <CurrentPasswordField error={fieldErrors.currentPassword} value={values.currentPassword} onChange={set('currentPassword')} />
      <NewPasswordField error={fieldErrors.password} value={values.password} onChange={set('password')} />
      <ConfirmPasswordField error={fieldErrors.confirm} value={values.confirm} onChange={set('confirm')} />
      <FormFooter error={formError} success={done} busy={busy} busyLabel="Saving…" testId="password-submit">
        Change password
      </FormFooter>
    </form>
  );
}
