import { useState, type FormEvent } from 'react';
import { DELETE_CONFIRMATION } from '../../common/privacy.js';
import { deleteAccount } from '../lib/stores/privacy.js';
import { Field, FormFooter } from './shared/Field.js';
import { CurrentPasswordField } from './shared/account-fields.js';
import { useFormErrors } from './shared/useFormErrors.js';
import { useFormValues } from './shared/useFormValues.js';

const FIELDS = ['password', 'confirm'] as const;

/** Deleting the account, after its consequences (listed by the page): the password and the typed word. */
export default function DeleteAccountForm() {
  const { values, set } = useFormValues({ password: '', confirm: '' });
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const { fieldErrors, formError, setFieldErrors, clear, fail } = useFormErrors(FIELDS);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy || done) return;
    clear();
    if (values.confirm.trim() !== DELETE_CONFIRMATION) {
      setFieldErrors({ confirm: `Type ${DELETE_CONFIRMATION} to confirm` });
      return;
    }
    setBusy(true);
    try {
      setDone(await deleteAccount({ password: values.password, confirm: values.confirm }));
      // Signed out by the server: leave the account's pages.
      window.location.assign('/');
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form" onSubmit={onSubmit} data-testid="delete-account-form" aria-busy={busy}>
      <CurrentPasswordField label="Your password" name="password" testId="delete-password" error={fieldErrors.password} value={values.password} onChange={set('password')} />
      <Field label={`Type ${DELETE_CONFIRMATION} to confirm`} error={fieldErrors.confirm}>
        {(p) => <input {...p} name="confirm" type="text" autoComplete="off" required maxLength={20} value={values.confirm} onChange={set('confirm')} data-testid="delete-confirm" />}
      </Field>
      <FormFooter error={formError} success={done} busy={busy} busyLabel="Deleting…" testId="delete-submit">
        Delete my account
      </FormFooter>
    </form>
  );
}
