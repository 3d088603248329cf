import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { newId } from '../db/ids.js';
import type { Storage } from '../media/storage.js';
import { generateTestVideo, extractPoster, makeTeaser, type TestPattern } from '../media/ffmpeg.js';
import { teaserLimit } from '../media/teaser-rule.js';
import { PRIVATE_THUMB_VARIANT } from '../media/photo-thumbs.js';
import { initialsOf, makeThumbnail, renderArt, type ImageResult } from '../media/images.js';
import type { NewFile } from '../media/pipeline/pipeline.repository.js';
import { fileKey, slugify, storeFile, type FileSpec } from './factories.js';
import type { Plan } from './plan.js';

/**
 * The demo site's media, real files made on this machine: pictures with sharp (./media/images.ts: generated art
 * seeded by the row, thumbnails, blurred previews as the pipeline makes them) and short clips with ffmpeg (a test
 * pattern with a tone, its poster and teaser within the public limit). They go to storage as they are made; their
 * `files` rows wait in the MediaWriter for the seed's transaction (./inserts.ts), and are removed again if it fails.
 */

/** Stores files and keeps their rows (and keys, to remove them all when the seed gives up). */
export class MediaWriter {
  readonly rows: Array<NewFile & { id: string }> = [];
  private readonly keys: string[] = [];
  private readonly keyById = new Map<string, string>();
  constructor(private readonly storage: Storage) {}

  /** Stores `body` as a new ready file (created at `at`); answers its id. */
  async put(body: Buffer, meta: Omit<FileSpec, 'status'> & { at: string }): Promise<string> {
    const id = newId();
    const storageKey = fileKey(meta.prefix, id, meta.ext);
    this.keys.push(storageKey);
    this.keyById.set(id, storageKey);
    this.rows.push(await storeFile(this.storage, { ...meta, id }, body));
    return id;
  }

  putImage(img: ImageResult, meta: { prefix: string; ownerId: string | null; at: string; variant?: string; parentId?: string | null; originalName?: string }) {
    return this.put(img.buffer, { ...meta, ext: img.ext, kind: 'image', mime: img.mime, width: img.width, height: img.height });
  }

  keyOf(fileId: string): string {
    const key = this.keyById.get(fileId);
    if (!key) throw new Error(`no file ${fileId}`);
    return key;
  }

  async removeAll(): Promise<void> {
    await Promise.all(this.keys.map((k) => this.storage.delete(k).catch(() => {})));
  }
}

interface Clip {
  video: Buffer;
  poster: Buffer;
  teaser: Buffer;
  duration: number;
  teaserDuration: number;
  width: number;
  height: number;
}

const clipSpecs: Array<{ pattern: TestPattern; hue?: number; color?: string; toneHz: number }> = [
  { pattern: 'testsrc2', toneHz: 440 },
  { pattern: 'smptebars', toneHz: 523 },
  { pattern: 'testsrc', toneHz: 330 },
  { pattern: 'mandelbrot', toneHz: 392 },
  { pattern: 'color', color: '#c2416b', toneHz: 587 },
  { pattern: 'testsrc2', hue: 140, toneHz: 660 },
  { pattern: 'rgbtestsrc', toneHz: 494 },
  { pattern: 'color', color: '#2f6f8f', toneHz: 349 },
];
/** How many distinct clips the demo's videos share (./plan.ts picks one per video). */
export const clipCount = clipSpecs.length;

async function makeClips(workDir: string): Promise<Clip[]> {
  return mapLimit(clipSpecs, 2, async (spec, i) => {
    const file = path.join(workDir, `clip-${i}.mp4`);
    // Long enough to have a teaser at all (server/media/teaser-rule.ts), which the demo shows on video pages.
    const info = await generateTestVideo(file, { seconds: 10 + (i % 3), width: 320, height: 180, fps: 24, ...spec });
    const poster = path.join(workDir, `clip-${i}.jpg`);
    await extractPoster(file, poster, 1.5);
    const teaserFile = path.join(workDir, `clip-${i}-teaser.mp4`);
    const limit = teaserLimit(info.duration);
    if (!info.duration || limit === null) throw new Error(`generated clip ${i} is too short for a teaser`);
    const teaser = await makeTeaser(file, teaserFile, limit, { start: 0.5 });
    if (!teaser.duration) throw new Error(`generated clip ${i} has no teaser duration`);
    return {
      video: await fsp.readFile(file),
      poster: await fsp.readFile(poster),
      teaser: await fsp.readFile(teaserFile),
      duration: info.duration,
      teaserDuration: teaser.duration,
      width: info.width ?? 320,
      height: info.height ?? 180,
    };
  });
}

