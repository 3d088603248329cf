import { useState } from 'react';
import { catalogue, errorMessage } from '../lib/api.js';
import { navigate } from '../lib/navigation.js';
import { toast } from '../lib/stores/toast.js';

export interface DownloadButtonProps {
  productId: string;
  label?: string;
  testId?: string;
}

/**
 * A digital product's download: asks the API for a short-lived signed /media/protected URL and goes there;
 * the file answers with `Content-Disposition: attachment`, so the browser downloads it and stays on the page.
 * Pages render it only for viewers who own the product (the API answers 403 to everyone else).
 */
export default function DownloadButton({ productId, label = 'Download', testId = 'product-download' }: DownloadButtonProps) {
  const [busy, setBusy] = useState(false);
  const download = async () => {
    if (busy) return;
    setBusy(true);
    try {
      const link = await catalogue.productDownload(productId);
      navigate(link.downloadLink);
    } catch (err) {
      toast.error(errorMessage(err, 'Could not get the download, please try again'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className="btn btn--primary" disabled={busy} onClick={download} data-testid={testId}>
      {busy ? 'Preparing…' : label}
    </button>
  );
}
