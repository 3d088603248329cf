import os from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Db, DbOrTrx } from '../db/database.js';
import type { JobsConfig } from '../media/pipeline/config.js';
import {
  claimDueJob,
  claimExpiredJob,
  findExpiredLeases,
  insertJob,
  markDone,
  markFailed,
  markRetry,
  nextRunAt,
  releaseJob,
  renewLease,
  type JobRow,
} from './jobs.repository.js';

/** What a handler gets besides its payload. */
export interface JobContext {
  id: string;
  type: string;
  /** 1 for the first attempt. */
  attempt: number;
  maxAttempts: number;
  /** Aborted when the process shuts down or the lease was lost: stop work (kill ffmpeg) and throw. */
  signal: AbortSignal;
  logger: Logger;
}

export interface JobHandler<P = unknown> {
  /** Does the work. Throwing schedules a retry (with backoff) until the attempts run out. Must be idempotent. */
  run(payload: P, job: JobContext): Promise<void>;
  /**
   * Runs once, in the transaction that marks the job failed for good, to mark the row it concerns
   * (e.g. a video's processing status) as failed with the error message.
   */
  onFailed?(trx: DbOrTrx, payload: P, error: string): Promise<void>;
  /** Overrides config.maxAttempts for this type. */
  maxAttempts?: number;
}

/** A failure that retrying cannot fix: the job fails at once, whatever attempts are left. */
export class PermanentJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentJobError';
  }
}

export interface EnqueueOptions {
  /** What the job is about, e.g. `video:<id>`; findJobsBySubject() lists a row's jobs. */
  subject?: string;
  /** Not before this time (default now). */
  runAt?: Date;
  maxAttempts?: number;
}

interface Running {
  job: JobRow;
  controller: AbortController;
  done: Promise<void>;
  /** Set when the run was interrupted by stop(); the job is handed back instead of failed. */
  interrupted: boolean;
}

const ERROR_MAX = 2000;

/**
 * A job queue in the database with an in-process worker. See server/jobs/README.md.
 *
 * - `enqueue(trxOrDb, type, payload)` inserts a row, in the caller's transaction so the job exists exactly
 *   when the row it concerns does. Outside a transaction the worker is woken at once; after a transaction
 *   the caller calls `wake()` once it committed (otherwise the next poll finds it).
 * - The worker polls every `pollMs` (sleeping less when a retry is due sooner) and claims jobs with a
 *   conditional UPDATE, so two processes never run the same job. A claim is a lease (`leaseMs`), renewed
 *   while the job runs; a job whose lease expired (its process died) is claimed again by any worker.
 * - A failed attempt is retried after `backoffMs * 2^(attempt-1)` (capped); after `maxAttempts` the job is
 *   `failed` with the error message and the handler's `onFailed` marks the media row.
 * - `stop()` stops claiming, lets running jobs finish for `stopTimeoutMs`, then aborts them and hands them
 *   back (queued, attempt not counted).
 */
