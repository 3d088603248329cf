import { useEffect, useId, useState, type FormEvent } from 'react';
import type { SignupRole } from '../../common/enums.js';
import { withNext } from '../../common/next-path.js';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../common/account-limits.js';
import { account } from '../lib/stores/account.js';
import { getPublicSettings } from '../lib/runtime.js';
import { Captcha } from './shared/Captcha.js';
import { Field, FormAlert, FormSuccess } from './shared/Field.js';
import { PASSWORD_MISMATCH, useFormErrors } from './shared/useFormErrors.js';

export interface RegisterFormProps {
  initialRole?: SignupRole;
  /** A safe path on this site (checked by the page) to come back to after logging in, and from the verification link. */
  next?: string | null;
  /** Where the terms of service are. */
  termsHref?: string;
}

const FIELDS = ['name', 'username', 'email', 'password', 'confirm', 'role', 'confirmAdult', 'acceptTerms', 'captchaToken'] as const;

export const ADULT_REQUIRED = 'Please confirm that you are 18 or older';
export const TERMS_REQUIRED = 'Please accept the terms to create an account';

/** Sign-up as a fan or a performer, 18 or older, accepting the terms; the server mails a verification link. */
export default function RegisterForm({ initialRole = 'user', next = null, termsHref = '/posts/terms' }: RegisterFormProps) {
  const [values, setValues] = useState({ name: '', username: '', email: '', password: '', confirm: '' });
  const [adult, setAdult] = useState(false);
  const [terms, setTerms] = useState(false);
  const checkId = useId();
  const [role, setRole] = useState<SignupRole>(initialRole);
  const [requesting, setRequesting] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [captcha, setCaptcha] = useState<{ siteKey: string } | null>(null);
  const [captchaToken, setCaptchaToken] = useState('');
  const [captchaReset, setCaptchaReset] = useState(0);
  const { fieldErrors, formError, setFieldErrors, clear, fail } = useFormErrors(FIELDS);

  // Settings are read after hydration, so the server and the first client render agree.
  useEffect(() => {
    const s = getPublicSettings();
    if (s?.captchaEnabled && s.captchaSiteKey) setCaptcha({ siteKey: s.captchaSiteKey });
  }, []);

  const set = (key: keyof typeof values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [key]: e.target.value }));

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (requesting) return;
    clear();
    const problems: Record<string, string> = {};
    if (values.password !== values.confirm) problems.confirm = PASSWORD_MISMATCH;
    if (!adult) problems.confirmAdult = ADULT_REQUIRED;
    if (!terms) problems.acceptTerms = TERMS_REQUIRED;
    if (Object.keys(problems).length) {
      setFieldErrors(problems);
      return;
    }
    setRequesting(true);
    try {
      const res = await account.register({
        name: values.name.trim(),
        username: values.username.trim(),
        email: values.email.trim(),
        password: values.password,
        role,
        confirmAdult: true,
        acceptTerms: true,
        ...(next ? { next } : {}),
        ...(captcha ? { captchaToken } : {}),
      });
      setDone(res.message);
    } catch (err) {
      fail(err);
      if (captcha) setCaptchaReset((n) => n + 1);
    } finally {
      setRequesting(false);
    }
  };

  if (done) {
    return (
      <FormSuccess message={done}>
        <p>
          <a className="btn btn--primary" href={withNext('/auth/login', next)} data-testid="register-login">
            Go to log in
          </a>
        </p>
      </FormSuccess>
    );
  }

  return (
    <form className="form" onSubmit={onSubmit} data-testid="register-form" aria-busy={requesting}>
      <fieldset className="form__choices">
        <legend>I am joining as</legend>
        <label className="form__check">
          <input type="radio" name="role" value="user" checked={role === 'user'} onChange={() => setRole('user')} />a fan
        </label>
        <label className="form__check">
          <input type="radio" name="role" value="performer" checked={role === 'performer'} onChange={() => setRole('performer')} />a performer
        </label>
      </fieldset>
      {fieldErrors.role ? (
        <p className="form__error" role="alert">
          {fieldErrors.role}
        </p>
      ) : null}
      <Field label="Name" error={fieldErrors.name}>
        {(p) => <input {...p} name="name" autoComplete="name" required maxLength={100} value={values.name} onChange={set('name')} />}
      </Field>
      <Field label="Username" error={fieldErrors.username} hint="3 to 30 characters: lowercase letters, digits, “_” or “.”">
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
            value={values.username}
            onChange={set('username')}
          />
        )}
      </Field>
      <Field label="Email" error={fieldErrors.email}>
        {(p) => <input {...p} name="email" type="email" autoComplete="email" required maxLength={254} value={values.email} onChange={set('email')} />}
      </Field>
      <Field label="Password" error={fieldErrors.password} hint="At least 8 characters, with a letter and a digit">
        {(p) => (
          <input {...p} name="password" type="password" autoComplete="new-password" required minLength={PASSWORD_MIN} maxLength={PASSWORD_MAX} value={values.password} onChange={set('password')} />
        )}
      </Field>
      <Field label="Confirm password" error={fieldErrors.confirm}>
        {(p) => (
          <input {...p} name="confirm" type="password" autoComplete="new-password" required maxLength={PASSWORD_MAX} value={values.confirm} onChange={set('confirm')} />
        )}
      </Field>
      <div className="form__consent">
        <label className="form__check">
          <input
            type="checkbox"
            name="confirmAdult"
            checked={adult}
            onChange={(e) => setAdult(e.target.checked)}
            aria-invalid={fieldErrors.confirmAdult ? true : undefined}
            aria-describedby={fieldErrors.confirmAdult ? `${checkId}-adult` : undefined}
            data-testid="register-adult"
          />
          I am 18 years old or older
        </label>
        {fieldErrors.confirmAdult ? (
          <p id={`${checkId}-adult`} className="form__error" role="alert">
            {fieldErrors.confirmAdult}
          </p>
        ) : null}
        <label className="form__check">
          <input
            type="checkbox"
            name="acceptTerms"
            checked={terms}
            onChange={(e) => setTerms(e.target.checked)}
            aria-invalid={fieldErrors.acceptTerms ? true : undefined}
            aria-describedby={fieldErrors.acceptTerms ? `${checkId}-terms` : undefined}
            data-testid="register-terms"
          />
          <span>
            I accept the{' '}
            <a href={termsHref} target="_blank" rel="noopener">
              terms of service
            </a>
          </span>
        </label>
        {fieldErrors.acceptTerms ? (
          <p id={`${checkId}-terms`} className="form__error" role="alert">
            {fieldErrors.acceptTerms}
          </p>
        ) : null}
      </div>
      {captcha ? <Captcha siteKey={captcha.siteKey} onToken={setCaptchaToken} resetKey={captchaReset} /> : null}
      {fieldErrors.captchaToken ? (
        <p className="form__error" role="alert">
          {fieldErrors.captchaToken}
        </p>
      ) : null}
      <FormAlert message={formError} />
      <div className="form__actions">
        <button className="btn btn--primary" type="submit" disabled={requesting} data-testid="register-submit">
          {requesting ? 'Creating your account…' : 'Create account'}
        </button>
        <span>
          Already have an account? <a href={withNext('/auth/login', next)}>Log in</a>
        </span>
      </div>
    </form>
  );
}
