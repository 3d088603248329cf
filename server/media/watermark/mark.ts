import sharp from 'sharp';
import type { WatermarkPosition } from '../../../common/enums.js';
import { escapeXml, type ImageResult } from '../images.js';

/**
 * The watermark itself: the performer's page address (`fanstage.example/performers/mia`) as white text with a dark
 * outline, so it reads on light and dark pictures alike, rendered by sharp from SVG (fontconfig's DejaVu or Liberation
 * Sans, whichever the machine has) into a transparent PNG whose alpha carries the opacity. Pictures get it composited
 * by sharp; videos get the same PNG through ffmpeg's `overlay` filter (server/media/ffmpeg.ts `overlayMark`), which
 * needs no font file of its own.
 */

export interface MarkSettings {
  enabled: boolean;
  position: WatermarkPosition;
  /** Percent, 10–100. */
  opacity: number;
}

/** `https://fanstage.example/` + `mia` → `fanstage.example/performers/mia`. */
export function markText(publicUrl: string, username: string): string {
  let host: string;
  try {
    host = new URL(publicUrl).host;
  } catch {
    host = publicUrl.replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '');
  }
  return `${host}/performers/${username}`;
}

/** What a stamped file records (files.watermark): equal signatures mean the same mark, so the work can be skipped. */
export function markSignature(settings: MarkSettings, text: string): string | null {
  return settings.enabled ? `${settings.position}:${Math.round(settings.opacity)}:${text}` : null;
}

export interface RenderedMark {
  png: Buffer;
  width: number;
  height: number;
}

/** The mark for a picture or frame `frameWidth` wide: text about 3.2 % of the width high, never under 12 px. */
export async function renderMark(text: string, frameWidth: number, opacity: number): Promise<RenderedMark> {
  const size = Math.max(12, Math.round(frameWidth * 0.032));
  const pad = Math.ceil(size * 0.4);
  // DejaVu Sans is about 0.62 em per character; the PNG is trimmed to the ink afterwards anyway.
  const w = Math.min(Math.ceil(text.length * size * 0.64) + pad * 2, Math.max(1, frameWidth));
  const h = Math.ceil(size * 1.5) + pad;
  const alpha = Math.min(1, Math.max(0.1, opacity / 100)).toFixed(2);
  const stroke = Math.max(1, Math.round(size / 9));
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">` +
    `<g opacity="${alpha}"><text x="${pad}" y="${Math.round(pad / 2 + size * 1.1)}" font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif" font-weight="700" font-size="${size}" ` +
    `fill="#ffffff" stroke="#000000" stroke-opacity="0.55" stroke-width="${stroke}" paint-order="stroke">${escapeXml(text)}</text></g></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).png().toBuffer({ resolveWithObject: true });
  return { png: data, width: info.width, height: info.height };
}

/** Where the mark's top-left corner goes on a `frame` (a margin of 3 % of the shorter side from the edges). */
export function markOffset(position: WatermarkPosition, frame: { width: number; height: number }, mark: { width: number; height: number }): { left: number; top: number } {
  const m = Math.round(Math.min(frame.width, frame.height) * 0.03);
  const right = Math.max(0, frame.width - mark.width - m);
  const bottom = Math.max(0, frame.height - mark.height - m);
  const centerX = Math.max(0, Math.round((frame.width - mark.width) / 2));
  const centerY = Math.max(0, Math.round((frame.height - mark.height) / 2));
  switch (position) {
    case 'top-left': return { left: m, top: m };
    case 'top-right': return { left: right, top: m };
    case 'bottom-left': return { left: m, top: bottom };
    case 'center': return { left: centerX, top: centerY };
    default: return { left: right, top: bottom };
  }
}

/**
 * A picture with the mark on it, at the picture's own size (EXIF orientation applied, metadata dropped), as JPEG or
 * WebP like the source kind (`format`).
 */
export async function stampImage(input: string | Buffer, text: string, settings: Pick<MarkSettings, 'position' | 'opacity'>, format: 'jpeg' | 'webp' = 'jpeg', quality = 88): Promise<ImageResult> {
  const upright = await sharp(input, { failOn: 'error' }).rotate().toBuffer({ resolveWithObject: true });
  const frame = { width: upright.info.width, height: upright.info.height };
  const mark = await renderMark(text, frame.width, settings.opacity);
  const at = markOffset(settings.position, frame, mark);
  let img = sharp(upright.data).composite([{ input: mark.png, ...at }]);
  img = format === 'jpeg' ? img.flatten({ background: '#ffffff' }).jpeg({ quality }) : img.webp({ quality });
  const { data, info } = await img.toBuffer({ resolveWithObject: true });
  return { buffer: data, width: info.width, height: info.height, format, mime: format === 'jpeg' ? 'image/jpeg' : 'image/webp', ext: format === 'jpeg' ? 'jpg' : 'webp' };
}