export class JobQueue {
  readonly workerId = `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly handlers = new Map<string, JobHandler<any>>();
  private readonly running = new Map<string, Running>();
  private loopDone: Promise<void> | undefined;
  private started = false;
  private stopping = false;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private nextLeaseCheck = 0;

  constructor(
    private readonly db: Db,
    private readonly config: JobsConfig,
    private readonly logger: Logger,
  ) {}

  register<P>(type: string, handler: JobHandler<P>): this {
    if (this.handlers.has(type)) throw new Error(`job type ${type} is already registered`);
    this.handlers.set(type, handler);
    this.wake();
    return this;
  }

  get types(): string[] {
    return [...this.handlers.keys()];
  }

  async enqueue<P>(db: DbOrTrx, type: string, payload: P, opts: EnqueueOptions = {}): Promise<string> {
    const now = new Date();
    const id = await insertJob(db, {
      type,
      payload,
      subject: opts.subject,
      runAt: (opts.runAt ?? now).toISOString(),
      maxAttempts: opts.maxAttempts ?? this.handlers.get(type)?.maxAttempts ?? this.config.maxAttempts,
      now: now.toISOString(),
    });
    if (!db.isTransaction) this.wake();
    return id;
  }

  /** Makes an idle worker look for jobs now (call after committing a transaction that enqueued). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Number of jobs this process is running right now. */
  get busy(): number {
    return this.running.size;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    if (this.stopping) return this.loopDone;
    this.stopping = true;
    this.wake();
    await this.loopDone;
    if (!this.running.size) return;
    const all = () => Promise.all([...this.running.values()].map((r) => r.done));
    const timedOut = await raceTimeout(all(), this.config.stopTimeoutMs);
    if (!timedOut) return;
    this.logger.warn({ jobs: [...this.running.keys()] }, 'jobs still running at shutdown: aborting and handing them back');
    for (const r of this.running.values()) {
      r.interrupted = true;
      r.controller.abort(new Error('worker is shutting down'));
    }
    // A handler that ignores the signal keeps its lease until it expires; another worker then takes over.
    await raceTimeout(all(), 5000);
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      try {
        while (!this.stopping && this.running.size < this.config.concurrency) {
          const job = await this.claimNext();
          if (!job) break;
          this.execute(job);
        }
      } catch (err) {
        this.logger.error({ err }, 'job queue: claiming failed');
      }
      if (this.stopping) break;
      await this.sleep(await this.idleDelay());
    }
  }

  /** How long to sleep: the poll interval, or less when a queued job is due sooner. */
  private async idleDelay(): Promise<number> {
    if (this.running.size >= this.config.concurrency) return this.config.pollMs;
    try {
      const next = await nextRunAt(this.db, this.types);
      if (next) return Math.max(0, Math.min(this.config.pollMs, Date.parse(next) - Date.now() + 5));
    } catch {
      // the claim loop logs database problems
    }
    return this.config.pollMs;
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken || ms <= 0) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      this.wakeUp = finish;
    });
  }

  /**
   * The next job to run: a job whose lease expired first (looked for at most once per poll interval: a dead worker's
   * jobs wait that long at most, and a busy queue does not pay a second scan per job), else the oldest due one.
   */
  private async claimNext(): Promise<JobRow | undefined> {
    const types = this.types;
    const now = new Date();
    if (now.getTime() >= this.nextLeaseCheck) {
      this.nextLeaseCheck = now.getTime() + this.config.pollMs;
      for (const id of await findExpiredLeases(this.db, types, now.toISOString(), this.config.concurrency + 4)) {
        if (this.running.has(id)) continue;
        const job = await claimExpiredJob(this.db, id, this.workerId, now.toISOString(), this.leaseUntil(now));
        if (job) return job;
      }
    }
    return claimDueJob(this.db, types, this.workerId, now.toISOString(), this.leaseUntil(now));
  }

  private leaseUntil(now = new Date()): string {
    return new Date(now.getTime() + this.config.leaseMs).toISOString();
  }

  private execute(job: JobRow): void {
    const controller = new AbortController();
    const entry: Running = { job, controller, interrupted: false, done: Promise.resolve() };
    this.running.set(job.id, entry);
    entry.done = this.runJob(entry)
      .catch((err) => this.logger.error({ err, job: job.id }, 'job queue: unexpected error'))
      .finally(() => {
        this.running.delete(job.id);
        this.wake();
      });
  }

  private async runJob(entry: Running): Promise<void> {
    const { job, controller } = entry;
    const handler = this.handlers.get(job.type)!;
    const log = this.logger.child({ job: job.id, type: job.type, attempt: job.attempts });
    // A job claimed again after its worker died on the last attempt has no attempt left.
    if (job.attempts > job.maxAttempts) {
      await this.fail(job, handler, job.lastError ?? 'the worker running this job stopped before it finished', log);
      return;
    }
    let lost = false;
    const renew = setInterval(() => {
      renewLease(this.db, job.id, this.workerId, new Date().toISOString(), this.leaseUntil())
        .then((held) => {
          if (!held && !lost) {
            lost = true;
            log.warn('job lease lost to another worker: aborting this run');
            controller.abort(new Error('job lease lost'));
          }
        })
        .catch((err) => log.warn({ err }, 'could not renew job lease'));
    }, Math.max(50, Math.floor(this.config.leaseMs / 3)));
    let payload: unknown;
    try {
      payload = JSON.parse(job.payload);
      log.debug('job started');
      await handler.run(payload, { id: job.id, type: job.type, attempt: job.attempts, maxAttempts: job.maxAttempts, signal: controller.signal, logger: log });
      clearInterval(renew);
      if (!(await markDone(this.db, job.id, this.workerId, new Date().toISOString()))) log.warn('job finished but another worker holds it now');
      else log.debug('job done');
    } catch (err) {
      clearInterval(renew);
      if (lost) return;
      if (entry.interrupted) {
        await releaseJob(this.db, job.id, this.workerId, new Date().toISOString()).catch((e) => log.error({ err: e }, 'could not hand back job'));
        return;
      }
      const message = errorMessage(err);
      if (err instanceof PermanentJobError || job.attempts >= job.maxAttempts) {
        await this.fail(job, handler, message, log);
        return;
      }
      const delay = Math.min(this.config.backoffMaxMs, this.config.backoffMs * 2 ** (job.attempts - 1));
      log.warn({ err: message, retryInMs: delay }, 'job attempt failed, will retry');
      const now = new Date();
      await markRetry(this.db, job.id, this.workerId, now.toISOString(), new Date(now.getTime() + delay).toISOString(), message).catch((e) =>
        log.error({ err: e }, 'could not schedule job retry'),
      );
    }
  }

  private async fail(job: JobRow, handler: JobHandler<any>, message: string, log: Logger): Promise<void> {
    log.error({ err: message, attempts: job.attempts }, 'job failed for good');
    try {
      await this.db.transaction().execute(async (trx) => {
        if (!(await markFailed(trx, job.id, this.workerId, new Date().toISOString(), message))) return;
        const payload = parsePayload(job.payload);
        if (handler.onFailed && payload !== undefined) await handler.onFailed(trx, payload, message);
      });
    } catch (err) {
      log.error({ err }, 'could not record job failure');
    }
  }
}

function parsePayload(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function errorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.length > ERROR_MAX ? `${message.slice(0, ERROR_MAX - 1)}…` : message;
}

/** Resolves true when `ms` passed before `p` settled. */
async function raceTimeout(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), ms);
  });
  try {
    return await Promise.race([p.then(() => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
