import type { Logger } from 'pino';
import type { Db, DbOrTrx } from '../db/database.js';
import { newId, nowIso } from '../db/ids.js';
import { audienceOf } from '../catalogue/catalogue.repository.js';
import { badRequest, notFound } from '../http/errors.js';
import { canManage, type Viewer } from '../access/access.service.js';
import { catalogueDeps, type CatalogueDeps } from '../catalogue/catalogue.service.js';
import { extend } from '../catalogue/item-mapper.js';
import { getVideo } from '../videos/videos.service.js';
import { getGallery } from '../galleries/galleries.service.js';
import type { AppContext } from '../context.js';
import type { SessionUser } from '../auth/auth.service.js';
import type { RealtimeEmitter } from '../realtime/hub.js';
import type { ListResult } from '../../common/schemas/http.js';
import type { ReactedGallery, ReactedVideo, ReactionItem, ReactionResult } from '../../common/schemas/engagement.js';
import type { EngagementObjectType, ReactionAction } from '../../common/enums.js';
import { adjustCounter, findTarget, readCounter, type CounterName } from './targets.repository.js';
import { addReactionCounted, deleteReaction, removeReactionCounted, insertReaction, listReactedContent, searchReactions, type ReactionFilters, type ReactionKey } from './reactions.repository.js';

/**
 * Reactions: like, favourite and watch later. One of each kind per user and object (unique index). Adding
 * and removing are idempotent, and the object's counter (likes, favourites) moves in the same transaction
 * as the row, only when a row was really inserted or deleted: repeated or concurrent calls leave exact
 * counts on both engines. A change is pushed to the object's room as `reaction/count`.
 */

export interface ReactionDeps {
  db: Db;
  realtime: RealtimeEmitter;
  logger?: Logger;
}

/** Which object types take which action. Watch later is a viewing list: videos and galleries. */
export const ACTION_TYPES: Record<ReactionAction, readonly EngagementObjectType[]> = {
  like: ['video', 'gallery', 'product', 'post', 'performer'],
  favourite: ['video', 'gallery', 'product', 'post', 'performer'],
  watch_later: ['video', 'gallery'],
};

const counterOf: Record<ReactionAction, CounterName | null> = { like: 'like', favourite: 'favourite', watch_later: null };

export interface ReactionInput {
  objectType: EngagementObjectType;
  objectId: string;
  action: ReactionAction;
}

function checkCombination(input: ReactionInput): void {
  if (!ACTION_TYPES[input.action].includes(input.objectType)) {
    throw badRequest(`"${input.action}" is not available for a ${input.objectType}; it applies to: ${ACTION_TYPES[input.action].join(', ')}`);
  }
}

/** Adds the reaction (a no-op when present). The object must be visible to the user (from `country`). */
export async function addReaction(deps: ReactionDeps, user: SessionUser, input: ReactionInput, country: string | null): Promise<ReactionResult> {
  checkCombination(input);
  const target = await findTarget(deps.db, input.objectType, input.objectId, audienceOf(user, country));
  if (!target || (!target.visible && !(target.performerId && canManage(user, target.performerId)) && user.role !== 'admin')) throw notFound('Content');
  const key: ReactionKey = { userId: user.id, ...input };
  const counter = counterOf[input.action];
  let result: { changed: boolean; count: number | null };
  if (!counter) result = { changed: await insertReaction(deps.db, key, newId(), nowIso()), count: null };
  else {
    const { changed, count } = await addReactionCounted(deps.db, { ...key, id: newId(), createdAt: nowIso() }, counter);
    // Deleted since the check: nothing was added.
    if (count === undefined) throw notFound('Content');
    result = { changed, count };
  }
  if (result.changed && result.count !== null) {
    deps.realtime.emitToObject(input.objectType, input.objectId, 'reaction/count', { objectType: input.objectType, objectId: input.objectId, action: input.action, count: result.count });
  }
  return { ...input, reacted: true, ...result };
}

/** Removes the reaction (a no-op when absent). Works on objects that are no longer visible, so lists can be cleaned up. */
export async function removeReaction(deps: ReactionDeps, user: SessionUser, input: ReactionInput): Promise<ReactionResult> {
  checkCombination(input);
  const key: ReactionKey = { userId: user.id, ...input };
  const counter = counterOf[input.action];
  let result: { changed: boolean; count: number | null };
  if (!counter) result = { changed: await deleteReaction(deps.db, key), count: null };
  else {
    const { changed, count } = await removeReactionCounted(deps.db, key, counter);
    result = { changed, count: count ?? 0 };
  }
  if (result.changed && result.count !== null) {
    deps.realtime.emitToObject(input.objectType, input.objectId, 'reaction/count', { objectType: input.objectType, objectId: input.objectId, action: input.action, count: result.count });
  }
  return { ...input, reacted: false, ...result };
}

