import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { loadMediaTools, type MediaTools } from '../config.js';

/**
 * Thin, typed wrappers around the ffmpeg and ffprobe binaries (no shell, arguments passed as an array).
 *
 * ffmpeg is `FFMPEG_PATH` when set, else `ffmpeg` on PATH (Debian's package: `apt-get install -y ffmpeg`), else the
 * static build of the optional npm package @ffmpeg-installer/ffmpeg, so `npm install && npm start` also works on a
 * machine without the Debian package.
 * ffprobe is `FFPROBE_PATH` when set, else the `ffprobe` next to that ffmpeg, else `ffprobe` on PATH;
 * without one, probing parses `ffmpeg -i` output instead.
 *
 * Every file given to these helpers is treated as untrusted (uploads are): it is opened through `containedInput`,
 * so ffmpeg reads only that local file (no network or other protocols) and only with the container demuxers in
 * `VIDEO_CONTAINERS`. Without that, a "video" that is really an HLS playlist or an ffconcat script makes ffmpeg
 * fetch URLs (server-side requests) or read other local files into the teaser and poster.
 */

/**
 * Demuxers allowed to open an untrusted file: the MP4/QuickTime family and Matroska/WebM. ffprobe names the
 * format of such files `mov,mp4,m4a,3gp,3g2,mj2` or `matroska,webm`. Playlists (hls), scripts (concat), image
 * sequences and every other demuxer are refused by ffmpeg itself, nested ones included.
 */
export const VIDEO_CONTAINERS: readonly string[] = ['mov', 'mp4', 'm4a', '3gp', '3g2', 'mj2', 'matroska', 'webm'];

/** ffmpeg/ffprobe input options that contain an untrusted file: local file protocol only, allowed demuxers only. */
export function containedInput(file: string): string[] {
  // The `file:` prefix keeps a path from being read as another protocol's URL (e.g. one starting with "concat:").
  return ['-protocol_whitelist', 'file', '-format_whitelist', VIDEO_CONTAINERS.join(','), '-i', `file:${path.resolve(file)}`];
}

/** Whether an ffprobe/ffmpeg format name (e.g. `mov,mp4,m4a,3gp,3g2,mj2`) is one of the allowed containers. */
export function isAllowedContainer(formatName: string | null): boolean {
  if (!formatName) return false;
  return formatName.split(',').every((name) => VIDEO_CONTAINERS.includes(name.trim()));
}

export interface FfmpegBinary {
  path: string;
  source: 'env' | 'path' | 'npm';
  /** First line of `ffmpeg -version`. */
  version: string;
}

export class FfmpegError extends Error {
  constructor(
    message: string,
    readonly args: readonly string[],
    readonly exitCode: number | null,
    /** Last part of ffmpeg's stderr, where it explains what went wrong. */
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'FfmpegError';
  }
}

let resolved: Promise<FfmpegBinary> | undefined;
let resolvedProbe: Promise<string | null> | undefined;
let tools: MediaTools | undefined;

/**
 * Where ffmpeg and ffprobe are looked for (`config.mediaTools`; buildApp passes its config's); new places forget the
 * binaries found so far. Until it is called (the seed, a script) they come from the environment via server/config.ts.
 */
export function useMediaTools(next: MediaTools): void {
  if (tools && tools.ffmpegPath === next.ffmpegPath && tools.ffprobePath === next.ffprobePath && tools.searchPath === next.searchPath) return;
  tools = next;
  resolved = undefined;
  resolvedProbe = undefined;
}

const mediaTools = (): MediaTools => (tools ??= loadMediaTools());

/** The ffmpeg binary to use, found once per process (pass `refresh` to look again). */
export function resolveFfmpeg(opts: { tools?: MediaTools; refresh?: boolean } = {}): Promise<FfmpegBinary> {
  // Other places to look are a one-off lookup (diagnostics, tests) and are not cached.
  if (opts.tools) return findFfmpeg(opts.tools);
  if (!resolved || opts.refresh) {
    const attempt = findFfmpeg(mediaTools());
    resolved = attempt;
    // A failed lookup is not cached, so installing ffmpeg later works without a restart.
    attempt.catch(() => {
      if (resolved === attempt) resolved = undefined;
    });
  }
  return resolved;
}

