import type { DbOrTrx } from '../db/database.js';
import { publicMediaUrl } from '../media/storage.js';
import { childFiles, getFiles, type FileRow } from '../media/pipeline/pipeline.repository.js';
import type { StudioDeps } from './deps.js';

/**
 * The stored files of studio items: what an item's files are, and their deletion. Each change runs in one
 * transaction together with the processing jobs it enqueues; stored files that end up unused are deleted after the
 * commit (`deleteStored`), except the previews withdrawn when an item locks (`withdrawPreviews`, inside it).
 */

/** A stored file and everything derived from it (so deleting an item leaves no orphan behind). */
export async function fileFamily(db: DbOrTrx, ids: Array<string | null | undefined>): Promise<FileRow[]> {
  const rows = await getFiles(db, ids);
  const roots = new Set(rows.map((r) => (r.variant !== 'original' && r.parentId ? r.parentId : r.id)));
  const [rootRows, children] = await Promise.all([getFiles(db, [...roots]), childFiles(db, [...roots])]);
  const all = new Map<string, FileRow>();
  for (const r of [...rows, ...rootRows, ...children]) all.set(r.id, r);
  return [...all.values()];
}

/**
 * Deletes the public previews an item had while it was free, inside the transaction that locks it. A delete that
 * fails throws, which rolls the change back: an item never turns locked while its free-time previews are still
 * served. Their URLs may be cached or shared; the new previews get new keys, so those URLs answer 404 from now on.
 */
export async function withdrawPreviews(deps: StudioDeps, keys: string[]): Promise<void> {
  await Promise.all(keys.map((k) => deps.storage.delete(k)));
}

export async function deleteStored(deps: StudioDeps, keys: string[]): Promise<void> {
  await Promise.all(keys.map((k) => deps.storage.delete(k).catch((err) => deps.logger.warn({ err, key: k }, 'could not delete stored media'))));
}

export function imageState(file: FileRow | undefined): { url: string | null; status: 'none' | 'processing' | 'ready' | 'failed' } {
  if (!file) return { url: null, status: 'none' };
  const url = publicMediaUrl(file.storageKey);
  if (url) return { url, status: 'ready' };
  return { url: null, status: file.status === 'failed' ? 'failed' : 'processing' };
}
