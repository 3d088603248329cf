import type { DbOrTrx } from '../db/database.js';
import type { AppContext } from '../context.js';
import { newId, nowIso } from '../db/ids.js';
import { AppError, conflict, isUniqueViolation, notFound } from '../http/errors.js';
import { deleteFileRows, fileRow, getFiles, insertFiles } from '../media/pipeline/pipeline.repository.js';
import type { ReceivedFile } from '../media/pipeline/upload.js';
import { mediaSigner } from '../media/signed-urls.js';
import { addNotification, pushNotificationCount } from '../notifications/notifications.service.js';
import type { Actor } from '../studio/deps.js';
import { invalid } from '../studio/deps.js';
import type { CoPerformerObjectType } from '../../common/enums.js';
import {
  CO_PERFORMERS_PER_ITEM_MAX, type AdminConsentList, type AdminConsentQuery, type AdminConsentRecord, type CoPerformer, type CoPerformerList,
  type CoPerformerRequest,
} from '../../common/schemas/consent.js';
import * as repo from './consent.repository.js';

/**
 * Co-performers and consent records (server/consent/README.md). Every person shown in a performer's video, gallery or
 * post is named on it: a performer of this site, who confirms in their own studio, or an outside person, whose
 * release form and identity document are kept in private storage and shown to admins only. An item with anybody not
 * confirmed is never published: the studio refuses to publish or schedule it (409 CO_PERFORMER_UNCONFIRMED), and
 * naming somebody on a published item takes it back to draft in the same transaction. The catalogue's public lists
 * therefore need nothing of this table: the item's own status says it.
 */

/** How long an admin's link to a release form or identity document lives, at most. */
export const CONSENT_URL_TTL_SEC = 300;
/** Where consent files are stored: private, never under public/. */
export const CONSENT_PREFIX = 'private/consent';

type Deps = Pick<AppContext, 'db' | 'storage' | 'realtime' | 'logger'>;

const what = { video: 'Video', gallery: 'Gallery', post: 'Post' } as const;

/** The uploader's own item (404 for anybody else's, and for a site post, which has no performer). */
async function ownItem(db: DbOrTrx, actor: Actor, type: CoPerformerObjectType, id: string): Promise<repo.ConsentItem> {
  const item = await repo.findItem(db, type, id);
  if (!item || !item.performerId || item.performerId !== actor.id) throw notFound(what[type]);
  return item;
}

function view(r: repo.CoPerformerRecord): CoPerformer {
  return {
    _id: r.id,
    kind: r.kind,
    performer: r.performerId && r.performerUsername ? { _id: r.performerId, username: r.performerUsername, name: r.performerName ?? r.performerUsername } : null,
    legalName: r.legalName,
    status: r.status,
    hasReleaseForm: Boolean(r.releaseFileId),
    hasIdDocument: Boolean(r.idFileId),
    createdAt: r.createdAt,
    respondedAt: r.respondedAt,
  };
}

function listOf(rows: repo.CoPerformerRecord[]): CoPerformerList {
  return { items: rows.map(view), publishable: rows.every((r) => r.status === 'confirmed') };
}

export async function itemCoPerformers(db: DbOrTrx, actor: Actor, type: CoPerformerObjectType, id: string): Promise<CoPerformerList> {
  await ownItem(db, actor, type, id);
  return listOf(await repo.recordsOfItem(db, type, id));
}

export const unconfirmed = () =>
  new AppError(409, 'CO_PERFORMER_UNCONFIRMED', 'Everyone shown in this item must confirm before it is published: a co-performer has not confirmed (or declined; remove them to publish)');

/**
 * In a publish's transaction, after the item's row was written (the write holds the row's lock): refuses when anybody
 * named on the item has not confirmed. A naming that committed first is seen here; one that commits later finds the
 * item published and takes it back to draft.
 */
export async function assertPublishable(trx: DbOrTrx, type: CoPerformerObjectType, id: string): Promise<void> {
  if ((await repo.countUnconfirmed(trx, type, id)) > 0) throw unconfirmed();
}

async function roomFor(trx: DbOrTrx, type: CoPerformerObjectType, id: string): Promise<void> {
  if ((await repo.countOfItem(trx, type, id)) >= CO_PERFORMERS_PER_ITEM_MAX) {
    throw new AppError(409, 'CO_PERFORMERS_LIMIT', `An item names at most ${CO_PERFORMERS_PER_ITEM_MAX} people`);
  }
}

/**
 * Names a performer of this site on one's item: a pending request, the item back to draft if it was published (or
 * scheduled), and the named performer told (notification `co_performer`, live).
 */