async function findFfmpeg(where: MediaTools): Promise<FfmpegBinary> {
  const candidates: Array<{ path: string; source: FfmpegBinary['source'] }> = [];
  if (where.ffmpegPath) candidates.push({ path: where.ffmpegPath, source: 'env' });
  const onPath = findOnPath('ffmpeg', where.searchPath);
  if (onPath) candidates.push({ path: onPath, source: 'path' });
  const fromNpm = npmFfmpegPath();
  if (fromNpm) candidates.push({ path: fromNpm, source: 'npm' });

  const problems: string[] = [];
  for (const candidate of candidates) {
    try {
      const version = await binaryVersionOf(candidate.path, 'ffmpeg');
      return { ...candidate, version };
    } catch (err) {
      problems.push(`${candidate.path}: ${(err as Error).message}`);
    }
  }
  throw new Error(
    'ffmpeg was not found or does not run. Install it (apt-get install -y ffmpeg) or set FFMPEG_PATH.' +
      (problems.length ? ` Tried: ${problems.join('; ')}` : ''),
  );
}

/** The optional npm package's binary, if it is installed for this platform. */
function npmFfmpegPath(): string | undefined {
  try {
    // The package throws a plain string on unsupported platforms, hence the broad catch.
    const installer = createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path?: string };
    if (!installer.path) return undefined;
    // Its postinstall only runs `chmod u+x`; do it here when install scripts were skipped.
    if ((fs.statSync(installer.path).mode & 0o111) === 0) fs.chmodSync(installer.path, 0o755);
    return installer.path;
  } catch {
    return undefined;
  }
}

function findOnPath(name: string, pathVar: string): string | undefined {
  for (const dir of pathVar.split(path.delimiter)) {
    if (!dir) continue;
    const full = path.join(dir, name);
    try {
      fs.accessSync(full, fs.constants.X_OK);
      if (fs.statSync(full).isFile()) return full;
    } catch {
      // not here
    }
  }
  return undefined;
}

export interface RunOptions {
  /** Kill ffmpeg after this long (default 120 s). */
  timeoutMs?: number;
  /** Exit codes that still count as success (probing with `-i` alone exits 1). */
  okExitCodes?: number[];
  /** Kills the process when aborted (job cancelled, server shutting down). */
  signal?: AbortSignal;
}

const STDERR_KEEP = 64 * 1024;

/** Runs ffmpeg with the given arguments and resolves with its stderr (where ffmpeg reports everything). */
export async function runFfmpeg(args: readonly string[], opts: RunOptions = {}): Promise<{ stderr: string }> {
  const bin = await resolveFfmpeg();
  const { stderr } = await runBinary(bin.path, ['-hide_banner', '-nostdin', ...args], 'ffmpeg', opts);
  return { stderr };
}

/** Spawns a binary, keeps the tail of stderr (and all of stdout when asked), honours timeout and abort. */
function runBinary(
  binPath: string,
  fullArgs: string[],
  name: string,
  opts: RunOptions & { captureStdout?: boolean },
): Promise<{ stderr: string; stdout: string }> {
  const okCodes = opts.okExitCodes ?? [0];
  const timeoutMs = opts.timeoutMs ?? 120_000;
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(new FfmpegError(`${name} not started: ${abortReason(opts.signal)}`, fullArgs, null, ''));
      return;
    }
    const child = spawn(binPath, fullArgs, { stdio: ['ignore', opts.captureStdout ? 'pipe' : 'ignore', 'pipe'] });
    let stderr = '';
    let stdout = '';
    let timedOut = false;
    let aborted = false;
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => {
      stderr += d;
      if (stderr.length > STDERR_KEEP * 2) stderr = stderr.slice(-STDERR_KEEP);
    });
    if (child.stdout) {
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (d: string) => {
        if (stdout.length < 8 * 1024 * 1024) stdout += d;
      });
    }
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const onAbort = () => {
      aborted = true;
      child.kill('SIGKILL');
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const settle = () => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (err) => {
      settle();
      reject(new FfmpegError(`could not start ${name} (${binPath}): ${err.message}`, fullArgs, null, ''));
    });
    child.on('close', (code) => {
      settle();
      const tail = stderr.slice(-STDERR_KEEP);
      if (aborted) return reject(new FfmpegError(`${name} stopped: ${abortReason(opts.signal)}`, fullArgs, code, tail));
      if (timedOut) return reject(new FfmpegError(`${name} timed out after ${timeoutMs} ms`, fullArgs, code, tail));
      if (code !== null && okCodes.includes(code)) return resolve({ stderr, stdout });
      const reason = lastMeaningfulLines(tail);
      reject(new FfmpegError(`${name} failed (exit ${code}): ${reason}`, fullArgs, code, tail));
    });
  });
}

