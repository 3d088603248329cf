/** An upload's progress bar (XMLHttpRequest upload progress, see `upload()` in src/lib/api/upload.ts). */
export default function UploadProgress({ fraction, label = 'Uploading' }: { fraction: number | null; label?: string }) {
  if (fraction === null) return null;
  const pct = Math.round(fraction * 100);
  return (
    <div className="upload-progress" data-testid="upload-progress-box">
      <progress className="progress" max={100} value={pct} data-testid="upload-progress" aria-label={label} />
      <span className="form__hint" data-testid="upload-percent">{pct < 100 ? `${label}… ${pct}%` : 'Uploaded'}</span>
    </div>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`status status--${status}`} data-testid="processing-status">{status}</span>;
}

/** Money input in major units ("12.50") → minor units (1250); blank → undefined. */
export function toMinor(value: string): number | undefined {
  const v = value.trim();
  if (!v) return undefined;
  const n = Number(v.replace(',', '.'));
  return Number.isFinite(n) ? Math.round(n * 100) : Number.NaN;
}
export const toMajor = (minor: number) => (minor / 100).toFixed(2);