export async function nameSitePerformer(deps: Deps, actor: Actor, type: CoPerformerObjectType, id: string, username: string): Promise<CoPerformerList> {
  const item = await ownItem(deps.db, actor, type, id);
  const performer = await repo.findApprovedPerformer(deps.db, username.replace(/^@/, ''));
  if (!performer) throw invalid('username', 'No approved performer of this site has this username');
  if (performer.id === actor.id) throw invalid('username', 'You do not need to name yourself');
  const now = nowIso();
  try {
    await deps.db.transaction().execute(async (trx) => {
      await roomFor(trx, type, id);
      await repo.insertCoPerformer(trx, {
        id: newId(), objectType: type, objectId: id, ownerId: actor.id, kind: 'performer', performerId: performer.id,
        legalName: null, releaseFileId: null, idFileId: null, status: 'pending', createdAt: now, updatedAt: now, respondedAt: null,
      });
      await repo.takeItemToDraft(trx, type, id);
      await addNotification(trx, performer.id, 'co_performer', {
        action: 'requested', objectType: type, objectId: id, title: item.title, actorId: actor.id, actorName: (await repo.userName(trx, actor.id)) ?? null, url: '/studio/co-performers',
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError(409, 'CO_PERFORMER_ALREADY_NAMED', `${performer.name} is already named on this item`);
    throw err;
  }
  await pushNotificationCount(deps.db, deps.realtime, performer.id);
  return listOf(await repo.recordsOfItem(deps.db, type, id));
}

/**
 * Names an outside person with their release form and identity document (already received into private storage):
 * confirmed at once, the files kept as `files` rows so nothing sweeps them. The caller discards the files if this throws.
 */
export async function addOutsidePerson(deps: Deps, actor: Actor, type: CoPerformerObjectType, id: string, legalName: string, files: { release?: ReceivedFile; identity?: ReceivedFile }): Promise<CoPerformerList> {
  await ownItem(deps.db, actor, type, id);
  const { release, identity } = files;
  if (!release) throw invalid('releaseForm', 'Attach the signed release form (PDF or picture) in "releaseForm"');
  if (!identity) throw invalid('idDocument', 'Attach a picture of their identity document in "idDocument"');
  const now = nowIso();
  await deps.db.transaction().execute(async (trx) => {
    await roomFor(trx, type, id);
    await insertFiles(trx, [release, identity].map((f) =>
      fileRow({ id: f.id, ownerId: actor.id, kind: f.type.kind === 'image' ? 'image' : 'file', storageKey: f.storageKey, mime: f.type.mime, size: f.size, width: f.width, height: f.height, originalName: f.originalName, status: 'ready' }, now),
    ));
    await repo.insertCoPerformer(trx, {
      id: newId(), objectType: type, objectId: id, ownerId: actor.id, kind: 'outside', performerId: null, legalName,
      releaseFileId: release.id, idFileId: identity.id, status: 'confirmed', createdAt: now, updatedAt: now, respondedAt: now,
    });
  });
  return listOf(await repo.recordsOfItem(deps.db, type, id));
}

/** Removes a person from one's item (a declined request is lifted this way), with their files. */
export async function removeCoPerformer(deps: Deps, actor: Actor, recordId: string): Promise<CoPerformerList> {
  const record = await repo.findRecord(deps.db, recordId);
  if (!record || record.ownerId !== actor.id) throw notFound('Co-performer');
  let keys: string[] = [];
  await deps.db.transaction().execute(async (trx) => {
    const files = await getFiles(trx, [record.releaseFileId, record.idFileId]);
    await repo.deleteRecord(trx, record.id);
    await deleteFileRows(trx, files.map((f) => f.id));
    keys = files.map((f) => f.storageKey);
  });
  // After the commit: a file whose delete fails is an orphan the sweep removes (server/media/orphans.ts).
  await Promise.all(keys.map((k) => deps.storage.delete(k).catch((err) => deps.logger.warn({ err, key: k }, 'consent file not deleted'))));
  return listOf(await repo.recordsOfItem(deps.db, record.objectType, record.objectId));
}

// ---------------------------------------------------------------------------------------------------------------
// The named performer's side.

export async function coPerformerRequests(db: DbOrTrx, performerId: string): Promise<{ items: CoPerformerRequest[] }> {
  const rows = await repo.requestsOf(db, performerId);
  const titles = await repo.itemTitles(db, rows);
  return {
    items: rows.map((r) => ({
      _id: r.id,
      objectType: r.objectType,
      objectId: r.objectId,
      title: titles.get(`${r.objectType}:${r.objectId}`) ?? null,
      owner: { _id: r.ownerId, username: r.ownerUsername ?? '', name: r.ownerName ?? r.ownerUsername ?? '' },
      status: r.status,
      createdAt: r.createdAt,
      respondedAt: r.respondedAt,
    })),
  };
}

/** Confirms or declines a request made to the actor; the uploader is told. 404 for anybody else's, 409 once answered. */
export async function answerCoPerformerRequest(deps: Deps, actor: Actor, recordId: string, answer: 'confirmed' | 'declined'): Promise<{ items: CoPerformerRequest[] }> {
  const record = await repo.findRecord(deps.db, recordId);
  if (!record || record.performerId !== actor.id) throw notFound('Request');
  const titles = await repo.itemTitles(deps.db, [record]);
  await deps.db.transaction().execute(async (trx) => {
    if (!(await repo.answerRequest(trx, record.id, actor.id, answer, nowIso()))) {
      throw new AppError(409, 'CO_PERFORMER_ALREADY_ANSWERED', 'This request was already answered');
    }
    await addNotification(trx, record.ownerId, 'co_performer', {
      action: answer, objectType: record.objectType, objectId: record.objectId, title: titles.get(`${record.objectType}:${record.objectId}`) ?? null,
      actorId: actor.id, actorName: record.performerName, url: `/studio/${record.objectType === 'gallery' ? 'galleries' : `${record.objectType}s`}`,
    });
  });
  await pushNotificationCount(deps.db, deps.realtime, record.ownerId);
  return coPerformerRequests(deps.db, actor.id);
}

// ---------------------------------------------------------------------------------------------------------------
// The console.

/**
 * The console's consent records with links to their files, signed for this admin for at most CONSENT_URL_TTL_SEC (the
 * protected media route opens them for admins only, checking again on every request).
 */
export async function adminConsentRecords(ctx: Pick<AppContext, 'db' | 'config'>, adminId: string, q: AdminConsentQuery): Promise<AdminConsentList> {
  const { items, total } = await repo.consentRecords(ctx.db, q);
  const [titles, files] = await Promise.all([
    repo.itemTitles(ctx.db, items),
    repo.fileMimes(ctx.db, items.flatMap((r) => [r.releaseFileId, r.idFileId]).filter((f): f is string => Boolean(f))),
  ]);
  const signer = mediaSigner(ctx.config);
  const expiresAt = Math.floor(Date.now() / 1000) + Math.min(CONSENT_URL_TTL_SEC, ctx.config.mediaUrlTtlSec);
  const link = (recordId: string, fileId: string | null) => {
    const file = fileId ? files.get(fileId) : undefined;
    if (!fileId || !file) return null;
    const signed = signer.sign({ objectType: 'consent', objectId: recordId, fileId }, adminId, { expiresAt });
    return { ...signed, name: file.originalName, mime: file.mime };
  };
  return {
    total,
    items: items.map((r): AdminConsentRecord => ({
      ...view(r),
      objectType: r.objectType,
      objectId: r.objectId,
      title: titles.get(`${r.objectType}:${r.objectId}`) ?? null,
      owner: r.ownerUsername ? { _id: r.ownerId, username: r.ownerUsername, name: r.ownerName ?? r.ownerUsername } : null,
      updatedAt: r.updatedAt,
      releaseForm: link(r.id, r.releaseFileId),
      idDocument: link(r.id, r.idFileId),
    })),
  };
}

/**
 * An admin refuses a record (a release form or identity document that does not hold, a confirmation that was not
 * the person's): it counts as declined, and its item goes back to draft. In the caller's audited transaction.
 */
export async function refuseConsentRecord(trx: DbOrTrx, recordId: string): Promise<{ objectType: CoPerformerObjectType; objectId: string; unpublished: boolean }> {
  const record = await repo.findRecord(trx, recordId);
  if (!record) throw notFound('Consent record');
  if (!(await repo.refuseRecord(trx, record.id, nowIso()))) throw conflict('This record is already declined');
  const unpublished = await repo.takeItemToDraft(trx, record.objectType, record.objectId);
  return { objectType: record.objectType, objectId: record.objectId, unpublished };
}

/** The record-keeping statement page's HTML (a setting an admin writes; cleaned when saved, like the footer's). */
export async function recordKeepingStatement(settings: Pick<AppContext['settings'], 'get'>): Promise<string> {
  return String(await settings.get('recordKeepingStatement'));
}
