import { useCallback, useState } from 'react';
import { ApiError, errorMessage } from '../../lib/api/error.js';

export const GENERIC_ERROR = 'Something went wrong, please try again';

/**
 * Field and form errors of a form that shows the fields `fields`. `fail(err)` puts an ApiError's field
 * messages (400 VALIDATION_FAILED details, a 409's `{ field }`) next to those fields; the error's message
 * becomes the form-level alert unless every field message already has a place. `clear()` before a submit.
 */
export function useFormErrors(fields: readonly string[]) {
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);

  const clear = useCallback(() => {
    setFieldErrors({});
    setFormError(null);
  }, []);

  const fail = useCallback(
    (err: unknown, fallback = GENERIC_ERROR) => {
      if (!(err instanceof ApiError)) {
        setFieldErrors({});
        setFormError(fallback);
        return;
      }
      const all = err.fieldErrors();
      const shown = Object.fromEntries(Object.entries(all).filter(([k]) => fields.includes(k)));
      const placed = Object.keys(shown).length > 0 && Object.keys(shown).length === Object.keys(all).length;
      setFieldErrors(shown);
      setFormError(placed ? null : errorMessage(err, fallback));
    },
    [fields.join('|')],
  );

  return { fieldErrors, formError, setFieldErrors, setFormError, clear, fail };
}
export const PASSWORD_MISMATCH = 'The passwords do not match';
