/**
 * Settings of the media pipeline and its job queue, read from the environment by server/config.ts
 * (`config.pipeline`). Every value has a default that works on a bare machine; tests shrink the
 * limits and the backoff to stay fast.
 */
export interface PipelineConfig {
  jobs: JobsConfig;
  uploads: UploadLimits;
  video: VideoProcessing;
}

export interface JobsConfig {
  /** Run the worker loop in this process (JOBS_WORKER, default on; turn off on web-only instances). */
  worker: boolean;
  /** Jobs run at the same time by one process (JOBS_CONCURRENCY). */
  concurrency: number;
  /** How often an idle worker looks for due jobs, ms (JOBS_POLL_MS); an enqueue in this process wakes it at once. */
  pollMs: number;
  /** A claimed job belongs to its worker this long, ms, renewed while it runs (JOBS_LEASE_MS). */
  leaseMs: number;
  /** Attempts before a job is failed for good (JOBS_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** Wait before the 2nd attempt, ms; doubled for each further one (JOBS_BACKOFF_MS) ... */
  backoffMs: number;
  /** ... up to this (JOBS_BACKOFF_MAX_MS). */
  backoffMaxMs: number;
  /** On close, how long running jobs may finish before they are aborted and handed back, ms (JOBS_STOP_TIMEOUT_MS). */
  stopTimeoutMs: number;
}

/** Largest accepted upload per kind of file, bytes. Larger answers 413. */
export interface UploadLimits {
  /** MAX_VIDEO_BYTES, default 2 GiB. */
  video: number;
  /** Performer-supplied teaser clip, MAX_TEASER_BYTES, default 200 MiB. */
  teaser: number;
  /** Photos, thumbnails, product and post pictures, MAX_IMAGE_BYTES, default 25 MiB. */
  image: number;
  /** Files of digital products, MAX_DIGITAL_FILE_BYTES, default 1 GiB. */
  digital: number;
  /** Photos accepted in one upload request (MAX_PHOTOS_PER_UPLOAD). */
  photosPerRequest: number;
}

export interface VideoProcessing {
  /**
   * Length of the generated teaser, s (VIDEO_TEASER_SECONDS). Only ever shortens it: the public limit of
   * server/media/teaser-rule.ts (8 s and a fifth of the video, none under 10 s) always applies.
   */
  teaserSeconds: number;
  /** Longest kept part of a performer-supplied teaser, s (VIDEO_TEASER_MAX_SECONDS); the public limit applies too. */
  teaserMaxSeconds: number;
  /** Teasers are scaled down to this width, px, never up (VIDEO_TEASER_WIDTH). */
  teaserWidth: number;
  /** Poster frames are scaled down to this width, px (VIDEO_POSTER_WIDTH). */
  posterWidth: number;
  /** ffmpeg steps are killed after this long, ms (FFMPEG_TIMEOUT_MS). */
  ffmpegTimeoutMs: number;
}

const MiB = 1024 * 1024;

export function loadPipelineConfig(env: NodeJS.ProcessEnv): PipelineConfig {
  return {
    jobs: {
      worker: !['0', 'false', 'off'].includes((env.JOBS_WORKER ?? '1').toLowerCase()),
      concurrency: int(env, 'JOBS_CONCURRENCY', 2, 1),
      pollMs: int(env, 'JOBS_POLL_MS', 1000, 10),
      leaseMs: int(env, 'JOBS_LEASE_MS', 60_000, 100),
      maxAttempts: int(env, 'JOBS_MAX_ATTEMPTS', 3, 1),
      backoffMs: int(env, 'JOBS_BACKOFF_MS', 10_000, 0),
      backoffMaxMs: int(env, 'JOBS_BACKOFF_MAX_MS', 15 * 60_000, 0),
      stopTimeoutMs: int(env, 'JOBS_STOP_TIMEOUT_MS', 10_000, 0),
    },
    uploads: {
      video: int(env, 'MAX_VIDEO_BYTES', 2048 * MiB, 1),
      teaser: int(env, 'MAX_TEASER_BYTES', 200 * MiB, 1),
      image: int(env, 'MAX_IMAGE_BYTES', 25 * MiB, 1),
      digital: int(env, 'MAX_DIGITAL_FILE_BYTES', 1024 * MiB, 1),
      photosPerRequest: int(env, 'MAX_PHOTOS_PER_UPLOAD', 20, 1),
    },
    video: {
      teaserSeconds: int(env, 'VIDEO_TEASER_SECONDS', 8, 1),
      teaserMaxSeconds: int(env, 'VIDEO_TEASER_MAX_SECONDS', 60, 1),
      teaserWidth: even(int(env, 'VIDEO_TEASER_WIDTH', 480, 16)),
      posterWidth: even(int(env, 'VIDEO_POSTER_WIDTH', 1280, 16)),
      ffmpegTimeoutMs: int(env, 'FFMPEG_TIMEOUT_MS', 30 * 60_000, 1000),
    },
  };
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

function even(n: number): number {
  return n % 2 === 0 ? n : n - 1;
}
