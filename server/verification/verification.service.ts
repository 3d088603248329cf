import { countries } from 'countries-list';
import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import type { Db, DbOrTrx } from '../db/database.js';
import { newId, nowIso } from '../db/ids.js';
import { AppError, isUniqueViolation, notFound } from '../http/errors.js';
import type { Audit } from '../admin/admin.http.js';
import type { JobQueue } from '../jobs/queue.js';
import { findJobsBySubject } from '../jobs/jobs.repository.js';
import type { Mailer } from '../mail/mailer.js';
import type { MailSite } from '../mail/templates.js';
import { verificationApprovedMail, verificationRejectedMail, verificationSubmittedMail } from '../mail/verification-templates.js';
import { cleanAttachments } from '../messages/attachments.js';
import { deleteFileRows, fileRow, getFiles, insertFiles } from '../media/pipeline/pipeline.repository.js';
import type { ReceivedFile } from '../media/pipeline/upload.js';
import { mediaSigner } from '../media/signed-urls.js';
import type { Storage } from '../media/storage.js';
import { addNotification, pushNotificationCount } from '../notifications/notifications.service.js';
import { setPerformerApproved } from '../performers/performers.repository.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { ListResult } from '../../common/schemas/http.js';
import type { AdminVerification, AdminVerificationDetail, AdminVerificationQuery, MyVerification, VerificationFields } from '../../common/schemas/verification.js';
import { ageOn, VERIFICATION_IMAGES, VERIFICATION_MIN_AGE, type VerificationImageField } from '../../common/verification.js';
import * as repo from './verification.repository.js';

/**
 * Performers' identity and age verification (server/verification/README.md). The rules: a performer submits their
 * legal name, date of birth (18 or older on the day), the document's country and three pictures; one submission
 * waits at a time; an admin approves (which approves the performer: the one gate the studio and the checkout already
 * enforce) or rejects with a reason (the performer may submit again). The pictures open for admins only, through
 * short-lived signed URLs, and are deleted a set number of days after the decision.
 */

/** How long an admin's signed link to a picture stays valid: long enough to look, too short to pass around. */
export const VERIFICATION_URL_TTL_SEC = 5 * 60;
export const JOB_VERIFICATION_RETENTION = 'verification.retention';
/** The retention job runs again this long after each run. */
export const RETENTION_INTERVAL_MS = 6 * 60 * 60_000;
const RETENTION_SUBJECT = 'verification-retention';

type Countries = Record<string, { name: string } | undefined>;
const countryNames: Countries = countries;

/** The ISO codes and names of the countries a document may come from, by name (the studio form's list). */
export function verificationCountries(): Array<{ code: string; name: string }> {
  return Object.entries(countryNames)
    .map(([code, c]) => ({ code, name: c?.name ?? code }))
    .sort((a, b) => a.name.localeCompare(b.name, 'en'));
}

const dayOf = (d: Date) => d.toISOString().slice(0, 10);

function myView(row: repo.VerificationRow | undefined): MyVerification {
  if (!row) return { status: 'none', _id: null, legalName: null, dateOfBirth: null, country: null, submittedAt: null, decidedAt: null, reason: null };
  return {
    status: row.status,
    _id: row.id,
    legalName: row.legalName,
    dateOfBirth: row.dateOfBirth,
    country: row.country,
    submittedAt: row.submittedAt,
    decidedAt: row.decidedAt,
    reason: row.status === 'rejected' ? row.reason : null,
  };
}

/** The performer's own state (never a picture). */
export async function myVerification(db: DbOrTrx, performerId: string): Promise<MyVerification> {
  return myView(await repo.latestVerification(db, performerId));
}

/** Whether the performer has an approved verification (the console's approval needs one). */
export function hasApprovedVerification(db: DbOrTrx, performerId: string): Promise<boolean> {
  return repo.hasApprovedVerification(db, performerId);
}

/** The newest submission's status per performer (the console's performers list). */
export function verificationStatuses(db: DbOrTrx, performerIds: string[]) {
  return repo.latestStatuses(db, performerIds);
}

