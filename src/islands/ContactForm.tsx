import type { FormEvent } from 'react';
import { account } from '../lib/stores/account.js';
import { Field, FieldError, FormFooter } from './shared/Field.js';
import { EmailField, NameField } from './shared/account-fields.js';
import { useCaptchaSend } from './shared/useCaptchaSend.js';
import { useFormValues } from './shared/useFormValues.js';

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
  const { fieldErrors, formError, requesting, sent, submit, captcha } = useCaptchaSend(FIELDS, captchaEnabled, captchaSiteKey);

  const onSubmit = (event: FormEvent<HTMLFormElement>) =>
    submit(event, async (captchaPart) => {
      const subject = values.subject.trim();
      await account.contact({
        name: values.name.trim(),
        email: values.email.trim(),
        message: values.message.trim(),
        ...(subject ? { subject } : {}),
        ...captchaPart,
      });
      setValues(EMPTY);
      return CONTACT_SENT;
    });

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
      {captcha}
      <FieldError message={fieldErrors.captchaToken} />
      <FormFooter error={formError} success={sent} busy={requesting} busyLabel="Sending…" testId="contact-submit">
        Send message
      </FormFooter>
    </form>
  );
}
