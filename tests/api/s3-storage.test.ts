import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalDiskStorage, type Storage } from '../../server/media/storage.js';
import { S3Storage } from '../../server/media/s3-storage.js';
import { withLocalFile } from '../../server/media/pipeline/local-file.js';
import { loadConfig } from '../../server/config.js';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { fileBytes, makeVideo, subscribe } from '../../server/seed/factories.js';
import { makeTestMedia, postForm, waitFor, type TestMedia } from '../helpers/uploads.js';

/**
 * The S3-compatible storage driver, against a real S3 server: s3rver, in-process, on a random
 * port over a temporary directory. The same contract runs on LocalDiskStorage and S3Storage; then the whole app
 * runs with STORAGE_DRIVER=s3: avatar upload served publicly, a protected video with Range, and a studio video
 * upload processed by ffmpeg from a temporary download.
 */

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
// s3rver ships no types; this is the part of its API the tests use.
const S3rver = createRequire(import.meta.url)('s3rver') as new (opts: {
  port: number;
  address: string;
  silent: boolean;
  directory: string;
  configureBuckets: Array<{ name: string }>;
}) => S3rverInstance;

const BUCKET = 'media-test';
const CREDENTIALS = { S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' };
let server: S3rverInstance;
let serverDir: string;
let endpoint: string;
let raw: S3Client;

beforeAll(async () => {
  serverDir = await fsp.mkdtemp(path.join(os.tmpdir(), 's3rver-'));
  server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: serverDir, configureBuckets: [{ name: BUCKET }] });
  const { port } = await server.run();
  endpoint = `http://127.0.0.1:${port}`;
  raw = new S3Client({
    region: 'us-east-1', endpoint, forcePathStyle: true,
    credentials: { accessKeyId: CREDENTIALS.S3_ACCESS_KEY_ID, secretAccessKey: CREDENTIALS.S3_SECRET_ACCESS_KEY },
  });
});
afterAll(async () => {
  raw?.destroy();
  await server?.close();
  if (serverDir) await fsp.rm(serverDir, { recursive: true, force: true });
});

const s3Env = (prefix: string) => ({
  STORAGE_DRIVER: 's3', S3_BUCKET: BUCKET, S3_ENDPOINT: endpoint, S3_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: '1', S3_PREFIX: prefix, ...CREDENTIALS,
});

async function objectKeys(prefix: string): Promise<string[]> {
  const res = await raw.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (res.Contents ?? []).map((o) => o.Key!).sort();
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

/** `total` bytes in chunks of `chunk`, optionally failing after `failAfter` bytes. */
function chunked(bytes: Buffer, chunk: number, failAfter?: number): Readable {
  async function* gen() {
    for (let i = 0; i < bytes.length; i += chunk) {
      if (failAfter !== undefined && i >= failAfter) throw Object.assign(new Error('source broke'), { code: 'SOURCE_BROKE' });
      yield bytes.subarray(i, Math.min(bytes.length, i + chunk));
    }
  }
  return Readable.from(gen());
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('config', () => {
  it('defaults to the local driver and validates the S3 variables', () => {
    expect(loadConfig({}).storage).toEqual({ driver: 'local' });
    expect(() => loadConfig({ STORAGE_DRIVER: 'ftp' })).toThrow(/STORAGE_DRIVER/);
    expect(() => loadConfig({ STORAGE_DRIVER: 's3' })).toThrow(/S3_BUCKET/);
    expect(() => loadConfig({ STORAGE_DRIVER: 's3', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'only-the-id' })).toThrow(/S3_SECRET_ACCESS_KEY/);
    expect(loadConfig({ STORAGE_DRIVER: 's3', S3_BUCKET: 'b', S3_FORCE_PATH_STYLE: '1', S3_PREFIX: 'site-a', S3_ENDPOINT: 'http://minio:9000' }).storage).toEqual({
      driver: 's3', bucket: 'b', region: 'us-east-1', endpoint: 'http://minio:9000', accessKeyId: undefined, secretAccessKey: undefined, forcePathStyle: true, prefix: 'site-a',
    });
  });
});

const drivers: Array<[string, () => Promise<{ storage: Storage; cleanup(): Promise<void> }>]> = [
  ['LocalDiskStorage', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'storage-contract-'));
    return { storage: new LocalDiskStorage(dir), cleanup: () => fsp.rm(dir, { recursive: true, force: true }) };
  }],
  ['S3Storage', async () => {
    const storage = new S3Storage({
      bucket: BUCKET, region: 'us-east-1', endpoint, forcePathStyle: true, prefix: 'contract/',
      accessKeyId: CREDENTIALS.S3_ACCESS_KEY_ID, secretAccessKey: CREDENTIALS.S3_SECRET_ACCESS_KEY,
      // The S3 minimum, so an 11 MiB stream is a real three-part multipart upload.
      partSize: 5 * 1024 * 1024,
    });
    return { storage, cleanup: async () => storage.client.destroy() };
  }],
];

