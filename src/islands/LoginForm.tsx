import { useEffect, useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import { login, loginError, loginNeedsCaptcha, loginStatus } from '../lib/stores/auth.js';
import { getPublicSettings } from '../lib/runtime.js';
import { Captcha } from './shared/Captcha.js';
import { Field, FormFooter } from './shared/Field.js';
import { CurrentPasswordField } from './shared/account-fields.js';
import { withNext } from '../../common/next-path.js';

export interface LoginFormProps {
  /** A safe path on this site (checked by the page): the sign-up link keeps it, so a new member comes back too. */
  next?: string | null;
}

/** Log in with email or username (docs/product.md): the auth store does the call, the toast and the redirect. */
export default function LoginForm({ next = null }: LoginFormProps) {
  const status = useStore(loginStatus);
  const error = useStore(loginError);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [remember, setRemember] = useState(true);
  // The server asks for a captcha only for an account with many failed logins; the widget appears then.
  const needsCaptcha = useStore(loginNeedsCaptcha);
  const [siteKey, setSiteKey] = useState<string | null>(null);
  const [captchaToken, setCaptchaToken] = useState('');
  const [captchaReset, setCaptchaReset] = useState(0);
  // Settings are read after hydration, so the server and the first client render agree.
  useEffect(() => {
    const s = getPublicSettings();
    if (s?.captchaEnabled && s.captchaSiteKey) setSiteKey(s.captchaSiteKey);
  }, []);
  const requesting = status === 'requesting';
  // After success the page is navigating away: keep the button disabled.
  const busy = requesting || status === 'success';

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const withCaptcha = needsCaptcha && captchaToken;
    void login({ email: email.trim(), password, remember, ...(withCaptcha ? { captchaToken } : {}) }).then((ok) => {
      // A token is single use.
      if (!ok && withCaptcha) setCaptchaReset((n) => n + 1);
    });
  };

  return (
    <form className="form" onSubmit={onSubmit} data-testid="login-form" aria-busy={requesting}>
      <Field label="Email or username">
        {(p) => (
          <input
            {...p}
            name="email"
            type="text"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            required
            maxLength={254}
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            data-testid="login-email"
          />
        )}
      </Field>
      <CurrentPasswordField label="Password" name="password" testId="login-password" value={password} onChange={(e) => setPassword(e.target.value)} />
      <label className="form__check">
        <input type="checkbox" name="remember" checked={remember} onChange={(e) => setRemember(e.target.checked)} />
        Keep me logged in
      </label>
      {needsCaptcha && siteKey ? <Captcha siteKey={siteKey} onToken={setCaptchaToken} resetKey={captchaReset} /> : null}
      <FormFooter error={status === 'error' ? error : null} busy={requesting} disabled={busy} busyLabel="Logging in…" testId="login-submit">
        Log in
      </FormFooter>
      <div className="form__links">
        <a href="/auth/forgot-password">Forgot your password?</a>
        <a href={withNext('/auth/register', next)} data-testid="login-register">
          Create an account
        </a>
      </div>
    </form>
  );
}
