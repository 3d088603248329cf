import type { DbOrTrx } from '../db/database.js';
import { publicMediaUrl } from '../media/storage.js';
import { childFiles, deleteFileRows, getFiles, type FileRow } from '../media/pipeline/pipeline.repository.js';
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
  // A derived file's own stamped copy (a post picture's display file's watermark, server/media/watermark/).
  const grandchildren = await childFiles(db, children.map((c) => c.id));
  const all = new Map<string, FileRow>();
  for (const r of [...rows, ...rootRows, ...children, ...grandchildren]) all.set(r.id, r);
  return [...all.values()];
}

/** An item's public previews: the files its row links to, and those derived from its `originals` as `variants`. */
export async function previewFiles(db: DbOrTrx, linked: Array<string | null | undefined>, originals: string[], variants: string[]): Promise<FileRow[]> {
  const [rows, children] = await Promise.all([getFiles(db, linked), childFiles(db, originals, variants)]);
  return [...new Map([...rows, ...children].map((f) => [f.id, f])).values()];
}

/**
 * Deletes an item with its stored files in one transaction, or only hides it when somebody paid for it (buyers keep
 * what they bought). `files` names its stored files (with everything derived from them); `remove` deletes its rows,
 * links and counts. The file rows go in the transaction, the bytes after the commit.
 */
export async function removeItem(
  deps: StudioDeps,
  item: {
    paidFor(trx: DbOrTrx): Promise<boolean>;
    hide(trx: DbOrTrx): Promise<void>;
    files(trx: DbOrTrx): Promise<Array<string | null | undefined>>;
    remove(trx: DbOrTrx): Promise<void>;
  },
): Promise<void> {
  let keys: string[] = [];
  await deps.db.transaction().execute(async (trx) => {
    if (await item.paidFor(trx)) return item.hide(trx);
    const files = await fileFamily(trx, await item.files(trx));
    await item.remove(trx);
    await deleteFileRows(trx, files.map((f) => f.id));
    keys = files.map((f) => f.storageKey);
  });
  await deleteStored(deps, keys);
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
