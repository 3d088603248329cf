import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { StorageConfig } from '../config.js';

/**
 * Where media bytes live. Keys are relative paths like `public/avatars/<id>.webp` or `private/videos/<id>.mp4`:
 * `public/` keys may be served to anyone, `private/` keys only through signed URLs.
 *
 * Drivers: `LocalDiskStorage` (below, the default, under MEDIA_DIR) and `S3Storage` (./s3-storage.ts,
 * STORAGE_DRIVER=s3: put = multipart upload from the stream, read = ranged GET, stat = HEAD, delete = DELETE,
 * localPath = undefined, so ffmpeg and sharp work on a temporary download: see server/media/pipeline/local-file.ts).
 * `createStorage` (bottom) picks one from the config. Missing keys look the same in both: `stat` answers null,
 * `read` errors its stream with code ENOENT, `delete` does nothing.
 */
export interface Storage {
  put(key: string, body: Buffer | Readable): Promise<{ size: number }>;
  /** Stream bytes [start, end] inclusive, or the whole object. */
  read(key: string, range?: { start: number; end: number }): Readable;
  stat(key: string): Promise<{ size: number } | null>;
  delete(key: string): Promise<void>;
  /** Absolute path when the driver is the local disk (ffmpeg and sharp read files), else undefined. */
  localPath(key: string): string | undefined;
}

export class LocalDiskStorage implements Storage {
  constructor(private readonly root: string) {}

  private resolve(key: string): string {
    const full = path.resolve(this.root, key);
    // Keys come from our own code, but a bug must never let one escape the media root.
    if (!full.startsWith(path.resolve(this.root) + path.sep)) throw new Error(`storage key escapes root: ${key}`);
    return full;
  }

  async put(key: string, body: Buffer | Readable): Promise<{ size: number }> {
    const full = this.resolve(key);
    await fsp.mkdir(path.dirname(full), { recursive: true });
    // Write to a temp name then rename, so a crash never leaves a half file under the real key.
    const tmp = `${full}.${process.pid}.${randomBytes(6).toString('hex')}.part`;
    try {
      if (Buffer.isBuffer(body)) await fsp.writeFile(tmp, body);
      else await pipeline(body, fs.createWriteStream(tmp));
      await fsp.rename(tmp, full);
    } catch (err) {
      await fsp.rm(tmp, { force: true });
      throw err;
    }
    const { size } = await fsp.stat(full);
    return { size };
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    return fs.createReadStream(this.resolve(key), range ? { start: range.start, end: range.end } : undefined);
  }

  async stat(key: string): Promise<{ size: number } | null> {
    try {
      const s = await fsp.stat(this.resolve(key));
      return s.isFile() ? { size: s.size } : null;
    } catch {
      return null;
    }
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.resolve(key), { force: true });
  }

  localPath(key: string): string {
    return this.resolve(key);
  }
}

/** URL of a public media object. */
export function publicMediaUrl(storageKey: string | null | undefined): string | null {
  if (!storageKey) return null;
  if (/^https?:\/\//.test(storageKey) || storageKey.startsWith('/')) return storageKey;
  if (!storageKey.startsWith('public/')) return null;
  return `/media/${storageKey}`;
}

/** The configured driver. The S3 SDK is loaded only when STORAGE_DRIVER=s3. */
export async function createStorage(config: { mediaDir: string; storage: StorageConfig }): Promise<Storage> {
  if (config.storage.driver === 'local') return new LocalDiskStorage(config.mediaDir);
  const { S3Storage } = await import('./s3-storage.js');
  return new S3Storage(config.storage);
}
