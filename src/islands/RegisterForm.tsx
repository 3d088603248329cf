import { useEffect, useState, type FormEvent } from 'react';
import type { SignupRole } from '../../common/api-types.js';
import { account } from '../lib/stores/account.js';
import { getPublicSettings } from '../lib/runtime.js';
import { Captcha } from './shared/Captcha.js';
import { Field, FormAlert, FormSuccess } from './shared/Field.js';
import { PASSWORD_MISMATCH, useFormErrors } from './shared/useFormErrors.js';

export interface RegisterFormProps {
  initialRole?: SignupRole;
}

const FIELDS = ['name', 'username', 'email', 'password', 'confirm', 'role', 'captchaToken'] as const;

/** Sign-up as a fan or a performer; the server mails a verification link. */
export default function RegisterForm({ initialRole = 'user' }: RegisterFormProps) {
  const [values, setValues] = useState({ name: '', username: '', email: '', password: '', confirm: '' });
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
    if (values.password !== values.confirm) {
      setFieldErrors({ confirm: PASSWORD_MISMATCH });
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
          <a className="btn btn--primary" href="/auth/login">
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
          <input {...p} name="password" type="password" autoComplete="new-password" required minLength={8} maxLength={128} value={values.password} onChange={set('password')} />
        )}
      </Field>
      <Field label="Confirm password" error={fieldErrors.confirm}>
        {(p) => (
          <input {...p} name="confirm" type="password" autoComplete="new-password" required maxLength={128} value={values.confirm} onChange={set('confirm')} />
        )}
      </Field>
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
          Already have an account? <a href="/auth/login">Log in</a>
        </span>
      </div>
    </form>
  );
}