function abortReason(signal: AbortSignal | undefined): string {
  const reason = signal?.reason;
  return reason instanceof Error ? reason.message : reason ? String(reason) : 'aborted';
}


/** The ffprobe binary (see the header comment), or null when there is none. Found once per process. */
export function resolveFfprobe(): Promise<string | null> {
  resolvedProbe ??= (async () => {
    const where = mediaTools();
    const candidates: string[] = [];
    if (where.ffprobePath) candidates.push(where.ffprobePath);
    const ffmpeg = await resolveFfmpeg().catch(() => null);
    if (ffmpeg) candidates.push(path.join(path.dirname(ffmpeg.path), 'ffprobe'));
    const onPath = findOnPath('ffprobe', where.searchPath);
    if (onPath) candidates.push(onPath);
    for (const candidate of candidates) {
      try {
        await binaryVersionOf(candidate, 'ffprobe');
        return candidate;
      } catch {
        // try the next one
      }
    }
    return null;
  })();
  return resolvedProbe;
}

function binaryVersionOf(bin: string, name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['-hide_banner', '-version'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0 && out.startsWith(`${name} version`)) resolve(out.split('\n')[0]!.trim());
      else reject(new Error(`exited with ${code}`));
    });
  });
}

/**
 * Duration, size and streams of a media file: ffprobe's JSON when ffprobe exists, else `ffmpeg -i`.
 * Throws FfmpegError when the file cannot be read as media (corrupt or not a video).
 */
export async function probeFile(file: string, opts: RunOptions = {}): Promise<MediaInfo> {
  const ffprobe = await resolveFfprobe();
  if (!ffprobe) return probeMedia(file, opts);
  await fsp.access(file, fs.constants.R_OK);
  const args = ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', ...containedInput(file)];
  const { stdout } = await runBinary(ffprobe, args, 'ffprobe', { ...opts, captureStdout: true });
  return checkContainer(parseProbeJson(stdout), args);
}

/** Reads ffprobe's `-show_format -show_streams` JSON. Exported for tests. */
export function parseProbeJson(json: string): MediaInfo {
  let data: { format?: { duration?: string; format_name?: string }; streams?: Array<Record<string, unknown>> };
  try {
    data = JSON.parse(json);
  } catch {
    throw new FfmpegError('ffprobe printed no readable description of the file', [], 0, '');
  }
  const streams = data.streams ?? [];
  // Cover art in audio files shows up as a one-frame "video" stream; it is not a video.
  const video = streams.find((st) => st.codec_type === 'video' && !(st.disposition as Record<string, number> | undefined)?.attached_pic);
  const audio = streams.find((st) => st.codec_type === 'audio');
  const num = (v: unknown) => {
    const n = typeof v === 'string' || typeof v === 'number' ? Number(v) : NaN;
    return Number.isFinite(n) && n > 0 ? n : null;
  };
  const duration = num(data.format?.duration) ?? num(video?.duration) ?? num(audio?.duration);
  return {
    duration,
    width: video ? num(video.width) : null,
    height: video ? num(video.height) : null,
    hasVideo: Boolean(video),
    hasAudio: Boolean(audio),
    videoCodec: video && typeof video.codec_name === 'string' ? video.codec_name : null,
    formatName: typeof data.format?.format_name === 'string' ? data.format.format_name : null,
  };
}

