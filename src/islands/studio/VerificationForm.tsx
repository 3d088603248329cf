import { useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import type { MyVerification } from '../../../common/schemas/verification.js';
import { VERIFICATION_IMAGE_MAX_BYTES, VERIFICATION_IMAGE_TYPES, VERIFICATION_IMAGES, VERIFICATION_LEGAL_NAME_MAX } from '../../../common/verification.js';
import { createVerificationForm } from '../../lib/stores/verification.js';
import { Field, FormFooter } from '../shared/Field.js';
import UploadProgress from './UploadProgress.js';

export interface VerificationFormProps {
  initial: MyVerification;
  countries: Array<{ code: string; name: string }>;
}

const MB = Math.round(VERIFICATION_IMAGE_MAX_BYTES / (1024 * 1024));
const ACCEPTED = new Set(VERIFICATION_IMAGE_TYPES.split(','));

/**
 * The studio's identity and age verification (docs/product.md, Verification): the state (not submitted, pending
 * review, rejected with the admin's reason, approved) and, when there is something to send, the form: legal name,
 * date of birth, the document's country and three pictures, sent with upload progress. The server decides (18 or
 * older today, the pictures' real type); the form only catches what it can see before sending.
 */
export default function VerificationForm({ initial, countries }: VerificationFormProps) {
  const [form] = useState(() => createVerificationForm(initial));
  const { verification: v, progress, error, fieldErrors } = useStore(form.store);
  const [country, setCountry] = useState(initial.country ?? '');
  const busy = progress !== null;

  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const el = e.currentTarget;
    const data = new FormData(el);
    const errors: Record<string, string> = {};
    for (const img of VERIFICATION_IMAGES) {
      const file = data.get(img.field);
      if (!(file instanceof File) || file.size === 0) errors[img.field] = 'Add this picture';
      else if (file.size > VERIFICATION_IMAGE_MAX_BYTES) errors[img.field] = `At most ${MB} MB`;
      else if (file.type && !ACCEPTED.has(file.type)) errors[img.field] = 'A JPEG, PNG or WebP picture';
    }
    if (Object.keys(errors).length) return form.invalid(errors, 'Please check the highlighted fields');
    await form.submit(data);
  };

  return (
    <div className="verification" data-testid="verification" data-status={v.status}>
      {v.status === 'approved' && (
        <p className="notice" role="status" data-testid="verification-state">
          Your identity is verified. You can publish and sell.
        </p>
      )}
      {v.status === 'pending' && (
        <p className="notice" role="status" data-testid="verification-state">
          Thank you: your verification is waiting for an admin's review. We will email you the decision.
        </p>
      )}
      {v.status === 'rejected' && (
        <div className="notice" role="status" data-testid="verification-state">
          <p>Your verification was rejected. The admin's reason:</p>
          <p data-testid="verification-reason"><strong>{v.reason}</strong></p>
          <p>Please send it again below.</p>
        </div>
      )}
      {v.status === 'none' && (
        <p className="notice" data-testid="verification-state">
          Before you can publish or sell, we need to know who you are and that you are 18 or older: send your legal name,
          your date of birth and pictures of an identity document. Only the site's admins see them, and the pictures are
          deleted a few weeks after the decision.
        </p>
      )}
      {(v.status === 'none' || v.status === 'rejected') && (
        <form className="form verification__form" onSubmit={onSubmit} noValidate data-testid="verification-form">
          <Field label="Legal name (as on the document)" error={fieldErrors.legalName}>
            {(p) => <input {...p} name="legalName" autoComplete="name" required maxLength={VERIFICATION_LEGAL_NAME_MAX} defaultValue={v.legalName ?? ''} />}
          </Field>
          <Field label="Date of birth" error={fieldErrors.dateOfBirth} hint="You must be 18 or older">
            {(p) => <input {...p} name="dateOfBirth" type="date" autoComplete="bday" required defaultValue={v.dateOfBirth ?? ''} />}
          </Field>
          <Field label="Country that issued the document" error={fieldErrors.country}>
            {(p) => (
              <select {...p} name="country" required value={country} onChange={(e) => setCountry(e.target.value)}>
                <option value="">Choose a country</option>
                {countries.map((c) => (
                  <option key={c.code} value={c.code}>
                    {c.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {VERIFICATION_IMAGES.map((img) => (
            <Field key={img.field} label={img.label} error={fieldErrors[img.field]} hint={`A JPEG, PNG or WebP photo, at most ${MB} MB; every corner and word readable`}>
              {(p) => <input {...p} name={img.field} type="file" accept={VERIFICATION_IMAGE_TYPES} required data-testid={`verification-${img.field}`} />}
            </Field>
          ))}
          <UploadProgress fraction={progress} label="Sending" />
          <FormFooter error={error} busy={busy} busyLabel="Sending…" testId="verification-submit">
            {v.status === 'rejected' ? 'Send again' : 'Send for review'}
          </FormFooter>
        </form>
      )}
    </div>
  );
}
