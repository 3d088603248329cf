import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { generateTestVideo } from '../../server/media/ffmpeg.js';
import type { TestApp } from './test-app.js';

/** Media files made on the spot for upload tests (ffmpeg's lavfi sources and sharp), in one temp directory. */
export interface TestMedia {
  dir: string;
  /** 3 s, 320x240, 15 fps H.264 + AAC: too short to get a public teaser (server/media/teaser-rule.ts). */
  video: string;
  /** 12 s, 320x240, 15 fps H.264 + AAC: long enough for a teaser (at most 2.4 s). */
  longVideo: string;
  /** A file with a valid MP4 header followed by garbage: passes the upload sniffing, fails processing. */
  corruptVideo: string;
  png: Buffer;
  jpeg: Buffer;
  pdf: Buffer;
  cleanup(): Promise<void>;
}

export async function makeTestMedia(): Promise<TestMedia> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'test-media-'));
  const video = path.join(dir, 'clip.mp4');
  await generateTestVideo(video, { seconds: 3, width: 320, height: 240, fps: 15, pattern: 'testsrc' });
  const longVideo = path.join(dir, 'long.mp4');
  await generateTestVideo(longVideo, { seconds: 12, width: 320, height: 240, fps: 15, pattern: 'testsrc' });
  const corruptVideo = path.join(dir, 'corrupt.mp4');
  const header = Buffer.from([0, 0, 0, 0x18, ...Buffer.from('ftypmp42'), 0, 0, 0, 0, ...Buffer.from('mp42isom')]);
  const garbage = Buffer.alloc(64 * 1024);
  for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 7919 + 13) & 0xff;
  await fsp.writeFile(corruptVideo, Buffer.concat([header, garbage]));
  // A checkerboard, so that a blurred thumbnail is measurably different from a sharp one.
  const [w, h] = [64, 48];
  const pixels = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) pixels.fill(((x >> 2) + (y >> 2)) % 2 ? 230 : 20, (y * w + x) * 3, (y * w + x) * 3 + 3);
  const raw = { raw: { width: w, height: h, channels: 3 as const } };
  const png = await sharp(pixels, raw).png().toBuffer();
  const jpeg = await sharp(pixels, raw).jpeg({ quality: 95 }).toBuffer();
  const pdf = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n', 'latin1');
  return { dir, video, longVideo, corruptVideo, png, jpeg, pdf, cleanup: () => fsp.rm(dir, { recursive: true, force: true }) };
}

export type FilePart = { name: string; filename: string; data: Buffer | string; type?: string };

/** Sends a multipart/form-data request to the API (fields first, then files) and parses the JSON answer. */
export async function postForm(
  t: TestApp,
  pathname: string,
  form: { fields?: Record<string, string | string[]>; files?: FilePart[] },
  opts: { headers?: Record<string, string>; method?: string } = {},
): Promise<{ status: number; body: any }> {
  const fd = new FormData();
  for (const [k, v] of Object.entries(form.fields ?? {})) for (const one of Array.isArray(v) ? v : [v]) fd.append(k, one);
  for (const f of form.files ?? []) {
    const data = typeof f.data === 'string' ? fs.readFileSync(f.data) : f.data;
    fd.append(f.name, new Blob([new Uint8Array(data)], { type: f.type ?? 'application/octet-stream' }), f.filename);
  }
  const res = await fetch(`${t.url}${t.config.apiBase}${pathname}`, { method: opts.method ?? 'POST', body: fd, headers: opts.headers });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // keep the raw text
  }
  return { status: res.status, body };
}

/** Polls `fn` until it returns a truthy value (which is returned) or the time runs out. */
export async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 20_000, everyMs = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
