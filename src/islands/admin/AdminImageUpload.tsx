import { useState, type ChangeEvent } from 'react';
import { errorMessage } from '../../lib/api/error.js';
import { admin } from '../../lib/stores/admin.js';
import { toast } from '../../lib/stores/toast.js';
import { GENERIC_ERROR } from '../shared/useFormErrors.js';

export interface AdminImageUploadProps {
  label: string;
  path: string;
  currentUrl?: string | null;
  testId: string;
}

const MAX = 5 * 1024 * 1024;

/** Uploads one image to a console route (logo, favicon, login placeholder, banner picture). */
export default function AdminImageUpload({ label, path, currentUrl, testId }: AdminImageUploadProps) {
  const [busy, setBusy] = useState(false);
  const onChange = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    if (file.size > MAX) return toast.error('This image is too large: it must be at most 5 MB.');
    setBusy(true);
    try {
      await admin.upload(path, file);
      toast.success('Image uploaded');
      window.location.reload();
    } catch (err) {
      toast.error(errorMessage(err, GENERIC_ERROR));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="admin-upload" data-testid={testId}>
      {currentUrl ? <img src={currentUrl} alt="" height={48} /> : null}
      <label className="btn">
        {busy ? 'Uploading…' : label}
        <input type="file" accept="image/*" hidden onChange={onChange} disabled={busy} />
      </label>
    </div>
  );
}
