import sharp, { type Metadata } from 'sharp';
import { AppError } from '../http/errors.js';
import { makeThumbnail, type ImageResult } from '../media/images.js';

/**
 * Site images uploaded in the console (logo, favicon, login placeholder, banner pictures): the type is sniffed
 * from the bytes by sharp (SVG and anything that is not a raster image are refused), then the picture is
 * re-encoded, which also drops metadata. Stored under `public/site/` with a new name each time.
 */

const ACCEPTED = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'heif', 'tiff']);
const MAX_PIXELS = 40_000_000;
export const NOT_AN_IMAGE = 'The file is not a supported image. Please upload a JPEG, PNG, WebP, GIF or AVIF picture.';

export type SiteImageKind = 'logo' | 'favicon' | 'login-placeholder' | 'banner';

const specs: Record<SiteImageKind, { width: number; height: number; fit: 'inside' | 'cover'; format: 'png' | 'webp' }> = {
  logo: { width: 600, height: 200, fit: 'inside', format: 'png' },
  favicon: { width: 64, height: 64, fit: 'cover', format: 'png' },
  'login-placeholder': { width: 1200, height: 1200, fit: 'inside', format: 'webp' },
  banner: { width: 1600, height: 600, fit: 'inside', format: 'webp' },
};

export const settingKeyOf = { logo: 'logoUrl', favicon: 'favicon', 'login-placeholder': 'loginPlaceholderImage' } as const;

export async function renderSiteImage(upload: Buffer, kind: SiteImageKind): Promise<ImageResult> {
  let meta: Metadata;
  try {
    meta = await sharp(upload, { limitInputPixels: false }).metadata();
  } catch {
    throw new AppError(400, 'INVALID_IMAGE', NOT_AN_IMAGE);
  }
  if (!meta.format || !ACCEPTED.has(meta.format) || !meta.width || !meta.height) throw new AppError(400, 'INVALID_IMAGE', NOT_AN_IMAGE);
  if (meta.width * meta.height > MAX_PIXELS) throw new AppError(400, 'INVALID_IMAGE', 'The image dimensions are too large. Please upload a smaller picture.');
  const spec = specs[kind];
  try {
    // Small pictures are not blown up: `inside` with the original size when it already fits.
    const width = spec.fit === 'inside' ? Math.min(spec.width, meta.width) : spec.width;
    const height = spec.fit === 'inside' ? Math.min(spec.height, meta.height) : spec.height;
    return await makeThumbnail(upload, width, height, { format: spec.format, fit: spec.fit, quality: 85 });
  } catch {
    throw new AppError(400, 'INVALID_IMAGE', NOT_AN_IMAGE);
  }
}
