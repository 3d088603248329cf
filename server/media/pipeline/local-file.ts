import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Storage } from '../storage.js';

/**
 * ffmpeg and sharp read files. With the local-disk driver that is the stored file itself; with a remote
 * driver the object is downloaded to a temporary file for the duration of `fn`.
 */
export async function withLocalFile<T>(storage: Storage, key: string, fn: (file: string) => Promise<T>): Promise<T> {
  const local = storage.localPath(key);
  if (local) return fn(local);
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'media-'));
  try {
    const file = path.join(dir, path.basename(key));
    await pipeline(storage.read(key), fs.createWriteStream(file));
    return await fn(file);
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/** A temporary directory for outputs, removed after `fn` whatever happens. */
export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'pipeline-'));
  try {
    return await fn(dir);
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}