/**
 * The demuxer whitelist already makes ffmpeg refuse other formats; this second check keeps the rule true even if
 * a build ignored the option, and gives the refusal one recognisable error.
 */
function checkContainer(info: MediaInfo, args: readonly string[]): MediaInfo {
  if (!isAllowedContainer(info.formatName)) {
    throw new FfmpegError(`Format not allowed: ${info.formatName ?? 'unknown'} (allowed: MP4, MOV, 3GP, WebM, MKV)`, args, 0, '');
  }
  return info;
}

export type ContainerCheck =
  | { verdict: 'video'; info: MediaInfo }
  /** Opened as an allowed container but not readable (damaged, truncated): processing reports why. */
  | { verdict: 'damaged'; format: string }
  /** Not an allowed container (a playlist, a script, another format, or none ffmpeg knows), or no video in it. */
  | { verdict: 'refused'; format: string | null; reason: 'format' | 'no-video' };

/**
 * Which container an uploaded file is, probed contained (see `containedInput`): the check made before an upload is
 * kept. A file an allowed demuxer recognised but could not read counts as damaged, not refused, so the performer
 * sees ffmpeg's reason in the studio as for any failed processing.
 */
export async function inspectContainer(file: string, opts: RunOptions = {}): Promise<ContainerCheck> {
  try {
    const info = await probeFile(file, opts);
    if (!info.hasVideo || !info.duration) return { verdict: 'refused', format: info.formatName, reason: 'no-video' };
    return { verdict: 'video', info };
  } catch (err) {
    if (!(err instanceof FfmpegError)) throw err;
    if (err.exitCode === null) throw err; // not run at all (missing binary, timeout, abort): not the file's fault
    const text = `${err.message}\n${err.stderr}`;
    // ffmpeg prefixes its messages with the demuxer it chose: "[hls @ 0x55…] Format not on whitelist …".
    const demuxer = /\[([a-z0-9_,]+) @ 0x[0-9a-f]+\]/i.exec(text)?.[1] ?? null;
    if (isContainerRefusal(err)) return { verdict: 'refused', format: demuxer ?? /Format not allowed: ([^ ]+)/.exec(text)?.[1] ?? null, reason: 'format' };
    if (demuxer && isAllowedContainer(demuxer)) return { verdict: 'damaged', format: demuxer };
    return { verdict: 'refused', format: demuxer, reason: 'format' };
  }
}

/** Whether an ffmpeg/ffprobe failure was the container refusal (the whitelist or the check above). */
export function isContainerRefusal(err: unknown): boolean {
  return err instanceof FfmpegError && /Format not (on whitelist|allowed)/.test(`${err.message}\n${err.stderr}`);
}

function lastMeaningfulLines(stderr: string): string {
  const lines = stderr.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  return lines.slice(-3).join(' | ') || 'no output';
}

export type TestPattern = 'testsrc' | 'testsrc2' | 'smptebars' | 'rgbtestsrc' | 'mandelbrot' | 'color';

export interface TestVideoOptions {
  seconds?: number;
  width?: number;
  height?: number;
  fps?: number;
  pattern?: TestPattern;
  /** Fill colour for the `color` pattern, as `#rrggbb`. */
  color?: string;
  /** Rotate hues by this many degrees, to make clips of the same pattern look different. */
  hue?: number;
  /** Frequency of the sine tone on the audio track; 0 for a silent clip without audio. */
  toneHz?: number;
}

export interface MediaInfo {
  /** Seconds, or null when the container does not say. */
  duration: number | null;
  width: number | null;
  height: number | null;
  hasVideo: boolean;
  hasAudio: boolean;
  videoCodec: string | null;
  /** The demuxer ffmpeg opened the file with, e.g. `mov,mp4,m4a,3gp,3g2,mj2`; null when it did not say. */
  formatName: string | null;
}

