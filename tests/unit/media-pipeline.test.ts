import { describe, expect, it } from 'vitest';
import { accepts, describeType, sniffType } from '../../server/media/pipeline/sniff.js';
import { teaserLimit } from '../../server/media/teaser-rule.js';
import { loadPipelineConfig } from '../../server/media/pipeline/config.js';
import { isAllowedContainer, parseProbeJson } from '../../server/media/ffmpeg.js';
import { slugify } from '../../server/studio/item-fields.js';
import { htmlToText, textToHtml } from '../../server/posts/post-text.js';
import { cleanName, formatBytes } from '../../server/media/pipeline/upload.js';

const b = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
const ftyp = (brand: string, ...compatible: string[]) => {
  const size = 16 + compatible.length * 4;
  return b([0, 0, 0, size], 'ftyp', brand, [0, 0, 0, 0], compatible.join(''), Array(64).fill(0));
};

describe('sniffType', () => {
  it.each([
    ['JPEG', b([0xff, 0xd8, 0xff, 0xe0]), 'image/jpeg'],
    ['PNG', b([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 'image/png'],
    ['GIF', b('GIF89a...'), 'image/gif'],
    ['WebP', b('RIFF', [1, 2, 3, 4], 'WEBPVP8 '), 'image/webp'],
    ['AVIF', ftyp('avif', 'mif1', 'miaf'), 'image/avif'],
    ['HEIC', ftyp('heic', 'mif1'), 'image/heic'],
    ['MP4', ftyp('isom', 'iso2', 'avc1', 'mp41'), 'video/mp4'],
    ['MOV', ftyp('qt  '), 'video/quicktime'],
    ['3GP', ftyp('3gp5'), 'video/3gpp'],
    ['M4A', ftyp('M4A '), 'audio/mp4'],
    ['WebM', b([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01], 'B\x82\x84webm'), 'video/webm'],
    ['MKV', b([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01], 'B\x82\x88matroska'), 'video/x-matroska'],
    ['AVI', b('RIFF', [1, 2, 3, 4], 'AVI LIST'), 'video/x-msvideo'],
    ['PDF', b('%PDF-1.7\n'), 'application/pdf'],
    ['ZIP', b([0x50, 0x4b, 0x03, 0x04], Array(40).fill(0)), 'application/zip'],
  ])('recognises %s', (_name, bytes, mime) => {
    expect(sniffType(bytes)?.mime).toBe(mime);
  });

  it('does not recognise text, executables, SVG or HTML', () => {
    for (const text of ['hello world', '<svg xmlns="http://www.w3.org/2000/svg"></svg>', '<!doctype html><script>', 'MZ\x90\x00\x03', '']) {
      expect(sniffType(Buffer.from(text, 'latin1'))).toBeNull();
    }
    expect(describeType(null)).toBe('an unrecognised format');
    expect(describeType(sniffType(b([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))).toBe('a PNG image');
    expect(describeType(sniffType(ftyp('isom')))).toBe('an MP4 video');
  });
});

describe('public teaser limit', () => {
  it('is at most 8 s and a fifth of the video, and none below 10 s', () => {
    expect([0, 5, 9.99, null, undefined, NaN].map(teaserLimit)).toEqual([null, null, null, null, null, null]);
    expect(teaserLimit(10)).toBe(2);
    expect(teaserLimit(20)).toBe(4);
    expect(teaserLimit(12.3456)).toBe(2.469);
    expect(teaserLimit(40)).toBe(8);
    expect(teaserLimit(3600)).toBe(8);
    for (const d of [10, 11, 25, 39.99, 40, 41, 600]) expect(teaserLimit(d)!).toBeLessThanOrEqual(Math.min(8, d / 5));
  });
});

describe('video containers', () => {
  it('allows the MP4/QuickTime family and Matroska/WebM only', () => {
    expect(isAllowedContainer('mov,mp4,m4a,3gp,3g2,mj2')).toBe(true);
    expect(isAllowedContainer('matroska,webm')).toBe(true);
    for (const name of ['hls', 'concat', 'avi', 'mpegts', 'flv', 'image2', 'mov,hls', '', null]) expect(isAllowedContainer(name)).toBe(false);
    // Sniffed types a video field takes: the same families.
    expect(accepts.video(sniffType(ftyp('isom')))).toBe(true);
    expect(accepts.video(sniffType(b([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01], 'B\x82\x84webm')))).toBe(true);
    expect(accepts.video(sniffType(b('RIFF', [1, 2, 3, 4], 'AVI LIST')))).toBe(false);
    expect(accepts.video(sniffType(b('FLV', [1, 5, 0, 0, 0, 9])))).toBe(false);
  });
});

describe('parseProbeJson', () => {
  it('reads duration, size and streams, ignoring cover art', () => {
    const info = parseProbeJson(
      JSON.stringify({
        format: { duration: '3.000000' },
        streams: [
          { codec_type: 'video', codec_name: 'h264', width: 320, height: 240 },
          { codec_type: 'audio', codec_name: 'aac' },
        ],
      }),
    );
    expect(info).toEqual({ duration: 3, width: 320, height: 240, hasVideo: true, hasAudio: true, videoCodec: 'h264', formatName: null });
    const audio = parseProbeJson(JSON.stringify({ format: { duration: '12.5' }, streams: [{ codec_type: 'audio' }, { codec_type: 'video', width: 600, height: 600, disposition: { attached_pic: 1 } }] }));
    expect(audio).toMatchObject({ hasVideo: false, hasAudio: true, duration: 12.5, width: null });
    expect(() => parseProbeJson('not json')).toThrow(/ffprobe/);
  });
});

describe('pipeline config', () => {
  it('has working defaults and rejects nonsense', () => {
    const c = loadPipelineConfig({});
    expect(c.jobs).toMatchObject({ worker: true, concurrency: 2, maxAttempts: 3, pollMs: 1000 });
    expect(c.uploads.video).toBe(2 * 1024 ** 3);
    expect(loadPipelineConfig({ JOBS_WORKER: '0', VIDEO_TEASER_WIDTH: '481' })).toMatchObject({ jobs: { worker: false }, video: { teaserWidth: 480 } });
    expect(() => loadPipelineConfig({ JOBS_MAX_ATTEMPTS: '0' })).toThrow(/JOBS_MAX_ATTEMPTS/);
    expect(() => loadPipelineConfig({ MAX_VIDEO_BYTES: '12.5' })).toThrow(/MAX_VIDEO_BYTES/);
  });
});

describe('studio text helpers', () => {
  it('slugs, escaped paragraphs and back, file names, sizes', () => {
    expect(slugify('Crème brûlée: the 10-minute way!')).toBe('creme-brulee-the-10-minute-way');
    expect(slugify('???')).toBe('item');
    const html = textToHtml('Line one\nline two\n\n<b>bold</b> & co\r\n\r\n\r\n');
    expect(html).toBe('<p>Line one<br>line two</p>\n<p>&lt;b&gt;bold&lt;/b&gt; &amp; co</p>');
    expect(htmlToText(html)).toBe('Line one\nline two\n\n<b>bold</b> & co');
    expect(cleanName('../../etc/passwd')).toBe('passwd');
    expect(cleanName('C:\\Users\\me\\clip\u0000.mp4')).toBe('clip.mp4');
    expect(formatBytes(2 * 1024 * 1024)).toBe('2 MB');
    expect(formatBytes(1536)).toBe('1.5 KB');
  });
});
