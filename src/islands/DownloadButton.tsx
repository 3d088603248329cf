import { useStore } from '@nanostores/react';
import { downloadProduct, pending, pendingKey } from '../lib/stores/payments.js';

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
  const busy = Boolean(useStore(pending)[pendingKey.download(productId)]);
  const download = () => void downloadProduct(productId);
  return (
    <button type="button" className="btn btn--primary" disabled={busy} onClick={download} data-testid={testId}>
      {busy ? 'Preparing…' : label}
    </button>
  );
}
