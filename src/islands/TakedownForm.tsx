import { useState, type FormEvent } from 'react';
import { account } from '../lib/stores/account.js';
import { Field, FieldError, FormFooter } from './shared/Field.js';
import { EmailField, NameField } from './shared/account-fields.js';
import { useCaptchaSend } from './shared/useCaptchaSend.js';
import { useFormValues } from './shared/useFormValues.js';
import type { TakedownRelationship } from '../../common/enums.js';

export interface TakedownFormProps {
  /** The address to fill in (from an item page's "Request removal" link). */
  url?: string;
  captchaEnabled?: boolean;
  captchaSiteKey?: string;
}

const FIELDS = ['url', 'name', 'email', 'relationship', 'statement', 'declaration', 'captchaToken'] as const;
const RELATIONSHIPS: Array<[TakedownRelationship, string]> = [
  ['depicted', 'I am depicted in it'],
  ['representative', 'I represent the person depicted'],
  ['copyright', 'I own the copyright'],
];

/** The public takedown form (POST /takedowns): no account needed; the content is hidden as soon as it is sent. */
export default function TakedownForm({ url = '', captchaEnabled = false, captchaSiteKey = '' }: TakedownFormProps) {
  const empty = { url, name: '', email: '', relationship: 'depicted', statement: '' };
  const { values, setValues, set } = useFormValues(empty);
  const [declared, setDeclared] = useState(false);
  const { fieldErrors, formError, requesting, sent, submit, captcha } = useCaptchaSend(FIELDS, captchaEnabled, captchaSiteKey);

  const onSubmit = (event: FormEvent<HTMLFormElement>) =>
    submit(event, async (captchaPart) => {
      const receipt = await account.takedown({
        url: values.url.trim(),
        name: values.name.trim(),
        email: values.email.trim(),
        relationship: values.relationship as TakedownRelationship,
        statement: values.statement.trim(),
        declaration: declared as true,
        ...captchaPart,
      });
      setValues({ ...empty, url: '' });
      setDeclared(false);
      return `Thank you. Your request ${receipt.reference} was received and the content is no longer shown while we review it. We have sent you a confirmation by email.`;
    });

  return (
    <form className="form" onSubmit={onSubmit} data-testid="takedown-form" aria-busy={requesting}>
      <Field label="Address of the content" error={fieldErrors.url} hint="The page on this site, e.g. https://…/videos/…">
        {(p) => <input {...p} name="url" required maxLength={2000} value={values.url} onChange={set('url')} />}
      </Field>
      <NameField label="Your full name" error={fieldErrors.name} value={values.name} onChange={set('name')} />
      <EmailField label="Your email" error={fieldErrors.email} value={values.email} onChange={set('email')} />
      <Field label="Your relationship to the content" error={fieldErrors.relationship}>
        {(p) => (
          <select {...p} name="relationship" value={values.relationship} onChange={set('relationship')}>
            {RELATIONSHIPS.map(([value, label]) => (
              <option key={value} value={value}>{label}</option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Statement" error={fieldErrors.statement} hint="Why it should be removed (at least 20 characters)">
        {(p) => <textarea {...p} name="statement" required minLength={20} maxLength={5000} value={values.statement} onChange={set('statement')} />}
      </Field>
      <label className="form-check">
        <input type="checkbox" name="declaration" checked={declared} onChange={(e) => setDeclared(e.target.checked)} data-testid="takedown-declaration" required />{' '}
        I declare that the information in this request is accurate and that I am the person depicted, their authorised representative or
        the copyright owner. I sign this declaration with my name above.
      </label>
      <FieldError message={fieldErrors.declaration} />
      {captcha}
      <FieldError message={fieldErrors.captchaToken} />
      <FormFooter error={formError} success={sent} busy={requesting} busyLabel="Sending…" testId="takedown-submit">
        Send request
      </FormFooter>
    </form>
  );
}
