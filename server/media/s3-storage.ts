import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import path from 'node:path';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Storage } from './storage.js';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** S3-compatible endpoint (MinIO, R2, Ceph, s3rver …); unset = AWS. */
  endpoint?: string;
  /** Unset: the SDK's default chain (AWS_* variables, shared config, instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** `http://host/bucket/key` instead of `http://bucket.host/key` (most self-hosted servers need it). */
  forcePathStyle?: boolean;
  /** Prepended to every key, e.g. `site-a/` to share one bucket. */
  prefix?: string;
  /** Part size of streamed multipart uploads (S3 minimum 5 MiB). */
  partSize?: number;
  /** Parts uploaded in parallel per upload (each holds one part in memory). */
  queueSize?: number;
  /** Concurrent connections to the server (each streaming read holds one). */
  maxSockets?: number;
  /** A ready client (tests); the connection options above are then ignored. */
  client?: S3Client;
}

const contentTypes: Record<string, string> = {
  '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.png': 'image/png', '.webp': 'image/webp', '.gif': 'image/gif',
  '.svg': 'image/svg+xml', '.mp4': 'video/mp4', '.webm': 'video/webm', '.pdf': 'application/pdf', '.zip': 'application/zip',
};

/**
 * S3-compatible driver. Same contract as LocalDiskStorage: `put` streams (multipart upload above one part, a
 * half-written object never becomes visible and a failed upload is aborted), `read` is a ranged GET, `stat` a
 * HEAD (null when missing), `delete` ignores missing keys, `read` of a missing key errors the stream with code
 * ENOENT as fs does, and `localPath` is undefined, so ffmpeg and sharp work on a temporary download
 * (server/media/pipeline/local-file.ts).
 */
export class S3Storage implements Storage {
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly partSize: number;
  private readonly queueSize: number;

  constructor(opts: S3StorageOptions) {
    this.bucket = opts.bucket;
    this.prefix = normalisePrefix(opts.prefix);
    this.partSize = Math.max(5 * 1024 * 1024, opts.partSize ?? 8 * 1024 * 1024);
    this.queueSize = Math.max(1, opts.queueSize ?? 4);
    this.client =
      opts.client ??
      new S3Client({
        region: opts.region,
        endpoint: opts.endpoint || undefined,
        forcePathStyle: opts.forcePathStyle ?? false,
        // A playing video holds its GET open as long as the viewer streams; the SDK's default pool of 50 sockets
        // would queue the 51st viewer behind the others.
        requestHandler: { httpAgent: { keepAlive: true, maxSockets: opts.maxSockets ?? 512 }, httpsAgent: { keepAlive: true, maxSockets: opts.maxSockets ?? 512 } },
        credentials: opts.accessKeyId && opts.secretAccessKey ? { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey } : undefined,
        // Many S3-compatible servers reject the SDK's newer default integrity checksums; send them only when
        // an operation requires them when talking to something other than AWS.
        ...(opts.endpoint ? { requestChecksumCalculation: 'WHEN_REQUIRED' as const, responseChecksumValidation: 'WHEN_REQUIRED' as const } : {}),
      });
  }

  /** The object key of a storage key (with the prefix); refuses keys the local driver would refuse. */
  objectKey(key: string): string {
    if (!key || key.startsWith('/') || key.includes('\\') || key.includes('\0') || key.split('/').some((s) => s === '' || s === '.' || s === '..')) {
      throw new Error(`storage key escapes root: ${key}`);
    }
    return this.prefix + key;
  }

  async put(key: string, body: Buffer | Readable): Promise<{ size: number }> {
    const Key = this.objectKey(key);
    const ContentType = contentTypes[path.extname(key).toLowerCase()] ?? 'application/octet-stream';
    if (Buffer.isBuffer(body)) {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: body, ContentType, ContentLength: body.length }));
      return { size: body.length };
    }
    let size = 0;
    let sourceError: unknown;
    // Counting through a generator (not a PassThrough) keeps the source's own error (e.g. a 413 thrown by the
    // upload size check) as the error `put` rejects with, even when aborting the multipart upload fails too.
    async function* counted(): AsyncGenerator<Buffer> {
      try {
        for await (const chunk of body as Readable) {
          const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
          size += buf.length;
          yield buf;
        }
      } catch (err) {
        sourceError = err;
        throw err;
      }
    }
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key, Body: Readable.from(counted()), ContentType },
      partSize: this.partSize,
      queueSize: this.queueSize,
      // A failed multipart upload is aborted so its parts do not linger (and bill) in the bucket.
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      if (!body.destroyed) body.destroy();
      throw sourceError ?? err;
    }
    return { size };
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    const out = new PassThrough();
    let Key: string;
    try {
      Key = this.objectKey(key);
    } catch (err) {
      process.nextTick(() => out.destroy(err as Error));
      return out;
    }
    const abort = new AbortController();
    let started = false;
    // A reader that goes away (a closed video tab) cancels the request or the body it is streaming.
    out.once('close', () => {
      if (!started) abort.abort();
    });
    this.client
      .send(new GetObjectCommand({ Bucket: this.bucket, Key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }), { abortSignal: abort.signal })
      .then((res) => {
        started = true;
        const body = res.Body as Readable | undefined;
        if (!body) return void out.end();
        if (out.destroyed) return void body.destroy();
        // The route has promised exactly end-start+1 bytes (Content-Length); some S3-compatible servers send
        // more for e.g. `bytes=0-0`, so stop there (and drop the rest of the body) whatever the server does.
        const done = range ? pipeline(body, limitTo(range.end - range.start + 1), out) : pipeline(body, out);
        done.catch((err) => {
          if (!out.destroyed) out.destroy(err as Error);
        });
      })
      .catch((err) => {
        if (!out.destroyed) out.destroy(isMissing(err) ? enoent(key) : (err as Error));
      });
    return out;
  }

  async stat(key: string): Promise<{ size: number } | null> {
    let Key: string;
    try {
      Key = this.objectKey(key);
    } catch {
      return null; // as LocalDiskStorage: no such file can exist
    }
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key }));
      return { size: head.ContentLength ?? 0 };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
    } catch (err) {
      // S3 answers 204 for a missing key; some compatible servers answer 404. Either way it is gone.
      if (!isMissing(err)) throw err;
    }
  }

  localPath(): undefined {
    return undefined;
  }
}

function limitTo(bytes: number) {
  return async function* (source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    let left = bytes;
    if (left <= 0) return;
    for await (const chunk of source) {
      if (chunk.length >= left) {
        yield chunk.subarray(0, left);
        return;
      }
      left -= chunk.length;
      yield chunk;
    }
  };
}

function normalisePrefix(prefix: string | undefined): string {
  const p = (prefix ?? '').replace(/^\/+|\/+$/g, '');
  return p ? `${p}/` : '';
}

function isMissing(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name;
  if (name === 'NoSuchKey' || name === 'NotFound') return true;
  // A missing bucket is a configuration error, never "no such file".
  return err instanceof S3ServiceException && err.$metadata?.httpStatusCode === 404 && name !== 'NoSuchBucket';
}

/** The error fs gives for a missing file, so callers see one shape whatever the driver. */
function enoent(key: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`ENOENT: no such stored object, ${key}`);
  err.code = 'ENOENT';
  err.errno = -2;
  err.syscall = 'open';
  return err;
}
