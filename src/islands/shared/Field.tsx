import { useId, type ReactNode } from 'react';

/** Props a form control needs to be tied to its label, hint and error. */
export interface ControlProps {
  id: string;
  'aria-invalid': boolean | undefined;
  'aria-describedby': string | undefined;
}

export interface FieldProps {
  label: string;
  error?: string | undefined;
  hint?: string | undefined;
  children: (control: ControlProps) => ReactNode;
}

/**
 * A labelled form field: `<label>`, the control, an optional hint and the field's error (role="alert"). Its ids come
 * from React's useId, unique on the page: @astrojs/react gives each island its own identifierPrefix on the server
 * and when hydrating, so two islands (two AdminForms on one admin page) never share an id.
 */
export function Field({ label, error, hint, children }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className="form__field">
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      {hint ? (
        <p id={hintId} className="form__hint">
          {hint}
        </p>
      ) : null}
      <FieldError id={errorId} message={error} />
    </div>
  );
}

/** A field's error under its control (role="alert"), or nothing. */
export function FieldError({ id, message }: { id?: string | undefined; message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p id={id} className="form__error" role="alert">
      {message}
    </p>
  );
}

export interface CheckFieldProps {
  name: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  error?: string | undefined;
  testId?: string;
  children: ReactNode;
}

/** A checkbox with its label text and its error, tied to it by aria-describedby. */
export function CheckField({ name, checked, onChange, error, testId, children }: CheckFieldProps) {
  const errorId = `${useId()}-error`;
  return (
    <>
      <label className="form__check">
        <input
          type="checkbox"
          name={name}
          checked={checked}
          onChange={(e) => onChange(e.target.checked)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          data-testid={testId}
        />
        {children}
      </label>
      <FieldError id={errorId} message={error} />
    </>
  );
}

export interface SubmitButtonProps {
  /** Disables the button and shows `busyLabel`. */
  busy: boolean;
  busyLabel: string;
  /** Disabled while `busy` unless said otherwise. */
  disabled?: boolean;
  testId: string;
  children: ReactNode;
}

/** A form's primary submit button, which says what it is doing while the request runs. */
export function SubmitButton({ busy, busyLabel, disabled = busy, testId, children }: SubmitButtonProps) {
  return (
    <button className="btn btn--primary" type="submit" disabled={disabled} data-testid={testId}>
      {busy ? busyLabel : children}
    </button>
  );
}

/** A form-level error (role="alert") or nothing. */
export function FormAlert({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p className="form__error" role="alert" data-testid="form-error">
      {message}
    </p>
  );
}

/** A form-level success message (role="status") or nothing. */
export function FormSuccess({ message, children }: { message: string | null | undefined; children?: ReactNode }) {
  if (!message) return null;
  return (
    <div className="form__success" role="status" data-testid="form-success">
      <p>{message}</p>
      {children}
    </div>
  );
}

export interface FormFooterProps extends SubmitButtonProps {
  /** The form's error (FormAlert) and success message (FormSuccess), shown above the button when set. */
  error?: string | null | undefined;
  success?: string | null | undefined;
  /** What stands beside the button (a link to another form). */
  after?: ReactNode;
}

/** The end of an account form: its error and success messages, then the submit button and what stands beside it. */
export function FormFooter({ error, success, after, ...submit }: FormFooterProps) {
  return (
    <>
      <FormAlert message={error} />
      <FormSuccess message={success} />
      <div className="form__actions">
        <SubmitButton {...submit} />
        {after}
      </div>
    </>
  );
}

/** What a form shows once it is done: its success message and a button onwards (to log in). */
export function DoneWithLink({ message, href, testId, children }: { message: string; href: string; testId?: string; children: ReactNode }) {
  return (
    <FormSuccess message={message}>
      <p>
        <a className="btn btn--primary" href={href} data-testid={testId}>
          {children}
        </a>
      </p>
    </FormSuccess>
  );
}