/** The checks of the text fields that need more than their shape: a real date, 18 or older today, a known country. */
export function checkSubmission(fields: { legalName: string; dateOfBirth: string; country: string }, now = new Date()): void {
  const age = ageOn(fields.dateOfBirth, dayOf(now));
  if (age === null || age > 130) throw new AppError(400, 'VALIDATION_FAILED', 'This date of birth is not a real date', [{ path: 'dateOfBirth', message: 'Not a real date' }]);
  if (age < 0) throw new AppError(400, 'VALIDATION_FAILED', 'The date of birth is in the future', [{ path: 'dateOfBirth', message: 'In the future' }]);
  if (age < VERIFICATION_MIN_AGE) {
    throw new AppError(400, 'UNDER_AGE', `You must be ${VERIFICATION_MIN_AGE} or older to publish on this site`, [
      { path: 'dateOfBirth', message: `You must be ${VERIFICATION_MIN_AGE} or older` },
    ]);
  }
  if (!countryNames[fields.country]) throw new AppError(400, 'VALIDATION_FAILED', 'Choose a country from the list', [{ path: 'country', message: 'Unknown country' }]);
}

/**
 * Refused before the pictures are read: a submission waiting for review, or an approved one (nothing to do).
 * Checked again by the unique index when the row is written.
 */
export async function assertMaySubmit(db: DbOrTrx, performerId: string): Promise<boolean> {
  const current = await repo.latestVerification(db, performerId);
  if (current?.status === 'pending') throw new AppError(409, 'VERIFICATION_PENDING', 'Your verification is waiting for review; you can send a new one if it is rejected');
  if (current?.status === 'approved') throw new AppError(409, 'ALREADY_VERIFIED', 'Your identity is already verified');
  return current?.status === 'rejected';
}

export interface SubmitDeps {
  db: Db;
  storage: Storage;
  mailer: Mailer;
  settings: SettingsService;
  config: { publicUrl: string };
  logger: Logger;
}

/**
 * Stores a submission: the pictures are written again without their camera metadata (EXIF: a phone's GPS position),
 * then their `files` rows and the submission in one transaction. After the commit each admin is mailed. Any failure
 * leaves nothing: the caller discards the received files.
 */