/**
 * Makes every file of the plan (avatars, covers, clips with their posters, thumbnails and teasers, photos, product
 * pictures and PDFs, post pictures, banners) and sets the file ids on the planned rows.
 */
export async function generateMedia(plan: Plan, media: MediaWriter, workDir: string): Promise<void> {
  const clips = await makeClips(workDir);
  const jobs: Array<() => Promise<void>> = [];

  const people = [plan.admin, plan.fan, ...plan.performers.map((p) => p.user)];
  for (const user of people) {
    jobs.push(async () => {
      const at = user.createdAt;
      const avatar = await renderArt({ width: 256, height: 256, initials: initialsOf(user.name), seed: `${user.username}:avatar` });
      const avatarId = await media.putImage(avatar, { prefix: 'public/avatars', ownerId: user.id!, at });
      user.avatarPath = media.keyOf(avatarId);
      if (user.role === 'performer') {
        // Picture only: the pages write the name and tagline next to the cover (cropped into a card, baked-in text
        // was cut off and ran under the avatar).
        const cover = await renderArt({ width: 1200, height: 400, seed: `${user.username}:cover` });
        const coverId = await media.putImage(cover, { prefix: 'public/covers', ownerId: user.id!, at });
        user.coverPath = media.keyOf(coverId);
      }
    });
  }

  for (const perf of plan.performers) {
    const ownerId = perf.user.id!;
    for (const v of perf.videos) {
      jobs.push(async () => {
        const clip = clips[v.clip]!;
        const at = v.row.createdAt;
        const name = `${slugify(v.row.title)}.mp4`;
        const fileId = await media.put(clip.video, {
          prefix: 'private/videos', ext: 'mp4', kind: 'video', mime: 'video/mp4', ownerId, at, originalName: name,
          width: clip.width, height: clip.height, duration: clip.duration,
        });
        await media.put(clip.poster, {
          prefix: 'public/videos/posters', ext: 'jpg', kind: 'image', mime: 'image/jpeg', ownerId, at, variant: 'poster', parentId: fileId,
          width: clip.width, height: clip.height,
        });
        const thumb = await makeThumbnail(clip.poster, 640, 360, { caption: v.row.title });
        const thumbId = await media.putImage(thumb, { prefix: 'public/videos/thumbs', ownerId, at, variant: 'thumb', parentId: fileId });
        const teaserId = await media.put(clip.teaser, {
          prefix: 'public/videos/teasers', ext: 'mp4', kind: 'video', mime: 'video/mp4', ownerId, at, variant: 'teaser', parentId: fileId,
          width: clip.width, height: clip.height, duration: clip.teaserDuration,
        });
        v.row.fileId = fileId;
        v.row.thumbnailFileId = thumbId;
        v.row.teaserFileId = teaserId;
        v.row.duration = clip.duration;
      });
    }
    for (const g of perf.galleries) {
      g.photos.forEach((p, k) => {
        jobs.push(async () => {
          const at = p.row.createdAt;
          const [w, h] = p.portrait ? [960, 1280] : [1280, 960];
          const full = await renderArt({ width: w, height: h, title: g.row.title, subtitle: `${perf.def.name} · ${k + 1}/${g.photos.length}`, seed: `${p.row.id}` }, 'jpeg', 82);
          const fileId = await media.putImage(full, { prefix: 'private/photos', ownerId, at, originalName: `${slugify(g.row.title)}-${k + 1}.jpg` });
          const [tw, th] = p.portrait ? [300, 400] : [400, 300];
          const thumb = await makeThumbnail(full.buffer, tw, th, p.blurred ? { blur: 18 } : {});
          const thumbId = await media.putImage(thumb, { prefix: 'public/photos/thumbs', ownerId, at, variant: 'thumb', parentId: fileId });
          // As the pipeline does (server/media/photo-thumbs.ts): a blurred public thumbnail has a sharp private twin
          // for subscribers and buyers.
          if (p.blurred) {
            await media.putImage(await makeThumbnail(full.buffer, tw, th), { prefix: 'private/photos/thumbs', ownerId, at, variant: PRIVATE_THUMB_VARIANT, parentId: fileId });
          }
          p.row.fileId = fileId;
          p.row.thumbnailFileId = thumbId;
        });
      });
    }
    for (const pr of perf.products) {
      jobs.push(async () => {
        const at = pr.row.createdAt;
        const img = await renderArt({ width: 800, height: 800, title: pr.def.name, subtitle: perf.def.name, seed: `${pr.row.id}` });
        pr.row.imageFileId = await media.putImage(img, { prefix: 'public/products', ownerId, at });
        if (pr.def.type === 'digital') {
          const pdf = simplePdf(pr.def.name, [`by ${perf.def.name}`, '', pr.def.description, '', 'Thank you for your purchase!', 'This file was generated for the demo site.']);
          pr.row.digitalFileId = await media.put(pdf, {
            prefix: 'private/products', ext: 'pdf', kind: 'file', mime: 'application/pdf', ownerId, at, originalName: `${slugify(pr.def.name)}.pdf`,
          });
        }
      });
    }
  }

  for (const post of plan.posts) {
    if (post.type !== 'post') continue;
    jobs.push(async () => {
      const img = await renderArt({ width: 1200, height: 630, title: post.title, seed: post.slug });
      post.imageFileId = await media.putImage(img, { prefix: 'public/posts', ownerId: plan.admin.id!, at: post.createdAt });
    });
  }
  // A performer's post keeps its pictures as the pipeline does (post-media.process): the upload private, a public
  // preview (blurred while locked), a sharp private thumbnail when locked, and the picture in full (public only when free).
  for (const post of plan.performerPosts) {
    const locked = post.row.access !== 'free';
    const ownerId = post.performer.user.id!;
    post.media.forEach((m, k) => {
      jobs.push(async () => {
        const at = m.row.createdAt;
        const [w, h] = m.portrait ? [960, 1280] : [1280, 960];
        const full = await renderArt({ width: w, height: h, title: post.row.title, subtitle: `${post.performer.def.name} · ${k + 1}/${post.media.length}`, seed: `${m.row.id}` }, 'jpeg', 82);
        const fileId = await media.putImage(full, { prefix: 'private/posts/originals', ownerId, at, originalName: `${slugify(post.row.title)}-${k + 1}.jpg` });
        const preview = await makeThumbnail(full.buffer, 480, 480, { fit: 'inside', ...(locked ? { blur: 18 } : {}) });
        m.row.previewFileId = await media.putImage(preview, { prefix: 'public/posts/previews', ownerId, at, variant: 'preview', parentId: fileId });
        if (locked) {
          const thumb = await makeThumbnail(full.buffer, 480, 480, { fit: 'inside' });
          m.row.thumbFileId = await media.putImage(thumb, { prefix: 'private/posts/thumbs', ownerId, at, variant: 'thumb', parentId: fileId });
        }
        const display = await makeThumbnail(full.buffer, Math.max(w, h), Math.max(w, h), { fit: 'inside', quality: 85 });
        m.row.displayFileId = await media.putImage(display, { prefix: locked ? 'private/posts/displays' : 'public/posts/displays', ownerId, at, variant: 'display', parentId: fileId });
        m.row.fileId = fileId;
        m.row.width = w;
        m.row.height = h;
      });
    });
  }
  for (const b of plan.banners) {
    jobs.push(async () => {
      // Picture only: the banner's title and description are its caption, shown by the page as text (readable,
      // translatable, and not repeated twice over the picture).
      const img = await renderArt({ width: 1600, height: 500, seed: `${b.performer.def.username}:banner` });
      b.row.imageFileId = await media.putImage(img, { prefix: 'public/banners', ownerId: plan.admin.id!, at: b.row.createdAt });
    });
  }

  await mapLimit(jobs, Math.max(2, Math.min(6, os.availableParallelism?.() ?? 2) * 2), (job) => job());
}

/**
 * Runs fn over items with at most `limit` in flight; results keep the input order. On a failure no new item
 * starts, and the first error is thrown only once the running ones have settled (so cleanup sees all their files).
 */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { err: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!, i);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure) throw failure.err;
  return results;
}

/** A one-page PDF with a title and lines of text (Helvetica, ASCII only), valid enough for any viewer. */
function simplePdf(title: string, lines: string[]): Buffer {
  const esc = (s: string) => s.normalize('NFKD').replace(/[^\x20-\x7e]/g, '').replace(/([\\()])/g, '\\$1');
  let stream = `BT /F1 22 Tf 72 760 Td (${esc(title)}) Tj ET\n`;
  lines.forEach((line, i) => {
    stream += `BT /F1 12 Tf 72 ${720 - i * 18} Td (${esc(line)}) Tj ET\n`;
  });
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}endstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
