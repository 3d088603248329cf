import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { MultipartFile } from '@fastify/multipart';
import sharp from 'sharp';
import { AppError, badRequest } from '../../http/errors.js';
import { newId } from '../../db/ids.js';
import type { Storage } from '../storage.js';
import { FfmpegError, inspectContainer, type ContainerCheck } from '../ffmpeg.js';
import { withLocalFile } from './local-file.js';
import { acceptedLabels, accepts, describeType, SNIFF_BYTES, sniffType, type SniffedType } from './sniff.js';

/**
 * Receives a multipart/form-data request: text fields are collected, each file part is checked from its
 * first bytes (type) and while it streams (size), then streamed straight into storage; nothing is held
 * in memory beyond the first few kilobytes. Images are opened with sharp once stored. Any failure deletes
 * what was already stored and answers 400 (bad or mismatched content, malformed form) or 413 (too big).
 */

export interface FileFieldSpec {
  /** Which formats the field takes. */
  accept: keyof typeof accepts;
  maxBytes: number;
  /** What messages call it: "video", "teaser", "thumbnail", "photo". */
  label: string;
  /** Storage key prefix, e.g. `private/videos`. */
  prefix: string;
  /** Files this field may carry (default 1). */
  maxCount?: number;
  /** Other accepted field names (e.g. `video` for `file`). */
  aliases?: string[];
}

export interface ReceivedFile {
  field: string;
  /** The id to give its `files` row (also in the storage key). */
  id: string;
  storageKey: string;
  size: number;
  type: SniffedType;
  originalName: string | null;
  /** Images only. */
  width: number | null;
  height: number | null;
}

export interface ReceivedForm {
  /** Text fields; a name sent several times gives an array. */
  fields: Record<string, string | string[]>;
  files: Record<string, ReceivedFile[]>;
  /** Deletes every stored file (call it when the request fails after receiving). */
  discard(): Promise<void>;
}

export interface ReceiveOptions {
  maxFields?: number;
  /** Longest text field, bytes. */
  maxFieldBytes?: number;
  /** Largest picture accepted, in pixels (width x height). */
  maxImagePixels?: number;
}

const MiB = 1024 * 1024;

export function formatBytes(n: number): string {
  if (n >= 1024 * MiB) return `${+(n / (1024 * MiB)).toFixed(1)} GB`;
  if (n >= MiB) return `${+(n / MiB).toFixed(1)} MB`;
  if (n >= 1024) return `${+(n / 1024).toFixed(1)} KB`;
  return `${n} bytes`;
}

const tooLarge = (spec: FileFieldSpec) =>
  new AppError(413, 'PAYLOAD_TOO_LARGE', `The ${spec.label} is too large: the limit is ${formatBytes(spec.maxBytes)}`);

