import { useEffect, useState, type FormEvent } from 'react';
import type { SignupRole } from '../../common/enums.js';
import { withNext } from '../../common/next-path.js';
import { account } from '../lib/stores/account.js';
import { getPublicSettings } from '../lib/runtime.js';
import { Captcha } from './shared/Captcha.js';
import { FieldError, CheckField, FormFooter, DoneWithLink } from './shared/Field.js';
import { ConfirmPasswordField, EmailField, NameField, NewPasswordField, UsernameField } from './shared/account-fields.js';
import { PASSWORD_MISMATCH, useFormErrors } from './shared/useFormErrors.js';
import { useFormValues } from './shared/useFormValues.js';

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
  const { values, set } = useFormValues({ name: '', username: '', email: '', password: '', confirm: '' });
  const [adult, setAdult] = useState(false);
  const [terms, setTerms] = useState(false);
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
      <DoneWithLink message={done} href={withNext('/auth/login', next)} testId="register-login">
        Go to log in
      </DoneWithLink>
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
      <FieldError message={fieldErrors.role} />
      <NameField error={fieldErrors.name} value={values.name} onChange={set('name')} />
      <UsernameField error={fieldErrors.username} value={values.username} onChange={set('username')} />
      <EmailField error={fieldErrors.email} value={values.email} onChange={set('email')} />
      <NewPasswordField label="Password" error={fieldErrors.password} value={values.password} onChange={set('password')} />
      <ConfirmPasswordField label="Confirm password" error={fieldErrors.confirm} value={values.confirm} onChange={set('confirm')} />
      <div className="form__consent">
        <CheckField name="confirmAdult" checked={adult} onChange={setAdult} error={fieldErrors.confirmAdult} testId="register-adult">
          I am 18 years old or older
        </CheckField>
        <CheckField name="acceptTerms" checked={terms} onChange={setTerms} error={fieldErrors.acceptTerms} testId="register-terms">
          <span>
            I accept the{' '}
            <a href={termsHref} target="_blank" rel="noopener">
              terms of service
            </a>
          </span>
        </CheckField>
      </div>
      {captcha ? <Captcha siteKey={captcha.siteKey} onToken={setCaptchaToken} resetKey={captchaReset} /> : null}
      <FieldError message={fieldErrors.captchaToken} />
      <FormFooter
        error={formError}
        busy={requesting}
        busyLabel="Creating your account…"
        testId="register-submit"
        after={
          <span>
            Already have an account? <a href={withNext('/auth/login', next)}>Log in</a>
          </span>
        }
      >
        Create account
      </FormFooter>
    </form>
  );
}