export async function findReactions(db: Db, user: SessionUser, filters: ReactionFilters): Promise<ListResult<ReactionItem>> {
  const { rows, total } = await searchReactions(db, user.id, filters);
  return {
    items: rows.map((r) => ({ _id: r.id, objectType: r.objectType as EngagementObjectType, objectId: r.objectId, action: r.action, createdAt: r.createdAt })),
    total,
  };
}

type Ctx = Pick<AppContext, 'db' | 'config' | 'display'>;

/**
 * Loads the catalogue item of each listed reaction for this viewer (locked state, previews, signed URLs), in
 * the list's order; an item that stopped being visible in between is left out.
 */
async function loadItems<T>(rows: Array<{ objectId: string }>, load: (id: string) => Promise<T>): Promise<Map<string, T>> {
  const loaded = await Promise.all(
    rows.map((r) =>
      load(r.objectId).then(
        (item) => [r.objectId, item] as const,
        (err: unknown) => {
          if ((err as { statusCode?: number }).statusCode === 404) return null;
          throw err;
        },
      ),
    ),
  );
  return new Map(loaded.filter((x): x is readonly [string, T] => x !== null));
}

/**
 * One page of the user's reactions of `action` to videos or galleries, each with its item as this viewer gets it (an
 * item that stopped being visible in between is left out). `country`: the viewer's, so items of performers who block
 * it drop out (of the page and the total) as everywhere.
 */
async function listReacted<T>(
  ctx: Ctx,
  user: SessionUser,
  objectType: 'video' | 'gallery',
  get: (deps: CatalogueDeps, viewer: Viewer, key: string) => Promise<T>,
  action: ReactionAction,
  page: { limit: number; offset: number },
  country: string | null,
) {
  const { rows, total } = await listReactedContent(ctx.db, user.id, objectType, action, page, audienceOf(user, country));
  const deps = catalogueDeps(ctx, country);
  const viewer: Viewer = { id: user.id, role: user.role };
  const items = await loadItems<T>(rows, (id) => get(deps, viewer, id));
  return {
    items: rows.filter((r) => items.has(r.objectId)).map((r) => ({ reaction: { _id: r.id, action: r.action, createdAt: r.createdAt, objectId: r.objectId }, item: items.get(r.objectId)! })),
    total,
  };
}

export async function listReactedVideos(ctx: Ctx, user: SessionUser, action: ReactionAction, page: { limit: number; offset: number }, country: string | null): Promise<ListResult<ReactedVideo>> {
  const { items, total } = await listReacted(ctx, user, 'video', getVideo, action, page, country);
  return { items: items.map(({ reaction, item }) => extend(reaction, { video: item })), total };
}

export async function listReactedGalleries(ctx: Ctx, user: SessionUser, action: ReactionAction, page: { limit: number; offset: number }, country: string | null): Promise<ListResult<ReactedGallery>> {
  const { items, total } = await listReacted(ctx, user, 'gallery', getGallery, action, page, country);
  return { items: items.map(({ reaction, item }) => extend(reaction, { gallery: item })), total };
}

/** An object's like and favourite counts, as its discussion page shows them (0 when it has no counter). */
export async function reactionCounts(db: Db, objectType: EngagementObjectType, objectId: string): Promise<{ like: number; favourite: number }> {
  const [like, favourite] = await Promise.all([readCounter(db, objectType, objectId, 'like'), readCounter(db, objectType, objectId, 'favourite')]);
  return { like: like ?? 0, favourite: favourite ?? 0 };
}

/** A counter change to push once the transaction that made it committed. */
export interface ReactionCountChange {
  objectType: EngagementObjectType;
  objectId: string;
  action: ReactionAction;
  count: number;
}

/**
 * Removes every reaction of a user in the caller's transaction (an account deletion), each row with its counter as
 * `removeReaction` moves it. Answers the counts to push after the commit (`reaction/count`).
 */
export async function removeAllReactionsOf(trx: DbOrTrx, userId: string, rows: ReadonlyArray<{ objectType: string; objectId: string; action: ReactionAction }>): Promise<ReactionCountChange[]> {
  const changes: ReactionCountChange[] = [];
  for (const r of rows) {
    const objectType = r.objectType as EngagementObjectType;
    const deleted = await deleteReaction(trx, { userId, objectType, objectId: r.objectId, action: r.action });
    const counter = counterOf[r.action];
    if (!deleted || !counter) continue;
    const count = await adjustCounter(trx, objectType, r.objectId, counter, -1);
    changes.push({ objectType, objectId: r.objectId, action: r.action, count: count ?? 0 });
  }
  return changes;
}

export function pushReactionCounts(realtime: RealtimeEmitter, changes: readonly ReactionCountChange[]): void {
  for (const c of changes) realtime.emitToObject(c.objectType, c.objectId, 'reaction/count', c);
}
