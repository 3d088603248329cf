import { AppError } from '../http/errors.js';
import type { DbOrTrx } from '../db/database.js';
import type { Actor, StudioDeps } from './deps.js';
import * as repo from './studio.repository.js';

// Before approval. Only performers an admin approved earn: until then the studio keeps a performer's work as
// drafts (nothing can be made active, published or scheduled, so nothing is public or for sale; the catalogue
// hides an unapproved performer's items anyway) and at most `unapprovedItemQuota` items of every kind together.
// Admins editing anything are not limited.

/**
 * The item quota when the actor is a performer an admin has not approved (yet, or any more); null when not limited.
 * Read before the transaction: the settings are read on another connection, which inside it could wait forever
 * for the connection the transaction holds (SQLite has one).
 */
export async function draftsOnly(deps: StudioDeps, actor: Actor): Promise<{ quota: number } | null> {
  if (actor.role === 'admin' || (await repo.performerApproved(deps.db, actor.id))) return null;
  return { quota: Math.max(0, Number(await deps.settings.get('unapprovedItemQuota'))) };
}

export function notApproved(what: string): AppError {
  return new AppError(403, 'PERFORMER_NOT_APPROVED', `Until an admin approves your account you can save drafts only: ${what}`);
}

/** The status of a new item: what was asked, else published, or for an unapproved performer a draft (403 when asked to publish). */
export function initialStatus<S extends string>(drafts: unknown, requested: S | undefined, published: S, draft: S): S {
  if (!drafts) return requested ?? published;
  if (requested === published) throw notApproved('publishing becomes possible once you are approved');
  return requested ?? draft;
}

/** An edit by an unapproved performer may not publish or schedule. */
export function checkEdit(drafts: unknown, status: string | undefined, published: string, scheduledAt?: string | null): void {
  if (!drafts) return;
  if (status === published) throw notApproved('publishing becomes possible once you are approved');
  if (scheduledAt) throw notApproved('scheduling becomes possible once you are approved');
}

/**
 * An item an admin took down (`hidden`) stays down until an admin puts it back: its performer may still edit it, but
 * not change its status, or the console's moderation would be one click away from undone.
 */
export function checkNotHiddenByAdmin(actor: Actor, current: string, next: string | undefined): void {
  if (actor.role === 'admin') return;
  if (current === 'hidden' && next !== undefined && next !== 'hidden') {
    throw new AppError(403, 'HIDDEN_BY_ADMIN', 'An admin took this item down; only an admin can put it back. Please contact support if you think this is a mistake.');
  }
}

/**
 * First thing in a create transaction of an unapproved performer: their items stay within the quota. The performer
 * row is locked first, so concurrent uploads count each other and cannot pass the quota together.
 */
export async function withinQuota(trx: DbOrTrx, actor: Actor, drafts: { quota: number } | null, adding: number): Promise<void> {
  if (!drafts) return;
  await repo.lockPerformer(trx, actor.id);
  const { quota } = drafts;
  const have = await repo.countOwnItems(trx, actor.id);
  if (have + adding > quota) {
    throw new AppError(
      403,
      'DRAFT_QUOTA_REACHED',
      `Until an admin approves your account you can keep at most ${quota} items (videos, galleries, photos, products and posts together); you have ${have}`,
      { quota, count: have },
    );
  }
}

/** Whether an admin approved the performer (the studio's pages say what an unapproved performer may do). */
export function performerIsApproved(db: DbOrTrx, performerId: string): Promise<boolean> {
  return repo.performerApproved(db, performerId);
}