export async function receiveMultipart(
  request: FastifyRequest,
  storage: Storage,
  specs: Record<string, FileFieldSpec>,
  opts: ReceiveOptions = {},
): Promise<ReceivedForm> {
  if (!request.isMultipart()) throw badRequest('Send the form as multipart/form-data');
  const byName = new Map<string, string>();
  for (const [name, spec] of Object.entries(specs)) {
    byName.set(name, name);
    for (const alias of spec.aliases ?? []) byName.set(alias, name);
  }
  const maxFiles = Object.values(specs).reduce((n, s) => n + (s.maxCount ?? 1), 0);
  const maxFields = opts.maxFields ?? 50;
  const maxFieldBytes = opts.maxFieldBytes ?? 100_000;
  const limits = {
    files: maxFiles,
    // One byte over the largest limit, so the per-field counter below sees the overflow and says which field.
    fileSize: Math.max(1, ...Object.values(specs).map((s) => s.maxBytes)) + 1,
    fields: maxFields,
    fieldSize: maxFieldBytes,
    parts: maxFiles + maxFields + 2,
    headerPairs: 100,
  };

  // A declared length beyond every limit together is refused before reading a byte.
  const declared = Number(request.headers['content-length'] ?? NaN);
  const ceiling = Object.values(specs).reduce((n, s) => n + s.maxBytes * (s.maxCount ?? 1), 0) + maxFields * maxFieldBytes + 1024 * 1024;
  if (Number.isFinite(declared) && declared > ceiling) {
    throw new AppError(413, 'PAYLOAD_TOO_LARGE', `The upload is too large: at most ${formatBytes(ceiling)} in one request`);
  }

  const fields: Record<string, string | string[]> = {};
  const files: Record<string, ReceivedFile[]> = {};
  const stored: ReceivedFile[] = [];
  const discard = async () => {
    await Promise.all(stored.map((f) => storage.delete(f.storageKey).catch(() => {})));
  };

  try {
    for await (const part of request.parts({ limits })) {
      if (part.type === 'field') {
        if (part.valueTruncated) throw badRequest(`The field "${part.fieldname}" is too long (at most ${formatBytes(maxFieldBytes)})`);
        const value = typeof part.value === 'string' ? part.value : JSON.stringify(part.value);
        const prev = fields[part.fieldname];
        fields[part.fieldname] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
        continue;
      }
      const name = byName.get(part.fieldname);
      if (!name) {
        part.file.resume();
        throw badRequest(`Unexpected file field "${part.fieldname}": this form takes ${Object.keys(specs).map((n) => `"${n}"`).join(', ')}`);
      }
      const spec = specs[name]!;
      const list = (files[name] ??= []);
      if (list.length >= (spec.maxCount ?? 1)) {
        part.file.resume();
        throw badRequest(spec.maxCount && spec.maxCount > 1 ? `Send at most ${spec.maxCount} files in "${name}"` : `Send one file in "${name}"`);
      }
      const file = await storePart(part, name, spec, storage, opts);
      if (!file) continue;
      stored.push(file);
      list.push(file);
    }
  } catch (err) {
    await discard();
    throw translateMultipartError(err);
  }
  return { fields, files, discard };
}

async function storePart(part: MultipartFile, field: string, spec: FileFieldSpec, storage: Storage, opts: ReceiveOptions): Promise<ReceivedFile | null> {
  const it = part.file[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let headLength = 0;
  let ended = false;
  while (headLength < SNIFF_BYTES) {
    const r = await it.next();
    if (r.done) {
      ended = true;
      break;
    }
    chunks.push(r.value);
    headLength += r.value.length;
  }
  const head = Buffer.concat(chunks);
  // A form's empty file input sends a part without a name or bytes: nothing was chosen.
  if (head.length === 0) {
    if (!part.filename) return null;
    throw badRequest(`The ${spec.label} file "${part.filename}" is empty`);
  }
  const type = sniffType(head);
  if (!type || !accepts[spec.accept](type)) {
    await it.return?.();
    throw new AppError(
      400,
      'UNSUPPORTED_MEDIA',
      `The ${spec.label} must be ${acceptedLabels[spec.accept]}, but this file is ${describeType(type)}` +
        (part.filename ? ` ("${cleanName(part.filename)}")` : ''),
    );
  }
  if (head.length > spec.maxBytes) {
    await it.return?.();
    throw tooLarge(spec);
  }

  const id = newId();
  const storageKey = `${spec.prefix}/${id}.${type.ext}`;
  let size = head.length;
  async function* body(): AsyncGenerator<Buffer> {
    yield head;
    if (ended) return;
    for (;;) {
      const r = await it.next();
      if (r.done) return;
      size += r.value.length;
      if (size > spec.maxBytes) {
        await it.return?.();
        throw tooLarge(spec);
      }
      yield r.value;
    }
  }
  await storage.put(storageKey, Readable.from(body()));
  const file: ReceivedFile = { field, id, storageKey, size, type, originalName: part.filename ? cleanName(part.filename) : null, width: null, height: null };

  if (spec.accept === 'video' || (spec.accept === 'media' && type.kind === 'video')) await checkVideoUpload(storage, storageKey, spec, part.filename);
  if (type.kind === 'image') {
    try {
      const meta = await withLocalFile(storage, storageKey, (p) => sharp(p).metadata());
      if (!meta.width || !meta.height) throw new Error('no dimensions');
      // sharp decides the format from the bytes as well; it must be the raster format the sniffing accepted,
      // never one of the others libvips can load (SVG, PDF, raw pixel formats...).
      if (!meta.format || !SHARP_FORMATS.has(meta.format)) throw new Error(`format ${meta.format}`);
      file.width = meta.width;
      file.height = meta.height;
    } catch {
      await storage.delete(storageKey).catch(() => {});
      throw new AppError(400, 'UNSUPPORTED_MEDIA', `The ${spec.label} could not be read as ${describeType(type)}: the file may be damaged`);
    }
    const maxPixels = opts.maxImagePixels ?? 100_000_000;
    if (file.width * file.height > maxPixels) {
      await storage.delete(storageKey).catch(() => {});
      throw badRequest(`The ${spec.label} is ${file.width}x${file.height} pixels: at most ${Math.round(maxPixels / 1e6)} megapixels are accepted`);
    }
  }
  return file;
}

/** The formats sharp may open an uploaded picture as (its names for what `accepts.image` takes). */
const SHARP_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'heif', 'tiff']);