/** Writes a small H.264 + AAC MP4 made from a lavfi test source and a sine tone. */
export async function generateTestVideo(outFile: string, opts: TestVideoOptions = {}): Promise<MediaInfo> {
  const seconds = positive(opts.seconds ?? 5, 'seconds');
  const width = even(opts.width ?? 320, 'width');
  const height = even(opts.height ?? 180, 'height');
  const fps = positive(opts.fps ?? 24, 'fps');
  const pattern = opts.pattern ?? 'testsrc2';
  const size = `${width}x${height}`;
  let source: string;
  if (pattern === 'color') {
    const color = opts.color ?? '#336699';
    if (!/^#[0-9a-f]{6}$/i.test(color)) throw new Error(`color must look like #rrggbb, got ${color}`);
    source = `color=c=0x${color.slice(1)}:s=${size}:r=${fps}:d=${seconds}`;
  } else {
    // mandelbrot has no duration option; `-t` below bounds every source anyway.
    source = pattern === 'mandelbrot' ? `mandelbrot=s=${size}:r=${fps}` : `${pattern}=s=${size}:r=${fps}:d=${seconds}`;
  }
  const filters: string[] = [];
  if (opts.hue) filters.push(`hue=h=${Number(opts.hue)}`);
  // A moving bar keeps even the flat `color` pattern from being a still picture.
  if (pattern === 'color') filters.push(`drawbox=x='mod(t*${Math.round(width / 2)},${width})':y=0:w=${Math.max(2, Math.round(width / 16))}:h=${height}:color=white@0.5:t=fill`);
  filters.push('format=yuv420p');
  const tone = opts.toneHz ?? 440;

  await fsp.mkdir(path.dirname(outFile), { recursive: true });
  const args = ['-y', '-loglevel', 'error', '-f', 'lavfi', '-i', source];
  if (tone > 0) args.push('-f', 'lavfi', '-i', `sine=frequency=${tone}:sample_rate=44100:duration=${seconds}`);
  args.push('-vf', filters.join(','), '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '28', '-g', String(Math.round(fps)));
  if (tone > 0) args.push('-c:a', 'aac', '-b:a', '64k', '-shortest');
  args.push('-t', String(seconds), '-movflags', '+faststart', outFile);
  await runFfmpeg(args);
  return probeMedia(outFile);
}

/** Grabs one frame as a JPEG (optionally scaled to `width`, keeping the aspect ratio). */
export async function extractPoster(videoFile: string, outJpg: string, atSeconds = 1, opts: { width?: number } & RunOptions = {}): Promise<void> {
  await fsp.mkdir(path.dirname(outJpg), { recursive: true });
  await fsp.rm(outJpg, { force: true });
  const args = ['-y', '-loglevel', 'error', '-ss', String(Math.max(0, atSeconds)), ...containedInput(videoFile), '-frames:v', '1', '-q:v', '3'];
  if (opts.width) args.push('-vf', `scale=${even(opts.width, 'width')}:-2`);
  args.push('-f', 'image2', outJpg);
  await runFfmpeg(args, opts);
  // Seeking past the end makes ffmpeg succeed without writing anything.
  const stat = await fsp.stat(outJpg).catch(() => null);
  if (!stat || stat.size === 0) {
    throw new FfmpegError(`ffmpeg wrote no frame at ${atSeconds}s of ${videoFile} (is the video shorter?)`, args, 0, '');
  }
}

export interface TeaserOptions extends RunOptions {
  /** Where the teaser starts in the source, seconds (default 0). */
  start?: number;
  /** Scale to this width (keeping aspect ratio); default keeps the source size. */
  width?: number;
  /** Drop the audio track. */
  mute?: boolean;
}

/** Cuts a short re-encoded preview (H.264 + AAC, faststart) from a video. */
export async function makeTeaser(videoFile: string, outFile: string, seconds = 3, opts: TeaserOptions = {}): Promise<MediaInfo> {
  positive(seconds, 'seconds');
  await fsp.mkdir(path.dirname(outFile), { recursive: true });
  const args = ['-y', '-loglevel', 'error'];
  if (opts.start) args.push('-ss', String(opts.start));
  args.push(...containedInput(videoFile), '-t', String(seconds), '-map', '0:v:0', '-map', '0:a:0?');
  const filters = [opts.width ? `scale=${even(opts.width, 'width')}:-2` : null, 'format=yuv420p'].filter(Boolean);
  args.push('-vf', filters.join(','), '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '30');
  if (opts.mute) args.push('-an');
  else args.push('-c:a', 'aac', '-b:a', '48k');
  args.push('-movflags', '+faststart', outFile);
  await runFfmpeg(args, opts);
  // ffprobe when there is one: `ffmpeg -i` prints the duration cut to hundredths, too coarse to check a limit.
  return probeFile(outFile, { signal: opts.signal });
}

/** Reads duration, size and streams from `ffmpeg -i` (works without ffprobe). */
export async function probeMedia(file: string, opts: RunOptions = {}): Promise<MediaInfo> {
  await fsp.access(file, fs.constants.R_OK);
  // With only an input, ffmpeg prints the input description and exits 1 ("at least one output file").
  const args = containedInput(file);
  const { stderr } = await runFfmpeg(args, { ...opts, okExitCodes: [0, 1] });
  if (!/Input #0/.test(stderr)) {
    throw new FfmpegError(`ffmpeg could not read ${file}: ${lastMeaningfulLines(stderr)}`, args, 1, stderr.slice(-STDERR_KEEP));
  }
  return checkContainer(parseMediaInfo(stderr), args);
}

/** Parses the input description ffmpeg prints to stderr. Exported for tests. */
export function parseMediaInfo(stderr: string): MediaInfo {
  const d = /Duration:\s*(\d+):(\d{2}):(\d{2}(?:\.\d+)?)/.exec(stderr);
  const duration = d ? Number(d[1]) * 3600 + Number(d[2]) * 60 + Number(d[3]) : null;
  const video = /Stream #\d+:\d+[^:]*: Video: ([a-z0-9_]+)[^\n]*?(?:,|\s)(\d{2,5})x(\d{2,5})[\s,[]/.exec(stderr);
  const format = /Input #0, (.+?), from '/.exec(stderr);
  return {
    duration,
    width: video ? Number(video[2]) : null,
    height: video ? Number(video[3]) : null,
    hasVideo: /Stream #\d+:\d+[^:]*: Video:/.test(stderr),
    hasAudio: /Stream #\d+:\d+[^:]*: Audio:/.test(stderr),
    videoCodec: video ? video[1]! : null,
    formatName: format ? format[1]! : null,
  };
}

/** Duration in seconds; throws when the file has none (not a media file, or a still image). */
export async function probeDuration(file: string): Promise<number> {
  const info = await probeMedia(file);
  if (info.duration === null || !(info.duration > 0)) throw new Error(`no duration found in ${file}`);
  return info.duration;
}

function positive(n: number, name: string): number {
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${n}`);
  return n;
}

function even(n: number, name: string): number {
  if (!Number.isInteger(n) || n < 2 || n % 2 !== 0) throw new Error(`${name} must be an even integer >= 2 (H.264 needs it), got ${n}`);
  return n;
}

export interface OverlayOptions extends RunOptions {
  /** Where the mark's top-left corner goes, in pixels of the video frame. */
  left: number;
  top: number;
}

/**
 * Writes `videoFile` again with a transparent PNG (the watermark, its opacity already in its alpha) laid over every
 * frame by the `overlay` filter: H.264 and AAC, faststart. The video is opened contained; the PNG
 * is our own file, read with the single-picture demuxer only.
 */
export async function overlayMark(videoFile: string, markPng: string, outFile: string, opts: OverlayOptions): Promise<MediaInfo> {
  await fsp.mkdir(path.dirname(outFile), { recursive: true });
  const args = [
    '-y', '-loglevel', 'error',
    ...containedInput(videoFile),
    '-protocol_whitelist', 'file', '-f', 'png_pipe', '-i', `file:${path.resolve(markPng)}`,
    '-filter_complex', `[0:v:0][1:v]overlay=x=${Math.max(0, Math.round(opts.left))}:y=${Math.max(0, Math.round(opts.top))}:format=auto,format=yuv420p[v]`,
    '-map', '[v]', '-map', '0:a:0?',
    '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-c:a', 'aac', '-b:a', '128k',
    '-movflags', '+faststart', outFile,
  ];
  await runFfmpeg(args, opts);
  return probeFile(outFile, { signal: opts.signal });
}
