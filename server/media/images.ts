import sharp from 'sharp';
import type { Sharp } from 'sharp';
import { seededRandom } from '../../common/random.js';

/**
 * Image helpers on sharp: generated artwork (gradient + shapes + text, for placeholders and demo data)
 * and thumbnails of real images (resize, optional blur for locked content, optional caption).
 */

export type ImageFormat = 'webp' | 'jpeg' | 'png';

export interface ImageResult {
  buffer: Buffer;
  width: number;
  height: number;
  format: ImageFormat;
  mime: string;
  /** File extension without the dot. */
  ext: string;
}

const mimeOf: Record<ImageFormat, string> = { webp: 'image/webp', jpeg: 'image/jpeg', png: 'image/png' };
const extOf: Record<ImageFormat, string> = { webp: 'webp', jpeg: 'jpg', png: 'png' };

export interface ArtOptions {
  width: number;
  height: number;
  /** Main text, wrapped onto at most three lines. */
  title?: string;
  /** Smaller line under the title. */
  subtitle?: string;
  /** Large centred letters (avatars); shown instead of the title when both are given. */
  initials?: string;
  /** Gradient colours `#rrggbb`; derived from `seed` when missing. */
  colors?: [string, string];
  /** Any string or number: the same seed always gives the same palette and shapes. */
  seed?: string | number;
  /** Draw soft decorative circles and a horizon (default true). */
  shapes?: boolean;
  /** Circle clip (avatars); the corners are transparent for png/webp and white for jpeg. */
  round?: boolean;
}

const palettes: Array<[string, string]> = [
  ['#ff5f6d', '#ffc371'], ['#7f00ff', '#e100ff'], ['#11998e', '#38ef7d'], ['#fc466b', '#3f5efb'],
  ['#f7971e', '#ffd200'], ['#00c6ff', '#0072ff'], ['#ee0979', '#ff6a00'], ['#8e2de2', '#4a00e0'],
  ['#f953c6', '#b91d73'], ['#43cea2', '#185a9d'], ['#ff9966', '#ff5e62'], ['#614385', '#516395'],
  ['#2b5876', '#4e4376'], ['#c94b4b', '#4b134f'], ['#1d976c', '#93f9b9'], ['#e65c00', '#f9d423'],
];

export function paletteFor(seed: string | number): [string, string] {
  const rnd = seededRandom(seed);
  return palettes[Math.floor(rnd() * palettes.length)]!;
}

export function escapeXml(s: string): string {
  return s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);
}

/** "Mia Rivers" -> "MR"; one word -> its first two letters. */
export function initialsOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (!words.length) return '?';
  if (words.length === 1) return words[0]!.slice(0, 2).toUpperCase();
  return (words[0]![0]! + words[words.length - 1]![0]!).toUpperCase();
}

function wrap(text: string, maxChars: number, maxLines: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (!current) current = word;
    else if ((current + ' ' + word).length <= maxChars) current += ' ' + word;
    else {
      lines.push(current);
      current = word;
    }
  }
  if (current) lines.push(current);
  if (lines.length > maxLines) {
    const kept = lines.slice(0, maxLines);
    kept[maxLines - 1] = kept[maxLines - 1]!.replace(/\s*\S{0,3}$/, '') + '…';
    return kept;
  }
  return lines;
}

