import { useEffect, useRef, useState } from 'react';

/**
 * reCAPTCHA v2 checkbox, rendered only when the site has captcha configured (settings.captchaEnabled).
 * The script comes from google.com, so the page's Content-Security-Policy must allow
 * https://www.google.com and https://www.gstatic.com (script-src and frame-src) for it to load.
 */
interface Grecaptcha {
  ready(cb: () => void): void;
  render(el: HTMLElement, opts: { sitekey: string; callback: (token: string) => void; 'expired-callback': () => void; 'error-callback': () => void }): number;
  reset(widgetId?: number): void;
}

declare global {
  interface Window {
    grecaptcha?: Grecaptcha;
  }
}

const SCRIPT_URL = 'https://www.google.com/recaptcha/api.js?render=explicit';
let loading: Promise<Grecaptcha> | null = null;

function loadRecaptcha(): Promise<Grecaptcha> {
  if (window.grecaptcha?.render) return Promise.resolve(window.grecaptcha);
  loading ??= new Promise<Grecaptcha>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = SCRIPT_URL;
    script.async = true;
    script.addEventListener('load', () => (window.grecaptcha ? window.grecaptcha.ready(() => resolve(window.grecaptcha!)) : reject(new Error('no grecaptcha'))));
    script.addEventListener('error', () => {
      loading = null;
      reject(new Error('captcha script failed to load'));
    });
    document.head.append(script);
  });
  return loading;
}

export interface CaptchaProps {
  siteKey: string;
  onToken: (token: string) => void;
  /** Change it to reset the widget (a token is single use: reset after every submit). */
  resetKey?: number;
}

export function Captcha({ siteKey, onToken, resetKey = 0 }: CaptchaProps) {
  const box = useRef<HTMLDivElement>(null);
  const widget = useRef<{ api: Grecaptcha; id: number } | null>(null);
  const onTokenRef = useRef(onToken);
  onTokenRef.current = onToken;
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let alive = true;
    loadRecaptcha()
      .then((g) => {
        if (!alive || !box.current || widget.current) return;
        const id = g.render(box.current, {
          sitekey: siteKey,
          callback: (token) => onTokenRef.current(token),
          'expired-callback': () => onTokenRef.current(''),
          'error-callback': () => onTokenRef.current(''),
        });
        widget.current = { api: g, id };
      })
      .catch(() => alive && setFailed(true));
    return () => {
      alive = false;
    };
  }, [siteKey]);

  useEffect(() => {
    if (resetKey > 0 && widget.current) {
      widget.current.api.reset(widget.current.id);
      onTokenRef.current('');
    }
  }, [resetKey]);

  return (
    <div className="form__field">
      <div ref={box} data-testid="captcha" />
      {failed ? (
        <p className="form__error" role="alert">
          The captcha could not load. Please reload the page and try again.
        </p>
      ) : null}
    </div>
  );
}