describe.each(drivers)('storage contract: %s', (name, make) => {
  let storage: Storage;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ storage, cleanup } = await make());
  });
  afterAll(async () => {
    await cleanup?.();
  });

  it('puts a buffer and reads it back whole; a second put replaces it', async () => {
    const key = 'public/avatars/a1.webp';
    const bytes = fileBytes(3000, 1);
    expect(await storage.put(key, bytes)).toEqual({ size: 3000 });
    expect(await storage.stat(key)).toEqual({ size: 3000 });
    expect((await readAll(storage.read(key))).equals(bytes)).toBe(true);
    const other = fileBytes(10, 2);
    expect(await storage.put(key, other)).toEqual({ size: 10 });
    expect((await readAll(storage.read(key))).equals(other)).toBe(true);
  });

  it('streams a large upload in (multipart on S3) and serves byte ranges of it', async () => {
    const key = 'private/videos/big.mp4';
    const bytes = fileBytes(11 * 1024 * 1024 + 123, 3);
    expect(await storage.put(key, chunked(bytes, 64 * 1024))).toEqual({ size: bytes.length });
    expect(await storage.stat(key)).toEqual({ size: bytes.length });
    expect(sha(await readAll(storage.read(key)))).toBe(sha(bytes));
    for (const [start, end] of [[0, 0], [0, 99], [5 * 1024 * 1024 - 10, 5 * 1024 * 1024 + 10], [bytes.length - 7, bytes.length - 1]] as const) {
      const got = await readAll(storage.read(key, { start, end }));
      expect(got.equals(bytes.subarray(start, end + 1)), `${start}-${end}`).toBe(true);
    }
  });

  it('a stream that fails mid-upload rejects with its own error and leaves no object', async () => {
    const small = 'private/videos/broken-small.mp4';
    await expect(storage.put(small, chunked(fileBytes(200_000, 4), 16 * 1024, 100_000))).rejects.toMatchObject({ code: 'SOURCE_BROKE' });
    expect(await storage.stat(small)).toBeNull();
    // Past the first part: the multipart upload is aborted, never completed.
    const big = 'private/videos/broken-big.mp4';
    await expect(storage.put(big, chunked(fileBytes(12 * 1024 * 1024, 5), 256 * 1024, 11 * 1024 * 1024))).rejects.toMatchObject({ code: 'SOURCE_BROKE' });
    expect(await storage.stat(big)).toBeNull();
  });

  it('missing keys: stat is null, read errors with ENOENT, delete is a no-op', async () => {
    const key = 'public/avatars/never-there.webp';
    expect(await storage.stat(key)).toBeNull();
    await expect(readAll(storage.read(key))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(readAll(storage.read(key, { start: 0, end: 10 }))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(storage.delete(key)).resolves.toBeUndefined();
  });

  it('deletes', async () => {
    const key = 'public/site/gone.png';
    await storage.put(key, fileBytes(50));
    await storage.delete(key);
    expect(await storage.stat(key)).toBeNull();
    await expect(readAll(storage.read(key))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses keys that would leave the media root', async () => {
    await expect(storage.put('../escape.txt', Buffer.from('x'))).rejects.toThrow(/escapes root/);
    await expect(storage.stat('../escape.txt')).resolves.toBeNull();
  });

  it('gives ffmpeg and sharp a local file (a temporary download when the driver is remote)', async () => {
    const key = 'public/videos/thumbs/t.png';
    const png = await sharp({ create: { width: 20, height: 10, channels: 3, background: '#ff0000' } }).png().toBuffer();
    await storage.put(key, png);
    let seen = '';
    const meta = await withLocalFile(storage, key, async (file) => {
      seen = file;
      expect(fs.readFileSync(file).equals(png)).toBe(true);
      return sharp(file).metadata();
    });
    expect(meta).toMatchObject({ width: 20, height: 10 });
    if (name === 'S3Storage') {
      expect(storage.localPath(key)).toBeUndefined();
      expect(fs.existsSync(seen)).toBe(false);
    } else {
      expect(seen).toBe(storage.localPath(key));
    }
  });
});

describe('S3Storage specifics', () => {
  it('writes under the prefix with a content type, and reads what others wrote there', async () => {
    const storage = new S3Storage({
      bucket: BUCKET, region: 'us-east-1', endpoint, forcePathStyle: true, prefix: '/site-b/',
      accessKeyId: CREDENTIALS.S3_ACCESS_KEY_ID, secretAccessKey: CREDENTIALS.S3_SECRET_ACCESS_KEY,
    });
    try {
      await storage.put('public/covers/c.webp', fileBytes(100));
      const head = await raw.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'site-b/public/covers/c.webp' }));
      expect(head).toMatchObject({ ContentLength: 100, ContentType: 'image/webp' });
      expect(await objectKeys('site-b/')).toEqual(['site-b/public/covers/c.webp']);
      // A reader that stops early (a closed video tab) releases the request without an error.
      await storage.put('private/videos/long.mp4', fileBytes(2 * 1024 * 1024));
      const stream = storage.read('private/videos/long.mp4');
      await new Promise<void>((resolve) => stream.once('data', () => resolve()));
      stream.destroy();
      expect((await readAll(storage.read('private/videos/long.mp4', { start: 10, end: 19 }))).equals(fileBytes(2 * 1024 * 1024).subarray(10, 20))).toBe(true);
    } finally {
      storage.client.destroy();
    }
  });

  it('serves more concurrent slow readers than the SDK default pool of 50 sockets', async () => {
    const storage = new S3Storage({
      bucket: BUCKET, region: 'us-east-1', endpoint, forcePathStyle: true, prefix: 'pool/',
      accessKeyId: CREDENTIALS.S3_ACCESS_KEY_ID, secretAccessKey: CREDENTIALS.S3_SECRET_ACCESS_KEY,
    });
    try {
      await storage.put('private/videos/v.mp4', fileBytes(4 * 1024 * 1024));
      // 60 viewers that each read a little and then stall (paused streams keep their connection).
      const streams = Array.from({ length: 60 }, () => storage.read('private/videos/v.mp4'));
      const firstBytes = await Promise.all(
        streams.map((st) => new Promise<number>((resolve, reject) => {
          st.once('error', reject);
          st.once('data', (c: Buffer) => {
            st.pause();
            resolve(c.length);
          });
        })),
      );
      expect(firstBytes.every((n) => n > 0)).toBe(true);
      for (const st of streams) st.destroy();
    } finally {
      storage.client.destroy();
    }
  });

  it('a missing bucket is an error, not a missing file', async () => {
    const storage = new S3Storage({
      bucket: 'no-such-bucket', region: 'us-east-1', endpoint, forcePathStyle: true,
      accessKeyId: CREDENTIALS.S3_ACCESS_KEY_ID, secretAccessKey: CREDENTIALS.S3_SECRET_ACCESS_KEY,
    });
    try {
      await expect(storage.put('public/a.png', Buffer.from('x'))).rejects.toMatchObject({ name: 'NoSuchBucket' });
      await expect(readAll(storage.read('public/a.png'))).rejects.toMatchObject({ name: 'NoSuchBucket' });
    } finally {
      storage.client.destroy();
    }
  });
});

