import { useEffect, useState, type FormEvent } from 'react';
import { account } from '../lib/stores/account.js';
import { Captcha } from './shared/Captcha.js';
import { Field, FieldError, FormFooter } from './shared/Field.js';
import { EmailField, NameField } from './shared/account-fields.js';
import { useFormErrors } from './shared/useFormErrors.js';
import { useFormValues } from './shared/useFormValues.js';
import { useMounted } from '../lib/use-mounted.js';

export interface ContactFormProps {
  captchaEnabled?: boolean;
  captchaSiteKey?: string;
}

const FIELDS = ['name', 'email', 'subject', 'message', 'captchaToken'] as const;
const EMPTY = { name: '', email: '', subject: '', message: '' };
export const CONTACT_SENT = 'Thank you, your message has been sent. We will answer by email.';

/** The contact form (POST /contact). */
export default function ContactForm({ captchaEnabled = false, captchaSiteKey = '' }: ContactFormProps) {
  const { values, setValues, set } = useFormValues(EMPTY);
  const [requesting, setRequesting] = useState(false);
  const [sent, setSent] = useState<string | null>(null);
  const [captchaToken, setCaptchaToken] = useState('');
  const [captchaReset, setCaptchaReset] = useState(0);
  // The widget needs the browser; render it after hydration only.
  const mounted = useMounted();
  const { fieldErrors, formError, clear, fail } = useFormErrors(FIELDS);
  const withCaptcha = captchaEnabled && Boolean(captchaSiteKey);


  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (requesting) return;
    clear();
    setSent(null);
    setRequesting(true);
    try {
      const subject = values.subject.trim();
      await account.contact({
        name: values.name.trim(),
        email: values.email.trim(),
        message: values.message.trim(),
        ...(subject ? { subject } : {}),
        ...(withCaptcha ? { captchaToken } : {}),
      });
      setValues(EMPTY);
      setSent(CONTACT_SENT);
    } catch (err) {
      fail(err);
    } finally {
      setRequesting(false);
      if (withCaptcha) setCaptchaReset((n) => n + 1);
    }
  };

  return (
    <form className="form" onSubmit={onSubmit} data-testid="contact-form" aria-busy={requesting}>
      <NameField label="Your name" error={fieldErrors.name} value={values.name} onChange={set('name')} />
      <EmailField label="Your email" error={fieldErrors.email} value={values.email} onChange={set('email')} />
      <Field label="Subject (optional)" error={fieldErrors.subject}>
        {(p) => <input {...p} name="subject" maxLength={200} value={values.subject} onChange={set('subject')} />}
      </Field>
      <Field label="Message" error={fieldErrors.message} hint="At least 10 characters">
        {(p) => <textarea {...p} name="message" required minLength={10} maxLength={5000} value={values.message} onChange={set('message')} />}
      </Field>
      {withCaptcha && mounted ? <Captcha siteKey={captchaSiteKey} onToken={setCaptchaToken} resetKey={captchaReset} /> : null}
      <FieldError message={fieldErrors.captchaToken} />
      <FormFooter error={formError} success={sent} busy={requesting} busyLabel="Sending…" testId="contact-submit">
        Send message
      </FormFooter>
    </form>
  );
}