/** The SVG source of a generated picture (exported so callers can tweak or inspect it). */
export function artSvg(opts: ArtOptions): string {
  const { width: w, height: h } = opts;
  const seed = opts.seed ?? opts.title ?? opts.initials ?? 'art';
  const [c1, c2] = opts.colors ?? paletteFor(seed);
  const rnd = seededRandom(`${seed}:shapes`);
  const parts: string[] = [];
  parts.push(
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${c1}"/><stop offset="1" stop-color="${c2}"/></linearGradient>`,
    `<linearGradient id="shade" x1="0" y1="0" x2="0" y2="1"><stop offset="0.55" stop-color="#000" stop-opacity="0"/><stop offset="1" stop-color="#000" stop-opacity="0.45"/></linearGradient></defs>`,
    `<rect width="${w}" height="${h}" fill="url(#g)"/>`,
  );
  if (opts.shapes !== false) {
    const m = Math.min(w, h);
    for (let i = 0; i < 5; i++) {
      const r = (0.12 + rnd() * 0.35) * m;
      parts.push(`<circle cx="${(rnd() * w).toFixed(1)}" cy="${(rnd() * h).toFixed(1)}" r="${r.toFixed(1)}" fill="#fff" fill-opacity="${(0.06 + rnd() * 0.14).toFixed(2)}"/>`);
    }
    // A soft "horizon" of hills makes it read as a picture rather than a flat swatch.
    const base = h * (0.62 + rnd() * 0.2);
    const hill = (amp: number, phase: number) => {
      let d = `M0 ${h} L0 ${base.toFixed(1)}`;
      for (let x = 0; x <= w; x += Math.max(8, Math.round(w / 24))) {
        const y = base - amp * Math.sin((x / w) * Math.PI * 2 + phase) - amp * 0.5 * Math.sin((x / w) * Math.PI * 5 + phase * 2);
        d += ` L${x} ${y.toFixed(1)}`;
      }
      return `${d} L${w} ${h} Z`;
    };
    parts.push(`<path d="${hill(h * 0.06, rnd() * 6)}" fill="#000" fill-opacity="0.12"/>`);
    parts.push(`<path d="${hill(h * 0.04, rnd() * 6)}" fill="#000" fill-opacity="0.18" transform="translate(0 ${(h * 0.08).toFixed(1)})"/>`);
  }
  const font = `font-family="DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif"`;
  if (opts.initials) {
    const size = Math.round(Math.min(w, h) * 0.42);
    parts.push(
      `<text x="50%" y="50%" ${font} font-weight="700" font-size="${size}" fill="#fff" fill-opacity="0.95" text-anchor="middle" dominant-baseline="central">${escapeXml(opts.initials)}</text>`,
    );
  } else if (opts.title) {
    parts.push(`<rect width="${w}" height="${h}" fill="url(#shade)"/>`);
    const maxChars = Math.max(8, Math.round(w / (Math.min(h * 0.14, w * 0.08) * 0.62)));
    const lines = wrap(opts.title, maxChars, 3);
    const longest = Math.max(...lines.map((l) => l.length), 1);
    const size = Math.max(10, Math.round(Math.min(h * 0.14, (w * 0.86) / (longest * 0.6))));
    const subSize = Math.max(9, Math.round(size * 0.5));
    const blockH = lines.length * size * 1.15 + (opts.subtitle ? subSize * 1.6 : 0);
    let y = h - h * 0.08 - blockH + size;
    const x = Math.round(w * 0.06);
    for (const line of lines) {
      parts.push(`<text x="${x}" y="${y.toFixed(1)}" ${font} font-weight="700" font-size="${size}" fill="#fff">${escapeXml(line)}</text>`);
      y += size * 1.15;
    }
    if (opts.subtitle) {
      parts.push(`<text x="${x}" y="${(y + subSize * 0.4).toFixed(1)}" ${font} font-size="${subSize}" fill="#fff" fill-opacity="0.85">${escapeXml(opts.subtitle)}</text>`);
    }
  }
  const body = parts.join('');
  const content = opts.round
    ? `<defs><clipPath id="c"><circle cx="${w / 2}" cy="${h / 2}" r="${Math.min(w, h) / 2}"/></clipPath></defs><g clip-path="url(#c)">${body}</g>`
    : body;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${content}</svg>`;
}

function encode(img: Sharp, format: ImageFormat, quality: number): Sharp {
  if (format === 'jpeg') return img.flatten({ background: '#ffffff' }).jpeg({ quality });
  if (format === 'png') return img.png();
  return img.webp({ quality });
}

async function finish(img: Sharp, format: ImageFormat): Promise<ImageResult> {
  const { data, info } = await img.toBuffer({ resolveWithObject: true });
  return { buffer: data, width: info.width, height: info.height, format, mime: mimeOf[format], ext: extOf[format] };
}

/** Renders generated art (see ArtOptions) to an encoded image of exactly width x height. */
export async function renderArt(opts: ArtOptions, format: ImageFormat = 'webp', quality = 80): Promise<ImageResult> {
  if (!(opts.width > 0 && opts.height > 0)) throw new Error('width and height must be positive');
  return finish(encode(sharp(Buffer.from(artSvg(opts))), format, quality), format);
}

/** Renders any SVG markup to an image (resized to cover width x height when given). */
export async function renderSvg(svg: string, format: ImageFormat = 'webp', size?: { width: number; height: number }, quality = 80): Promise<ImageResult> {
  let img = sharp(Buffer.from(svg));
  if (size) img = img.resize(size.width, size.height, { fit: 'cover' });
  return finish(encode(img, format, quality), format);
}

export interface ThumbnailOptions {
  format?: ImageFormat;
  quality?: number;
  /** 'cover' crops to fill (default), 'inside' keeps the whole picture within the box. */
  fit?: 'cover' | 'inside';
  /** Gaussian blur sigma, e.g. 18 for previews of locked content. */
  blur?: number;
  /** Text drawn on a dark band at the bottom (video titles). */
  caption?: string;
}

/**
 * Thumbnail of an image file path or buffer. EXIF orientation is applied; metadata is dropped.
 * Throws sharp's error for inputs that are not images.
 */
export async function makeThumbnail(input: string | Buffer, width: number, height: number, opts: ThumbnailOptions = {}): Promise<ImageResult> {
  const format = opts.format ?? 'webp';
  let img = sharp(input, { failOn: 'error' }).rotate().resize(width, height, { fit: opts.fit ?? 'cover', withoutEnlargement: false });
  if (opts.blur) {
    // Blur then re-encode through a buffer so the caption (if any) stays sharp on top of it.
    const blurred = await img.blur(opts.blur).toBuffer();
    img = sharp(blurred);
  }
  if (opts.caption) {
    const meta = await img.clone().toBuffer({ resolveWithObject: true });
    const { width: w, height: h } = meta.info;
    img = sharp(meta.data).composite([{ input: Buffer.from(captionSvg(opts.caption, w, h)), top: 0, left: 0 }]);
  }
  return finish(encode(img, format, opts.quality ?? 78), format);
}

function captionSvg(caption: string, w: number, h: number): string {
  const size = Math.max(10, Math.round(h * 0.085));
  const band = Math.round(size * 2.1);
  const maxChars = Math.max(6, Math.floor((w * 0.9) / (size * 0.6)));
  const text = caption.length > maxChars ? caption.slice(0, maxChars - 1).trimEnd() + '…' : caption;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">` +
    `<rect x="0" y="${h - band}" width="${w}" height="${band}" fill="#000" fill-opacity="0.5"/>` +
    `<text x="${Math.round(w * 0.04)}" y="${h - band / 2}" font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif" font-weight="700" font-size="${size}" fill="#fff" dominant-baseline="central">${escapeXml(text)}</text></svg>`
  );
}

/** Width, height and format of an image, without decoding all of it. */
export async function imageInfo(input: string | Buffer): Promise<{ width: number; height: number; format: string }> {
  const meta = await sharp(input).metadata();
  if (!meta.width || !meta.height || !meta.format) throw new Error('not a readable image');
  return { width: meta.width, height: meta.height, format: meta.format };
}
