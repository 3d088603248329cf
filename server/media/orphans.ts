import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import type { Storage } from './storage.js';
import { knownStorageKeys } from './pipeline/pipeline.repository.js';

/**
 * A process killed between "bytes stored" and "row committed" (an upload, a processing job, a delete whose
 * transaction committed but whose file delete did not run) leaves a stored object no `files` row names, or a
 * `*.part` temp file of a write that never finished. This sweep deletes such leftovers once they are older than
 * `olderThanMs` (ORPHAN_FILE_AGE_MS, default 1 h: far longer than any upload takes between its last byte and its
 * commit). Keys whose references live elsewhere (user avatars and covers in `users`, site images in `settings`)
 * are never touched. Local-disk driver only; a remote driver would list its bucket the same way.
 */
const NOT_IN_FILES_TABLE = ['public/avatars/', 'public/covers/', 'public/site/'];

export interface OrphanSweepReport {
  scanned: number;
  deleted: string[];
  partials: string[];
}

export async function sweepOrphanFiles(db: Db, storage: Storage, mediaDir: string, opts: { olderThanMs: number; now?: number }): Promise<OrphanSweepReport> {
  const report: OrphanSweepReport = { scanned: 0, deleted: [], partials: [] };
  const cutoff = (opts.now ?? Date.now()) - opts.olderThanMs;
  const root = path.resolve(mediaDir);
  const candidates: string[] = [];
  for (const top of ['public', 'private']) {
    for await (const full of walk(path.join(root, top))) {
      report.scanned++;
      const key = path.relative(root, full).split(path.sep).join('/');
      let st;
      try {
        st = await fsp.stat(full);
      } catch {
        continue;
      }
      if (st.mtimeMs > cutoff) continue;
      if (key.endsWith('.part')) {
        await fsp.rm(full, { force: true });
        report.partials.push(key);
        continue;
      }
      if (NOT_IN_FILES_TABLE.some((p) => key.startsWith(p))) continue;
      candidates.push(key);
    }
  }
  for (let i = 0; i < candidates.length; i += 500) {
    const batch = candidates.slice(i, i + 500);
    const known = await knownStorageKeys(db, batch);
    for (const key of batch) {
      if (known.has(key)) continue;
      await storage.delete(key).catch(() => {});
      report.deleted.push(key);
    }
  }
  return report;
}

async function* walk(dir: string): AsyncGenerator<string> {
  let entries;
  try {
    entries = await fsp.readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(full);
    else if (e.isFile()) yield full;
  }
}

/** Runs the sweep a few seconds after start, then every min(age, 1 h). Returns a stop function. */
export function scheduleOrphanSweep(db: Db, storage: Storage, mediaDir: string, olderThanMs: number, logger: Logger): () => void {
  let running = false;
  const run = () => {
    if (running) return;
    running = true;
    sweepOrphanFiles(db, storage, mediaDir, { olderThanMs })
      .then((r) => {
        if (r.deleted.length || r.partials.length) logger.warn({ deleted: r.deleted, partials: r.partials }, 'orphaned media files removed');
      })
      .catch((err) => logger.warn({ err: (err as Error).message }, 'orphan sweep failed'))
      .finally(() => {
        running = false;
      });
  };
  const first = setTimeout(run, Math.min(5000, olderThanMs));
  const every = setInterval(run, Math.min(olderThanMs, 3_600_000));
  first.unref();
  every.unref();
  return () => {
    clearTimeout(first);
    clearInterval(every);
  };
}
