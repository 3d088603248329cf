import { useEffect, useRef, useState, type ChangeEvent } from 'react';
import { useStore } from '@nanostores/react';
import type { CurrentUser } from '../../common/schemas/auth.js';
import { DEFAULT_AVATAR } from '../../common/avatar.js';
import { ApiError, errorMessage } from '../lib/api/error.js';
import { currentUser, setCurrentUser, uploadUserImage, uploading } from '../lib/stores/user.js';
import { GENERIC_ERROR } from './shared/useFormErrors.js';

export interface AvatarUploadProps {
  initialUser: CurrentUser;
}

type Kind = 'avatar' | 'cover';

/** The API's limit (see the upload routes' description); checked here too to spare a pointless upload. */
export const IMAGE_MAX_BYTES = 5 * 1024 * 1024;
export const TOO_LARGE = 'This image is too large: it must be at most 5 MB.';
export const NOT_AN_IMAGE = 'Please choose an image file.';

/** The message for a failed upload: the server's (413 too large, 400 not an image...), else ours. */
export function uploadErrorMessage(err: unknown): string {
  return errorMessage(err, err instanceof ApiError && err.status === 413 ? TOO_LARGE : GENERIC_ERROR);
}

function ImagePicker({ kind, label, current }: { kind: Kind; label: string; current: string | null }) {
  const busy = useStore(uploading);
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const inputId = `${kind}-file`;
  const errorId = `${kind}-upload-error`;

  // Object URLs hold the file in memory until revoked.
  useEffect(() => {
    if (!file) {
      setPreview(null);
      return;
    }
    const url = URL.createObjectURL(file);
    setPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [file]);

  const reset = () => {
    setFile(null);
    if (input.current) input.current.value = '';
  };

  const onChange = (event: ChangeEvent<HTMLInputElement>) => {
    setError(null);
    const chosen = event.target.files?.[0] ?? null;
    // An empty type (some HEIC files) is left to the server, which sniffs the bytes.
    const problem = !chosen ? null : chosen.type && !chosen.type.startsWith('image/') ? NOT_AN_IMAGE : chosen.size > IMAGE_MAX_BYTES ? TOO_LARGE : null;
    if (problem) {
      setError(problem);
      reset();
      return;
    }
    setFile(chosen);
  };

  const upload = async () => {
    if (!file || busy) return;
    setError(null);
    try {
      await uploadUserImage(kind, file);
      reset();
    } catch (err) {
      setError(uploadErrorMessage(err));
    }
  };

  const shown = preview ?? current ?? (kind === 'avatar' ? DEFAULT_AVATAR : null);
  return (
    <div className="image-upload" data-testid={`${kind}-upload`}>
      {shown ? (
        <img
          className={`image-upload__preview image-upload__preview--${kind}`}
          src={shown}
          alt={preview ? `Preview of your new ${kind}` : `Your current ${kind}`}
          width={kind === 'avatar' ? 96 : 480}
          height={kind === 'avatar' ? 96 : 160}
          data-testid={`${kind}-preview`}
        />
      ) : (
        <div className={`image-upload__preview image-upload__preview--${kind}`} aria-hidden="true" />
      )}
      <div className="form__field">
        <label htmlFor={inputId}>{label}</label>
        <input
          ref={input}
          id={inputId}
          type="file"
          name="file"
          accept="image/*"
          onChange={onChange}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          data-testid={`${kind}-input`}
        />
      </div>
      {error ? (
        <p id={errorId} className="form__error" role="alert">
          {error}
        </p>
      ) : null}
      {file ? (
        <div className="form__actions">
          <button type="button" className="btn btn--primary" disabled={busy !== null} onClick={upload} data-testid={`${kind}-submit`}>
            {busy === kind ? 'Uploading…' : `Upload ${kind}`}
          </button>
          <button type="button" className="btn" disabled={busy !== null} onClick={reset}>
            Cancel
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** Avatar and cover uploads of the profile page: choose, preview, upload (multipart field `file`). */
export default function AvatarUpload({ initialUser }: AvatarUploadProps) {
  const storeUser = useStore(currentUser);
  const [seeded, setSeeded] = useState(false);
  useEffect(() => {
    if (!currentUser.get()) setCurrentUser(initialUser);
    setSeeded(true);
  }, []);
  const user = (seeded && storeUser) || initialUser;
  return (
    <div>
      <ImagePicker kind="avatar" label="Choose a new avatar" current={user.avatar || DEFAULT_AVATAR} />
      <ImagePicker kind="cover" label="Choose a new cover image" current={user.cover ?? null} />
    </div>
  );
}