export async function submitVerification(
  deps: SubmitDeps,
  performer: { id: string; username: string },
  fields: VerificationFields & { legalName: string; dateOfBirth: string; country: string },
  files: Record<VerificationImageField, ReceivedFile | undefined>,
  now = new Date(),
): Promise<MyVerification> {
  checkSubmission(fields, now);
  const missing = VERIFICATION_IMAGES.filter((i) => !files[i.field]);
  if (missing.length) {
    throw new AppError(400, 'VALIDATION_FAILED', `Add ${missing.map((m) => m.label.toLowerCase()).join(', ')}`, missing.map((m) => ({ path: m.field, message: 'Add this picture' })));
  }
  const resubmission = await assertMaySubmit(deps.db, performer.id);
  const received = VERIFICATION_IMAGES.map((i) => files[i.field]!);
  await cleanAttachments(deps.storage, received);
  const id = newId();
  const at = now.toISOString();
  try {
    await deps.db.transaction().execute(async (trx) => {
      await insertFiles(
        trx,
        received.map((f) => fileRow({ id: f.id, ownerId: performer.id, kind: 'image', storageKey: f.storageKey, mime: f.type.mime, size: f.size, width: f.width, height: f.height, originalName: null, status: 'ready' }, at)),
      );
      await repo.insertVerification(trx, {
        id,
        performerId: performer.id,
        status: 'pending',
        legalName: fields.legalName,
        dateOfBirth: fields.dateOfBirth,
        country: fields.country,
        documentFrontFileId: files.documentFront!.id,
        documentBackFileId: files.documentBack!.id,
        selfieFileId: files.selfie!.id,
        seeded: 0,
        submittedAt: at,
        createdAt: at,
        updatedAt: at,
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError(409, 'VERIFICATION_PENDING', 'Your verification is waiting for review; you can send a new one if it is rejected');
    throw err;
  }
  const site = await mailSite(deps);
  for (const admin of await repo.adminRecipients(deps.db)) {
    deps.mailer.queue(verificationSubmittedMail(site, admin, { id, performerUsername: performer.username, resubmission }));
  }
  deps.logger.info({ verificationId: id, performerId: performer.id }, 'verification submitted');
  return myView(await repo.latestVerification(deps.db, performer.id));
}

async function mailSite(deps: { settings: SettingsService; config: { publicUrl: string } }): Promise<MailSite> {
  return { siteName: String(await deps.settings.get('siteName')), publicUrl: deps.config.publicUrl };
}

function adminView(row: repo.VerificationWithPerformer): AdminVerification {
  return {
    _id: row.id,
    performer: { _id: row.performerId, username: row.performerUsername, name: row.performerName, email: row.performerEmail },
    status: row.status,
    legalName: row.legalName,
    dateOfBirth: row.dateOfBirth,
    country: row.country,
    submittedAt: row.submittedAt,
    decidedAt: row.decidedAt,
    decidedBy: row.decidedBy,
    reason: row.reason,
    filesDeletedAt: row.filesDeletedAt,
    seeded: Number(row.seeded) === 1,
  };
}

export async function listVerificationQueue(db: DbOrTrx, q: AdminVerificationQuery): Promise<ListResult<AdminVerification>> {
  const { rows, total } = await repo.listVerifications(db, q);
  return { items: rows.map(adminView), total };
}

/** One submission for the admin `adminId`, its pictures as URLs signed for that admin alone, valid five minutes. */
export async function verificationDetail(
  ctx: { db: DbOrTrx; config: { appSecret: string; mediaUrlTtlSec: number } },
  adminId: string,
  id: string,
  now = Date.now(),
): Promise<AdminVerificationDetail> {
  const row = await repo.findVerification(ctx.db, id);
  if (!row) throw notFound('Verification');
  const signer = mediaSigner(ctx.config);
  const expiresAt = Math.floor(now / 1000) + VERIFICATION_URL_TTL_SEC;
  const images: AdminVerificationDetail['images'] = [];
  if (!row.filesDeletedAt) {
    const byField: Array<[VerificationImageField, string | null]> = [
      ['documentFront', row.documentFrontFileId],
      ['documentBack', row.documentBackFileId],
      ['selfie', row.selfieFileId],
    ];
    for (const [kind, fileId] of byField) {
      if (!fileId) continue;
      images.push({ kind, ...signer.sign({ objectType: 'verification', objectId: row.id, fileId }, adminId, { expiresAt }) });
    }
  }
  return { ...adminView(row), images };
}

export interface Decision {
  result: AdminVerification;
  /** After the commit: the performer's mail and notification count. */
  after(): Promise<void>;
}

type DecideCtx = Pick<AppContext, 'mailer' | 'settings' | 'config' | 'realtime' | 'db' | 'logger'>;

/**
 * An admin's decision on a pending submission, in the console's audited transaction. Approving approves the
 * performer (the flag the studio and the checkout enforce); rejecting leaves the flag as it is. 404 for no such
 * submission, 409 when it was decided already.
 */
export async function decideVerification(
  trx: DbOrTrx,
  audit: Audit,
  ctx: DecideCtx,
  adminId: string,
  id: string,
  decision: { approve: true } | { approve: false; reason: string },
  now = new Date(),
): Promise<Decision> {
  const row = await repo.findVerification(trx, id);
  if (!row) throw notFound('Verification');
  const status = decision.approve ? 'approved' : 'rejected';
  const reason = decision.approve ? null : decision.reason;
  if (!(await repo.decideVerification(trx, id, { status, decidedBy: adminId, reason, at: now.toISOString() }))) {
    throw new AppError(409, 'ALREADY_DECIDED', `This verification was already ${row.status}`);
  }
  if (decision.approve) await setPerformerApproved(trx, row.performerId, true);
  await audit(`verification.${decision.approve ? 'approve' : 'reject'}`, 'performer', row.performerId, { verificationId: id, ...(reason ? { reason } : {}) });
  await addNotification(trx, row.performerId, 'verification', { verificationId: id, status, reason, actorName: null, url: '/studio/verification' });
  const decided = (await repo.findVerification(trx, id))!;
  return {
    result: adminView(decided),
    async after() {
      const site = await mailSite(ctx);
      const to = { email: row.performerEmail, name: row.performerName };
      ctx.mailer.queue(decision.approve ? verificationApprovedMail(site, to) : verificationRejectedMail(site, to, decision.reason));
      await pushNotificationCount(ctx.db, ctx.realtime, row.performerId);
      ctx.logger.info({ verificationId: id, performerId: row.performerId, status }, 'verification decided');
    },
  };
}

// -----------------------------------------------------------------------------------------------------------------
// Retention.

export interface RetentionDeps {
  db: Db;
  storage: Storage;
  settings: SettingsService;
  logger: Logger;
}

/**
 * Deletes the pictures of submissions decided `verificationDocumentRetentionDays` days ago or more: the rows and the
 * stored bytes; the submission keeps its decision, dates, legal name and date of birth and notes when the files went.
 * The row is marked in the transaction that deletes the `files` rows; the bytes go after the commit (a crash in
 * between leaves bytes no row names, which the orphan sweep removes). Answers how many submissions it cleared.
 */
export async function deleteExpiredDocuments(deps: RetentionDeps, now = new Date()): Promise<number> {
  const days = Math.max(0, Number(await deps.settings.get('verificationDocumentRetentionDays')));
  const cutoff = new Date(now.getTime() - days * 86_400_000).toISOString();
  let cleared = 0;
  for (;;) {
    const due = await repo.verificationsDueForDeletion(deps.db, cutoff, 100);
    if (!due.length) break;
    for (const v of due) {
      const keys = await deps.db.transaction().execute((trx) => dropPictures(trx, v, now.toISOString()));
      for (const key of keys) await deps.storage.delete(key).catch((err: unknown) => deps.logger.warn({ err, key }, 'could not delete a verification file'));
      cleared++;
    }
    if (due.length < 100) break;
  }
  if (cleared) deps.logger.info({ cleared, days }, 'verification documents deleted after the retention time');
  return cleared;
}

/**
 * A submission's pictures: the row notes they are gone and their `files` rows are deleted, in the caller's
 * transaction; answers the storage keys to delete after the commit (none when another run cleared them first).
 */
async function dropPictures(trx: DbOrTrx, v: repo.VerificationRow, at: string): Promise<string[]> {
  const ids = [v.documentFrontFileId, v.documentBackFileId, v.selfieFileId].filter((x): x is string => Boolean(x));
  if (!(await repo.markFilesDeleted(trx, v.id, at))) return [];
  const rows = await getFiles(trx, ids);
  await deleteFileRows(trx, ids);
  return rows.map((r) => r.storageKey);
}

export const WITHDRAWN_BY_DELETION = 'The performer deleted their account before the review';

/**
 * A performer deleting their account: a submission still waiting is closed (rejected, "deleted their account", by
 * themself, so the console's queue no longer holds it) and every picture still kept is deleted now rather than when
 * the retention time ends; the decisions, names and dates stay on record (who the site verified, and when). In the
 * deletion's transaction; answers the storage keys to delete after the commit.
 */
export async function eraseVerificationPictures(trx: DbOrTrx, performerId: string, at: string): Promise<string[]> {
  const keys: string[] = [];
  for (const v of await repo.verificationsOfPerformer(trx, performerId)) {
    if (v.status === 'pending') await repo.decideVerification(trx, v.id, { status: 'rejected', decidedBy: performerId, reason: WITHDRAWN_BY_DELETION, at });
    keys.push(...(await dropPictures(trx, v, at)));
  }
  return keys;
}

/**
 * The recurring retention job: each run deletes what is due and enqueues the next run `RETENTION_INTERVAL_MS` later
 * (unless one is queued already). `scheduleVerificationRetention` starts the chain on an instance running the worker.
 */
export function registerVerificationJobs(jobs: JobQueue, deps: RetentionDeps): void {
  jobs.register<Record<string, never>>(JOB_VERIFICATION_RETENTION, {
    maxAttempts: 3,
    async run() {
      await deleteExpiredDocuments(deps);
      await scheduleVerificationRetention(jobs, deps.db, new Date(Date.now() + RETENTION_INTERVAL_MS), true);
    },
  });
}

/** Enqueues the next retention run unless one is already waiting (a job running now counts when `fromRun` is false). */
export async function scheduleVerificationRetention(jobs: JobQueue, db: Db, runAt = new Date(), fromRun = false): Promise<void> {
  const waiting = (await findJobsBySubject(db, RETENTION_SUBJECT)).filter((j) => j.status === 'queued' || (!fromRun && j.status === 'running'));
  if (waiting.length) return;
  await jobs.enqueue(db, JOB_VERIFICATION_RETENTION, {}, { subject: RETENTION_SUBJECT, runAt });
}