let media: TestMedia;
beforeAll(async () => {
  media = await makeTestMedia();
});
afterAll(async () => {
  await media?.cleanup();
});

describe.each(engines)('the app with STORAGE_DRIVER=s3 on %s', (engine) => {
  let t: TestApp;
  let performer: TestUser;
  let fan: TestUser;
  const prefix = `e2e-${engine}-${process.pid}`;

  beforeAll(async () => {
    t = await startTestApp(engine, {
      env: {
        ...s3Env(prefix),
        JOBS_POLL_MS: '50', JOBS_BACKOFF_MS: '50', JOBS_BACKOFF_MAX_MS: '200', JOBS_MAX_ATTEMPTS: '2',
        VIDEO_TEASER_SECONDS: '2', MAX_VIDEO_BYTES: String(2 * 1024 * 1024),
      },
    });
    performer = await createUser(t.ctx.db, 'performer');
    fan = await createUser(t.ctx.db, 'user');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('uses the S3 driver', () => {
    expect(t.ctx.storage).toBeInstanceOf(S3Storage);
  });

  it('stores an uploaded avatar in the bucket and serves it from /media/public; the replaced one is deleted', async () => {
    const upload = async (bytes: Buffer) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'me.png');
      return t.api('/users/avatar/upload', { method: 'POST', headers: fan.headers, body: form });
    };
    const first = await upload(await sharp({ create: { width: 600, height: 400, channels: 3, background: '#c82a5a' } }).png().toBuffer());
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.avatar).toMatch(/^\/media\/public\/avatars\/[0-9a-f]+\.webp$/);
    const key = (first.body.avatar as string).slice('/media/'.length);
    expect(await objectKeys(`${prefix}/public/avatars/`)).toEqual([`${prefix}/${key}`]);
    expect(fs.existsSync(path.join(t.config.mediaDir, key))).toBe(false);

    const served = await fetch(`${t.url}${first.body.avatar}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/webp');
    const bytes = Buffer.from(await served.arrayBuffer());
    expect(Number(served.headers.get('content-length'))).toBe(bytes.length);
    expect(await sharp(bytes).metadata()).toMatchObject({ format: 'webp', width: 256, height: 256 });
    const part = await fetch(`${t.url}${first.body.avatar}`, { headers: { range: 'bytes=0-11' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(0, 12))).toBe(true);

    const second = await upload(await sharp({ create: { width: 300, height: 300, channels: 3, background: '#3366ff' } }).png().toBuffer());
    expect(second.status).toBe(200);
    expect((await fetch(`${t.url}${first.body.avatar}`)).status).toBe(404);
    expect(await objectKeys(`${prefix}/public/avatars/`)).toEqual([`${prefix}/${(second.body.avatar as string).slice('/media/'.length)}`]);
  });

  it('serves a protected video with Range from the bucket, to its subscriber only', async () => {
    const video = await makeVideo(t.ctx, performer.id, { title: 'On S3', access: 'subscribers' });
    await subscribe(t.ctx.db, fan.id, performer.id);
    const detail = await t.api(`/user/assets/videos/${video.id}`, { headers: fan.headers });
    expect(detail.status).toBe(200);
    const url = detail.body.video.url as string;
    expect(url).toMatch(/^\/media\/protected\//);
    const stored = fileBytes(20_000, video.fileId!.charCodeAt(31));

    const first = await fetch(`${t.url}${url}`, { headers: { ...fan.headers, range: 'bytes=100-199' } });
    expect(first.status).toBe(206);
    expect(first.headers.get('content-range')).toBe('bytes 100-199/20000');
    expect(Buffer.from(await first.arrayBuffer()).equals(stored.subarray(100, 200))).toBe(true);
    const whole = await fetch(`${t.url}${url}`, { headers: fan.headers });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await whole.arrayBuffer()).equals(stored)).toBe(true);
    expect((await fetch(`${t.url}${url}`, { headers: { ...fan.headers, range: 'bytes=50000-' } })).status).toBe(416);
    const stranger = await createUser(t.ctx.db, 'user');
    expect((await fetch(`${t.url}${url}`, { headers: { ...stranger.headers, range: 'bytes=0-9' } })).status).toBe(403);
  });

  it('processes a studio video upload from the bucket (ffmpeg on a temporary download) and stores the outputs there', async () => {
    const res = await postForm(
      t,
      '/performer/assets/videos/upload',
      { fields: { title: 'Bucket clip', visibility: 'free' }, files: [{ name: 'file', filename: 'clip.mp4', data: media.longVideo, type: 'video/mp4' }] },
      { headers: performer.headers },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = res.body._id as string;
    const v = await waitFor(async () => {
      const row = await t.ctx.db.selectFrom('videos').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      return row.processingStatus === 'ready' || row.processingStatus === 'failed' ? row : null;
    }, `video ${id} processed`, 60_000);
    expect(v.processingStatus).toBe('ready');
    expect(v.duration).toBeGreaterThan(2.5);
    const files = await t.ctx.db.selectFrom('files').selectAll().where((eb) => eb.or([eb('id', '=', v.fileId!), eb('parentId', '=', v.fileId!)])).execute();
    expect(files.map((f) => f.variant).sort()).toEqual(['original', 'poster', 'teaser', 'thumb']);
    const inBucket = new Set(await objectKeys(`${prefix}/`));
    for (const f of files) {
      expect(inBucket.has(`${prefix}/${f.storageKey}`), f.storageKey).toBe(true);
      expect((await t.ctx.storage.stat(f.storageKey))?.size).toBe(Number(f.size));
      expect(fs.existsSync(path.join(t.config.mediaDir, f.storageKey))).toBe(false);
    }
    const teaser = files.find((f) => f.variant === 'teaser')!;
    const teaserRes = await fetch(`${t.url}/media/${teaser.storageKey}`, { headers: { range: 'bytes=0-99' } });
    expect(teaserRes.status).toBe(206);
    expect(teaserRes.headers.get('content-type')).toBe('video/mp4');
    expect((await teaserRes.arrayBuffer()).byteLength).toBe(100);
  });

  it('an upload over the limit (413) leaves nothing in the bucket', async () => {
    const before = await objectKeys(`${prefix}/`);
    const big = Buffer.concat([fs.readFileSync(media.video), Buffer.alloc(2 * 1024 * 1024)]);
    const res = await postForm(t, '/performer/assets/videos/upload', { fields: { title: 'Too big' }, files: [{ name: 'file', filename: 'big.mp4', data: big }] }, { headers: performer.headers });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await objectKeys(`${prefix}/`)).toEqual(before);
  });
});
