/**
 * What a file is, from its first bytes ("magic numbers"), never from its name or the declared
 * Content-Type. Uploads are checked with this before they are stored; images are then opened with
 * sharp and videos probed with ffprobe in the processing job.
 */

export type SniffedKind = 'image' | 'video' | 'audio' | 'document' | 'archive';

export interface SniffedType {
  kind: SniffedKind;
  mime: string;
  /** Extension used for the storage key (without the dot). */
  ext: string;
  /** Human name for messages, e.g. "PNG image". */
  label: string;
}

/** Bytes needed to recognise every format below. */
export const SNIFF_BYTES = 4100;

const t = (kind: SniffedKind, mime: string, ext: string, label: string): SniffedType => ({ kind, mime, ext, label });

const ascii = (buf: Buffer, offset: number, text: string) => buf.length >= offset + text.length && buf.toString('latin1', offset, offset + text.length) === text;
const bytes = (buf: Buffer, offset: number, values: number[]) => buf.length >= offset + values.length && values.every((v, i) => buf[offset + i] === v);

/** ISO base media (MP4, MOV, 3GP, AVIF, HEIC...): the `ftyp` box's major brand, plus compatible brands. */
function isoBrands(buf: Buffer): string[] | null {
  if (!ascii(buf, 4, 'ftyp')) return null;
  const boxSize = buf.readUInt32BE(0);
  const end = Math.min(buf.length, boxSize >= 16 ? boxSize : 16);
  const brands = [buf.toString('latin1', 8, 12)];
  for (let o = 16; o + 4 <= end; o += 4) brands.push(buf.toString('latin1', o, o + 4));
  return brands;
}

