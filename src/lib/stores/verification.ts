import { map, type MapStore } from 'nanostores';
import type { MyVerification } from '../../../common/schemas/verification.js';
import { ApiError, errorMessage } from '../api/error.js';
import { upload } from '../api/upload.js';

/**
 * The studio's identity verification form (server/verification/README.md): one store per island instance, seeded
 * with the page's state. `submit` sends the multipart form with progress; on success the state becomes the server's
 * answer (pending review), on failure the message and the server's field errors land in the store.
 */
export interface VerificationFormState {
  verification: MyVerification;
  /** 0..1 while sending; null when idle. */
  progress: number | null;
  error: string | null;
  fieldErrors: Record<string, string>;
}

export interface VerificationForm {
  store: MapStore<VerificationFormState>;
  submit(form: FormData): Promise<boolean>;
  /** Form-side checks that failed before anything was sent. */
  invalid(fieldErrors: Record<string, string>, error?: string | null): void;
}

export const VERIFICATION_SEND_ERROR = 'Could not send your verification, please try again';

export function createVerificationForm(initial: MyVerification): VerificationForm {
  const store = map<VerificationFormState>({ verification: initial, progress: null, error: null, fieldErrors: {} });
  return {
    store,
    invalid(fieldErrors, error = null) {
      store.set({ ...store.get(), progress: null, error, fieldErrors });
    },
    async submit(form) {
      store.set({ ...store.get(), progress: 0, error: null, fieldErrors: {} });
      try {
        const verification = await upload<MyVerification>('/performer/verification', form, { onProgress: (fraction) => store.setKey('progress', fraction) });
        store.set({ verification, progress: null, error: null, fieldErrors: {} });
        return true;
      } catch (err) {
        store.set({ ...store.get(), progress: null, error: errorMessage(err, VERIFICATION_SEND_ERROR), fieldErrors: err instanceof ApiError ? err.fieldErrors() : {} });
        return false;
      }
    },
  };
}