/** Longest an upload waits for ffprobe to read a video's header. A header that takes longer is not a normal video. */
const PROBE_TIMEOUT_MS = 60_000;

/**
 * A video field's file is probed before the upload is accepted, contained (server/media/ffmpeg.ts): the bytes
 * sniffed as MP4 or WebM must also be what ffmpeg opens them as. An HLS playlist, an ffconcat script or any
 * other format is refused here, with nothing kept, so no job ever hands it to ffmpeg. A file ffmpeg recognises as
 * an allowed container but cannot read is kept: processing fails it with ffmpeg's reason, shown in the studio.
 */
async function checkVideoUpload(storage: Storage, storageKey: string, spec: FileFieldSpec, filename: string | undefined): Promise<void> {
  let check: ContainerCheck;
  try {
    check = await withLocalFile(storage, storageKey, (p) => inspectContainer(p, { timeoutMs: PROBE_TIMEOUT_MS }));
  } catch (err) {
    await storage.delete(storageKey).catch(() => {});
    if (err instanceof FfmpegError && /timed out/.test(err.message)) {
      throw new AppError(400, 'UNSUPPORTED_MEDIA', `The ${spec.label} could not be checked: reading it took too long`);
    }
    throw err;
  }
  if (check.verdict !== 'refused') return;
  await storage.delete(storageKey).catch(() => {});
  const named = filename ? ` ("${cleanName(filename)}")` : '';
  throw new AppError(
    400,
    'UNSUPPORTED_MEDIA',
    check.reason === 'no-video'
      ? `The ${spec.label} has no video in it${named}`
      : `The ${spec.label} must be ${acceptedLabels.video}, but this file opens as ${check.format ? `"${check.format}"` : 'an unrecognised format'}${named}`,
  );
}

/** Keeps the base name, without control characters or path separators, at most 200 characters. */
export function cleanName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  return base.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 200) || 'file';
}

/** The multipart plugin's terse errors, as clear 400/413 answers. */
function translateMultipartError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new AppError(413, 'PAYLOAD_TOO_LARGE', 'A file is larger than the upload limit');
  if (code === 'FST_FILES_LIMIT') return badRequest('Too many files in this form');
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') return badRequest('Too many form fields');
  if (code === 'FST_PROTO_VIOLATION' || code === 'FST_INVALID_JSON_FIELD_ERROR') return badRequest('Malformed form field');
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') return badRequest('Send the form as multipart/form-data');
  if (err instanceof Error && /multipart|boundary|part terminated|unexpected end/i.test(err.message)) return badRequest('Malformed multipart/form-data body');
  if (code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET' || (err instanceof Error && /aborted|premature close/i.test(err.message))) {
    return badRequest('The upload was interrupted before it finished');
  }
  return err;
}