export function sniffType(buf: Buffer): SniffedType | null {
  if (buf.length < 4) return null;
  if (bytes(buf, 0, [0xff, 0xd8, 0xff])) return t('image', 'image/jpeg', 'jpg', 'JPEG image');
  if (bytes(buf, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return t('image', 'image/png', 'png', 'PNG image');
  if (ascii(buf, 0, 'GIF87a') || ascii(buf, 0, 'GIF89a')) return t('image', 'image/gif', 'gif', 'GIF image');
  if (ascii(buf, 0, 'RIFF') && ascii(buf, 8, 'WEBP')) return t('image', 'image/webp', 'webp', 'WebP image');
  if (ascii(buf, 0, 'RIFF') && ascii(buf, 8, 'AVI ')) return t('video', 'video/x-msvideo', 'avi', 'AVI video');
  if (ascii(buf, 0, 'RIFF') && ascii(buf, 8, 'WAVE')) return t('audio', 'audio/wav', 'wav', 'WAV audio');
  if (bytes(buf, 0, [0x49, 0x49, 0x2a, 0x00]) || bytes(buf, 0, [0x4d, 0x4d, 0x00, 0x2a])) return t('image', 'image/tiff', 'tif', 'TIFF image');

  const brands = isoBrands(buf);
  if (brands) {
    const major = brands[0]!;
    if (major === 'avif' || major === 'avis') return t('image', 'image/avif', 'avif', 'AVIF image');
    if (['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx'].includes(major)) return t('image', 'image/heic', 'heic', 'HEIC image');
    if (major === 'mif1' || major === 'msf1') {
      return brands.includes('avif') ? t('image', 'image/avif', 'avif', 'AVIF image') : t('image', 'image/heic', 'heic', 'HEIF image');
    }
    if (['M4A ', 'M4B ', 'M4P ', 'F4A ', 'F4B '].includes(major)) return t('audio', 'audio/mp4', 'm4a', 'M4A audio');
    if (major === 'qt  ') return t('video', 'video/quicktime', 'mov', 'QuickTime video');
    if (major.startsWith('3g')) return t('video', 'video/3gpp', '3gp', '3GP video');
    return t('video', 'video/mp4', 'mp4', 'MP4 video');
  }
  // Matroska / WebM: EBML header, the DocType says which.
  if (bytes(buf, 0, [0x1a, 0x45, 0xdf, 0xa3])) {
    const head = buf.toString('latin1', 0, Math.min(buf.length, 64));
    return head.includes('webm') ? t('video', 'video/webm', 'webm', 'WebM video') : t('video', 'video/x-matroska', 'mkv', 'Matroska video');
  }
  if (ascii(buf, 0, 'FLV') && buf[3] === 0x01) return t('video', 'video/x-flv', 'flv', 'FLV video');
  if (bytes(buf, 0, [0x00, 0x00, 0x01, 0xba])) return t('video', 'video/mpeg', 'mpg', 'MPEG video');
  // MPEG transport stream: a 0x47 sync byte every 188 bytes.
  if (buf[0] === 0x47 && buf.length >= 188 * 3 + 1 && buf[188] === 0x47 && buf[376] === 0x47) return t('video', 'video/mp2t', 'ts', 'MPEG-TS video');
  if (ascii(buf, 0, 'OggS')) return t('audio', 'audio/ogg', 'ogg', 'Ogg media');
  if (ascii(buf, 0, 'ID3') || (buf[0] === 0xff && (buf[1]! & 0xe0) === 0xe0 && (buf[1]! & 0x06) !== 0)) return t('audio', 'audio/mpeg', 'mp3', 'MP3 audio');
  if (ascii(buf, 0, 'fLaC')) return t('audio', 'audio/flac', 'flac', 'FLAC audio');
  if (ascii(buf, 0, '%PDF-')) return t('document', 'application/pdf', 'pdf', 'PDF document');
  if (bytes(buf, 0, [0x50, 0x4b, 0x03, 0x04]) || bytes(buf, 0, [0x50, 0x4b, 0x05, 0x06])) {
    if (ascii(buf, 30, 'mimetypeapplication/epub+zip')) return t('document', 'application/epub+zip', 'epub', 'EPUB book');
    return t('archive', 'application/zip', 'zip', 'ZIP archive');
  }
  if (ascii(buf, 0, '7z') && bytes(buf, 2, [0xbc, 0xaf, 0x27, 0x1c])) return t('archive', 'application/x-7z-compressed', '7z', '7-Zip archive');
  if (ascii(buf, 0, 'Rar!')) return t('archive', 'application/vnd.rar', 'rar', 'RAR archive');
  return null;
}

/** Short description for error messages: "a PNG image", "text or an unknown format". */
export function describeType(type: SniffedType | null): string {
  if (!type) return 'an unrecognised format';
  // "an" before a vowel sound, letter names included: an MP4, an HEIC, an FLV, an Ogg; a PNG, a JPEG, a FLAC.
  return /^([AEIOU]|MP|M4|HEI|FLV|Ogg)/.test(type.label) ? `an ${type.label}` : `a ${type.label}`;
}

const VIDEO_MIMES = new Set(['video/mp4', 'video/quicktime', 'video/3gpp', 'video/webm', 'video/x-matroska']);

/** The formats each kind of upload accepts. */
export const accepts = {
  /** The containers ffmpeg may open an upload as (VIDEO_CONTAINERS in server/media/ffmpeg.ts); the upload probes it too. */
  video: (type: SniffedType | null) => type?.kind === 'video' && VIDEO_MIMES.has(type.mime),
  image: (type: SniffedType | null) => type?.kind === 'image',
  /** Digital products: documents, archives, pictures, audio and video; executables and unknown formats are refused. */
  digital: (type: SniffedType | null) => type !== null,
  /**
   * A direct message's attachment, kept as sent and shown as it is: pictures every browser shows (no HEIC, AVIF or
   * TIFF), or a video as above.
   */
  media: (type: SniffedType | null) => (type?.kind === 'image' && WEB_IMAGE_MIMES.has(type.mime)) || (type?.kind === 'video' && VIDEO_MIMES.has(type.mime)),
  /** A performer's identity document and selfie (server/verification/): still pictures an admin's browser shows. */
  identity: (type: SniffedType | null) => type?.kind === 'image' && IDENTITY_IMAGE_MIMES.has(type.mime),
  /** A co-performer's signed release form: a PDF or a picture (a photo or scan of the signed page). */
  release: (type: SniffedType | null) => type?.mime === 'application/pdf' || type?.kind === 'image',
};

const IDENTITY_IMAGE_MIMES = new Set(['image/jpeg', 'image/png', 'image/webp']);

const WEB_IMAGE_MIMES = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif']);

export const acceptedLabels = {
  video: 'MP4, MOV, 3GP, WebM or MKV',
  image: 'JPEG, PNG, WebP, GIF, AVIF, HEIC or TIFF',
  digital: 'PDF, EPUB, ZIP, 7z, RAR, a picture, audio or video',
  media: 'a JPEG, PNG, WebP or GIF picture, or an MP4, MOV, 3GP, WebM or MKV video',
  identity: 'a JPEG, PNG or WebP picture',
  release: 'a PDF or a picture (JPEG, PNG, WebP, GIF, AVIF, HEIC or TIFF)',
};
