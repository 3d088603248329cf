import { useState, type FormEvent, type ReactNode } from 'react';
import { useMounted } from '../../lib/use-mounted.js';
import { Captcha } from './Captcha.js';
import { useFormErrors } from './useFormErrors.js';

/**
 * A public form anyone may send (contact, takedown), guarded by the captcha when the site has one: one send at a time,
 * the errors beside their fields, the success text, and a fresh captcha after every try (a token is good once). The
 * widget needs the browser, so it appears once the island has mounted.
 */
export function useCaptchaSend(fields: readonly string[], captchaEnabled: boolean, captchaSiteKey: string) {
  const [requesting, setRequesting] = useState(false);
  const [sent, setSent] = useState<string | null>(null);
  const [captchaToken, setCaptchaToken] = useState('');
  const [captchaReset, setCaptchaReset] = useState(0);
  const mounted = useMounted();
  const { fieldErrors, formError, clear, fail } = useFormErrors(fields);
  const withCaptcha = captchaEnabled && Boolean(captchaSiteKey);

  /** Sends with `send`, which gets the captcha's part of the body and answers the text to show on success. */
  const submit = async (event: FormEvent<HTMLFormElement>, send: (captcha: { captchaToken?: string }) => Promise<string>) => {
    event.preventDefault();
    if (requesting) return;
    clear();
    setSent(null);
    setRequesting(true);
    try {
      setSent(await send(withCaptcha ? { captchaToken } : {}));
    } catch (err) {
      fail(err);
    } finally {
      setRequesting(false);
      if (withCaptcha) setCaptchaReset((n) => n + 1);
    }
  };

  const captcha: ReactNode = withCaptcha && mounted ? <Captcha siteKey={captchaSiteKey} onToken={setCaptchaToken} resetKey={captchaReset} /> : null;
  return { fieldErrors, formError, requesting, sent, submit, captcha };
}
