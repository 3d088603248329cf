import { map } from 'nanostores';
import type { DataExport, DataExportList, DeleteAccountRequest } from '../../../common/schemas/privacy.js';
import { ApiError, errorMessage } from '../api/error.js';
import { call } from './client.js';

/**
 * The account's data page (docs/product.md, Your data): the exports, asked for and followed by polling until the job
 * made the file, and deleting the account. Seeded from what the server rendered.
 */

export interface DataExportsState {
  items: DataExport[];
  days: number;
  busy: boolean;
  error: string | null;
}

export const dataExports = map<DataExportsState>({ items: [], days: 7, busy: false, error: null });

const POLL_MS = 1500;
let timer: ReturnType<typeof setTimeout> | undefined;

const working = (items: readonly DataExport[]) => items.some((x) => x.status === 'queued' || x.status === 'running');

export function seedDataExports(initial: DataExportList): () => void {
  dataExports.set({ items: initial.items, days: initial.days, busy: false, error: null });
  schedule();
  return () => {
    clearTimeout(timer);
    timer = undefined;
  };
}

function schedule(): void {
  clearTimeout(timer);
  timer = working(dataExports.get().items) ? setTimeout(() => void refreshDataExports(), POLL_MS) : undefined;
}

export async function refreshDataExports(): Promise<void> {
  try {
    const list = await call(({ auth }) => auth.dataExports());
    dataExports.set({ ...dataExports.get(), items: list.items, days: list.days, error: null });
  } catch (err) {
    dataExports.setKey('error', errorMessage(err, 'Could not load your exports, please try again'));
  }
  schedule();
}

export async function askForDataExport(): Promise<void> {
  if (dataExports.get().busy) return;
  dataExports.set({ ...dataExports.get(), busy: true, error: null });
  try {
    const created = await call(({ auth }) => auth.requestDataExport());
    dataExports.setKey('items', [created, ...dataExports.get().items.filter((x) => x._id !== created._id)]);
  } catch (err) {
    // 409: one is already being made; the list shows it.
    dataExports.setKey('error', err instanceof ApiError && err.status === 409 ? err.message : errorMessage(err, 'Could not ask for your export, please try again'));
  } finally {
    dataExports.setKey('busy', false);
  }
  schedule();
}

/** Deletes the account; throws the API's error for the form to place. */
export async function deleteAccount(body: DeleteAccountRequest): Promise<string> {
  const res = await call(({ auth }) => auth.deleteAccount(body));
  return res.message;
}
