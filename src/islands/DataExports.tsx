import { useEffect } from 'react';
import { useStore } from '@nanostores/react';
import type { DataExport, DataExportList } from '../../common/schemas/privacy.js';
import { askForDataExport, dataExports, seedDataExports } from '../lib/stores/privacy.js';

export interface DataExportsProps {
  initial: DataExportList;
}

const STATUS: Record<DataExport['status'], string> = {
  queued: 'Waiting to be prepared…',
  running: 'Being prepared…',
  ready: 'Ready',
  failed: 'Failed: please ask again',
  expired: 'Expired and deleted',
};

/** Bytes in words; the same on the server and in the browser (no locale). */
function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** ISO day, the same text on the server and in the browser. */
const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '');

/** "Download my data": ask for an export, follow it while the job makes it, download it while it lasts. */
export default function DataExports({ initial }: DataExportsProps) {
  useEffect(() => seedDataExports(initial), []);
  const state = useStore(dataExports);
  const items = state.items.length || state.busy ? state.items : initial.items;
  const working = items.some((x) => x.status === 'queued' || x.status === 'running');
  return (
    <section className="data-exports" data-testid="data-exports">
      <p className="form__hint">
        One JSON file with your profile, sessions, subscriptions, payments, orders, purchases, tips, comments, likes, follows, messages, notifications and reports
        (for a performer also your items, earnings and payouts). It is made in the background; the file is kept {initial.days} days, then deleted, and only you can
        download it.
      </p>
      <p>
        <button type="button" className="btn btn--primary" onClick={() => void askForDataExport()} disabled={state.busy || working} data-testid="data-export-request">
          {working ? 'Preparing your data…' : 'Download my data'}
        </button>
      </p>
      {state.error ? (
        <p className="form__error" role="alert" data-testid="data-export-error">
          {state.error}
        </p>
      ) : null}
      {items.length ? (
        <ul className="data-exports__list" aria-live="polite">
          {items.map((x) => (
            <li key={x._id} data-testid="data-export" data-status={x.status}>
              <span>Asked for {day(x.createdAt)}: {STATUS[x.status]}</span>
              {x.status === 'ready' && x.downloadUrl ? (
                <>
                  {' '}
                  <a href={x.downloadUrl} download data-testid="data-export-download">
                    Download ({size(x.size)})
                  </a>{' '}
                  <span className="form__hint">until {day(x.expiresAt)}</span>
                </>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
