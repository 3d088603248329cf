import type { ExpressionBuilder, Selectable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import { newId } from '../db/ids.js';
import { isSqlite } from '../catalogue/catalogue.repository.js';
import type { Database, JobsTable } from '../db/schema.js';

/** Every SQL statement about the `jobs` table. Times are ISO-8601 UTC text, so they compare as strings. */

export type JobRow = Selectable<JobsTable>;

export interface NewJob {
  type: string;
  payload: unknown;
  subject?: string | null;
  runAt: string;
  maxAttempts: number;
  now: string;
}

export async function insertJob(db: DbOrTrx, job: NewJob): Promise<string> {
  const id = newId();
  const { type, runAt, maxAttempts, now } = job;
  await insertQueued(db, { id, type, payload: JSON.stringify(job.payload ?? null), maxAttempts, runAt, subject: job.subject ?? null, now });
  return id;
}

// Most writes queue a job (a notification's mail, a file's processing): compiled once (server/db/prepared.ts).
type Queued = { id: string; type: string; payload: string; maxAttempts: number; runAt: string; subject: string | null; now: string };
const insertQueued = prepared(['id', 'type', 'payload', 'maxAttempts', 'runAt', 'subject', 'now'], (db, v: Queued) =>
  db.insertInto('jobs').values({
    id: v.id,
    type: v.type,
    payload: v.payload,
    status: 'queued',
    attempts: 0,
    maxAttempts: v.maxAttempts,
    runAt: v.runAt,
    subject: v.subject,
    lockedAt: null,
    lockedBy: null,
    lastError: null,
    leaseExpiresAt: null,
    finishedAt: null,
    createdAt: v.now,
    updatedAt: v.now,
  }),
);

/**
 * Ids of running jobs whose lease expired (their worker died or stalled), oldest lease first: any worker may claim
 * them again (claimExpiredJob). Served by the index jobs_status_lease.
 */
export async function findExpiredLeases(db: DbOrTrx, types: string[], now: string, limit: number): Promise<string[]> {
  if (!types.length) return [];
  const rows = await db
    .selectFrom('jobs')
    .select('id')
    .where('status', '=', 'running')
    .where('leaseExpiresAt', '<', now)
    .where('type', 'in', types)
    .orderBy('leaseExpiresAt')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Claims the oldest due queued job of `types` in one statement (the index jobs_status_run_at finds it): what finding
 * candidates and then claiming one took two round trips for, on every job. On PostgreSQL the candidate is read
 * `FOR UPDATE SKIP LOCKED`, so workers racing take different rows; and the claim's own conditions are checked again
 * on the row, so a row claimed in between matches nothing. SQLite runs writes one at a time.
 */
export async function claimDueJob(db: DbOrTrx, types: string[], workerId: string, now: string, leaseUntil: string): Promise<JobRow | undefined> {
  if (!types.length) return undefined;
  let next = db
    .selectFrom('jobs as next')
    .select('next.id')
    .where('next.status', '=', 'queued')
    .where('next.runAt', '<=', now)
    .where('next.type', 'in', types)
    .orderBy('next.runAt')
    .orderBy('next.id')
    .limit(1);
  if (!isSqlite(db)) next = next.forUpdate().skipLocked();
  return db
    .updateTable('jobs')
    .set(claimedBy(workerId, now, leaseUntil))
    .where('id', '=', next)
    .where('status', '=', 'queued')
    .where('runAt', '<=', now)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Claims a job whose lease expired, by id, with a single conditional UPDATE: it only matches while the lease is still
 * expired, so of several workers racing for the same id exactly one gets the row back (on PostgreSQL the losers wait
 * for the winner's row lock, re-check the WHERE and match nothing; SQLite runs writes one at a time).
 */
export async function claimExpiredJob(db: DbOrTrx, id: string, workerId: string, now: string, leaseUntil: string): Promise<JobRow | undefined> {
  return db
    .updateTable('jobs')
    .set(claimedBy(workerId, now, leaseUntil))
    .where('id', '=', id)
    .where('status', '=', 'running')
    .where('leaseExpiresAt', '<', now)
    .returningAll()
    .executeTakeFirst();
}

/** What a claim writes, whichever job it took: running, this worker's lease, one more attempt. */
function claimedBy(workerId: string, now: string, leaseUntil: string) {
  return (eb: ExpressionBuilder<Database, 'jobs'>) => ({
    status: 'running' as const,
    lockedBy: workerId,
    lockedAt: now,
    leaseExpiresAt: leaseUntil,
    attempts: eb('attempts', '+', 1),
    updatedAt: now,
  });
}

/** Extends the lease of a job this worker still holds; false when it lost it (another worker took it over). */
export async function renewLease(db: DbOrTrx, id: string, workerId: string, now: string, leaseUntil: string): Promise<boolean> {
  const res = await db
    .updateTable('jobs')
    .set({ leaseExpiresAt: leaseUntil, updatedAt: now })
    .where('id', '=', id)
    .where('lockedBy', '=', workerId)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

/** The terminal or retry states. Each only applies while this worker holds the job; false otherwise. */
export async function markDone(db: DbOrTrx, id: string, workerId: string, now: string): Promise<boolean> {
  const res = await db
    .updateTable('jobs')
    .set({ status: 'done', finishedAt: now, lockedBy: null, leaseExpiresAt: null, lastError: null, updatedAt: now })
    .where('id', '=', id)
    .where('lockedBy', '=', workerId)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

export async function markRetry(db: DbOrTrx, id: string, workerId: string, now: string, runAt: string, error: string): Promise<boolean> {
  const res = await db
    .updateTable('jobs')
    .set({ status: 'queued', runAt, lastError: error, lockedBy: null, leaseExpiresAt: null, updatedAt: now })
    .where('id', '=', id)
    .where('lockedBy', '=', workerId)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

export async function markFailed(db: DbOrTrx, id: string, workerId: string, now: string, error: string): Promise<boolean> {
  const res = await db
    .updateTable('jobs')
    .set({ status: 'failed', finishedAt: now, lastError: error, lockedBy: null, leaseExpiresAt: null, updatedAt: now })
    .where('id', '=', id)
    .where('lockedBy', '=', workerId)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

/** Hands an interrupted job back (process shutting down): queued again, and the attempt does not count. */
export async function releaseJob(db: DbOrTrx, id: string, workerId: string, now: string): Promise<boolean> {
  const res = await db
    .updateTable('jobs')
    .set((eb) => ({ status: 'queued', runAt: now, lockedBy: null, leaseExpiresAt: null, attempts: eb('attempts', '-', 1), updatedAt: now }))
    .where('id', '=', id)
    .where('lockedBy', '=', workerId)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

/** When the earliest queued job of these types is due (to sleep no longer than needed). */
export async function nextRunAt(db: DbOrTrx, types: string[]): Promise<string | null> {
  if (!types.length) return null;
  const row = await db
    .selectFrom('jobs')
    .select('runAt')
    .where('status', '=', 'queued')
    .where('type', 'in', types)
    .orderBy('runAt')
    .limit(1)
    .executeTakeFirst();
  return row?.runAt ?? null;
}

export async function findJobsBySubject(db: DbOrTrx, subject: string): Promise<JobRow[]> {
  return db.selectFrom('jobs').selectAll().where('subject', '=', subject).orderBy('createdAt').orderBy('id').execute();
}
