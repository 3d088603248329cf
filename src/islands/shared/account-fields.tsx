import type { ChangeEventHandler } from 'react';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../../common/account-limits.js';
import { Field } from './Field.js';

/** The fields the account forms share (sign-up, profile, contact, password change and reset, resend), labelled once. */
export interface AccountFieldProps {
  label?: string;
  error?: string | undefined;
  value: string;
  onChange: ChangeEventHandler<HTMLInputElement>;
}

export function NameField({ label = 'Name', error, value, onChange }: AccountFieldProps) {
  return (
    <Field label={label} error={error}>
      {(p) => <input {...p} name="name" autoComplete="name" required maxLength={100} value={value} onChange={onChange} />}
    </Field>
  );
}

export function UsernameField({ label = 'Username', error, value, onChange }: AccountFieldProps) {
  return (
    <Field label={label} error={error} hint="3 to 30 characters: lowercase letters, digits, “_” or “.”">
      {(p) => (
        <input
          {...p}
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          required
          minLength={3}
          maxLength={30}
          value={value}
          onChange={onChange}
        />
      )}
    </Field>
  );
}

export function EmailField({ label = 'Email', error, value, onChange }: AccountFieldProps) {
  return (
    <Field label={label} error={error}>
      {(p) => <input {...p} name="email" type="email" autoComplete="email" required maxLength={254} value={value} onChange={onChange} />}
    </Field>
  );
}

/** A password being chosen, with the rule the server checks as its hint. */
export function NewPasswordField({ label = 'New password', error, value, onChange }: AccountFieldProps) {
  return (
    <Field label={label} error={error} hint="At least 8 characters, with a letter and a digit">
      {(p) => (
        <input {...p} name="password" type="password" autoComplete="new-password" required minLength={PASSWORD_MIN} maxLength={PASSWORD_MAX} value={value} onChange={onChange} />
      )}
    </Field>
  );
}

/** The chosen password typed again; the form compares the two. */
export function ConfirmPasswordField({ label = 'Confirm new password', error, value, onChange }: AccountFieldProps) {
  return (
    <Field label={label} error={error}>
      {(p) => <input {...p} name="confirm" type="password" autoComplete="new-password" required maxLength={PASSWORD_MAX} value={value} onChange={onChange} />}
    </Field>
  );
}

/** The password the account has now (logging in, changing it). */
export function CurrentPasswordField({ label = 'Current password', name = 'currentPassword', testId, error, value, onChange }: AccountFieldProps & { name?: string; testId?: string }) {
  return (
    <Field label={label} error={error}>
      {(p) => <input {...p} name={name} type="password" autoComplete="current-password" required maxLength={1024} value={value} onChange={onChange} data-testid={testId} />}
    </Field>
  );
}
