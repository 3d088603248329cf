import type { Selectable, SelectQueryBuilder } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { Database, PerformersTable } from '../db/schema.js';
import { nowIso } from '../db/ids.js';
import { prepared } from '../db/prepared.js';
import { subscribesQuery } from '../access/access.repository.js';
import { followQuery } from '../follows/follows.repository.js';
import { blockQuery } from '../blocks/blocks.repository.js';
import { conversationOfQuery, performerWroteQuery, type FanConversationFacts } from '../messages/messages.repository.js';
import { runningPromotionsQuery } from '../coupons/coupons.repository.js';
import { publicMediaUrl } from '../media/storage.js';
import type { PerformerCard } from '../../common/schemas/catalogue.js';
import { DEFAULT_AVATAR } from '../../common/avatar.js';
import type { Cursor } from '../http/pagination.js';
import { idElseAlt, performerIsPublic, performerOpenTo, runList, type Audience, type SortSpec } from '../catalogue/catalogue.repository.js';
import { audienceValues } from '../catalogue/audience.js';
import { listOrder, listQueries } from '../catalogue/search.repository.js';

export type PerformerSort = 'newest' | 'popular' | 'price';

export interface PerformerQuery {
  q?: string;
  categoryId?: string;
  featured?: boolean;
  /** Whom the list is for: performers blocking the visitor's country are left out (catalogue.repository.ts). */
  audience: Audience;
  /** Unset: best match first when there is a keyword (search.repository.ts; ties: most subscribers), else newest. */
  sort?: PerformerSort | 'relevance';
  limit: number;
  offset: number;
  cursor?: Cursor;
}

/** The directory's conditions but the keyword, on a query of performers. */
function filtered(qb: SelectQueryBuilder<Database, 'performers', object>, q: PerformerQuery) {
  // Only active, approved performers are listed (registration creates approved = 0).
  let query = qb.where('performers.status', '=', 'active').where('performers.approved', '=', 1);
  if (q.audience.country) query = query.where(performerOpenTo('performers.id', q.audience));
  if (q.featured) query = query.where('performers.featured', '=', 1);
  if (q.categoryId) {
    const categoryId = q.categoryId;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('contentCategories')
          .select('contentCategories.objectId')
          .whereRef('contentCategories.objectId', '=', 'performers.id')
          .where('contentCategories.objectType', '=', 'performer')
          .where('contentCategories.categoryId', '=', categoryId),
      ),
    );
  }
  return query;
}

/** Backed by performers_status_created, performers_status_popular, performers_status_price. */
const sortSpecs: Record<PerformerSort, SortSpec> = {
  newest: { column: 'performers.createdAt', dir: 'desc', kind: 'string' },
  popular: { column: 'performers.subscriberCount', dir: 'desc', kind: 'number' },
  price: { column: 'performers.monthlyPrice', dir: 'asc', kind: 'number' },
};

/** The page and count queries of the performer directory (exported for the EXPLAIN test). */
export function performerListQueries(db: DbOrTrx, q: PerformerQuery) {
  const sort = listOrder(sortSpecs, q.sort, q.q, { fallback: 'newest', tie: 'popular' });
  const filter = (qb: SelectQueryBuilder<Database, 'performers', object>) => filtered(qb, q);
  const select = (qb: SelectQueryBuilder<Database, 'performers', object>) =>
    qb.innerJoin('users', 'users.id', 'performers.id').select([
      'performers.id', 'performers.username', 'performers.displayName', 'performers.bio', 'performers.monthlyPrice',
      'performers.yearlyPrice', 'performers.subscriberCount', 'performers.videoCount', 'performers.featured',
      'performers.createdAt', 'users.avatarPath', 'users.coverPath',
    ]);
  return listQueries(db, 'performer', filter, select, sort, q);
}

export async function searchPerformers(db: DbOrTrx, q: PerformerQuery): Promise<{ items: PerformerCard[]; total: number; nextCursor: string | null }> {
  const { rows, total, nextCursor } = await runList(performerListQueries(db, q), q.limit);
  return { items: rows.map(toCard), total, nextCursor };
}

/** A performer by id or username, whatever the status, with the profile page's fields and whether it is public to `a`. */
export function findPerformerByKey(db: DbOrTrx, key: string, a: Audience) {
  return performerByKeyQuery(db, key, key.toLowerCase(), a).executeTakeFirst();
}

function performerByKeyQuery(db: DbOrTrx, key: string, lowerKey: string, a: Audience) {
  return db
    .selectFrom('performers')
    .innerJoin('users', 'users.id', 'performers.id')
    .selectAll('performers')
    .select(['users.avatarPath', 'users.coverPath'])
    .select(performerIsPublic(a).as('visible'))
    .where(idElseAlt('performers', 'username', key, lowerKey))
    .limit(1);
}

/**
 * findPerformerByKey for a signed-in visitor, with what their page shows of their own relation to the performer beside
 * the row: their live subscription, their follow, what the Message button decides from (their conversation, whether
 * the performer blocked them and has written in it), and whether the performer runs a promotion (else the offer
 * reads none). Each fact is its module's own query, correlated to the row: one statement where there were up to
 * seven round trips on every signed-in performer page, compiled once.
 */
export async function findPerformerForViewer(db: DbOrTrx, key: string, a: Audience, userId: string) {
  const [row] = await performerForViewer(db, { key, lowerKey: key.toLowerCase(), ...audienceValues(a), userId });
  if (!row) return undefined;
  const { subscribed, following, conversationId, blocked, performerWrote, promotionsRunning, ...performer } = row;
  const facts: PerformerViewerFacts = {
    subscribed: Boolean(subscribed),
    following: Boolean(following),
    conversation: { id: conversationId ?? null, blocked: Boolean(blocked), performerWrote: Boolean(performerWrote) },
    promotionsRunning: Boolean(promotionsRunning),
  };
  return { ...performer, facts };
}

export type PerformerViewerFacts = { subscribed: boolean; following: boolean; conversation: FanConversationFacts; promotionsRunning: boolean };

type ForViewer = Audience & { key: string; lowerKey: string; userId: string };

const performerForViewer = prepared(['key', 'lowerKey', 'now', 'country', 'selfId', 'userId'], (db, v: ForViewer) => performerForViewerQuery(db, v));

/** The statement of findPerformerForViewer (exported for the EXPLAIN test). */
export function performerForViewerQuery(db: DbOrTrx, v: ForViewer) {
  const { userId, now } = v;
  return performerByKeyQuery(db, v.key, v.lowerKey, v).select((eb) => {
    const performerId = eb.ref('performers.id');
    return [
      eb.exists(subscribesQuery(db, userId, performerId, now)).as('subscribed'),
      eb.exists(followQuery(db, userId, performerId)).as('following'),
      conversationOfQuery(db, userId, performerId).as('conversationId'),
      eb.exists(blockQuery(db, performerId, userId)).as('blocked'),
      eb.exists(performerWroteQuery(db, userId, performerId)).as('performerWrote'),
      eb.exists(runningPromotionsQuery(db, performerId, now).select('coupons.id')).as('promotionsRunning'),
    ];
  });
}

/** Tags of an object, alphabetically (content_tags_object). */
export async function tagsOf(db: DbOrTrx, objectType: 'performer', objectId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('contentTags')
    .select('tag')
    .where('objectType', '=', objectType)
    .where('objectId', '=', objectId)
    .orderBy('tag')
    .execute();
  return rows.map((r) => r.tag);
}

export function toCard(r: {
  id: string; username: string; displayName: string; bio: string | null; monthlyPrice: number; yearlyPrice: number;
  subscriberCount: number; videoCount: number; featured: number; avatarPath: string | null; coverPath: string | null;
}): PerformerCard {
  return {
    _id: r.id,
    username: r.username,
    name: r.displayName,
    bio: r.bio,
    avatar: publicMediaUrl(r.avatarPath) ?? DEFAULT_AVATAR,
    cover: publicMediaUrl(r.coverPath),
    monthlyPrice: r.monthlyPrice,
    yearlyPrice: r.yearlyPrice,
    subscriberCount: r.subscriberCount,
    videoCount: r.videoCount,
    isFeatured: r.featured === 1,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// What the admin console and the settlement read and change of a performer row.

/** A performer's name and handle, or undefined when there is no such performer. */
export function findPerformerName(db: DbOrTrx, id: string) {
  return db.selectFrom('performers').select(['id', 'username', 'displayName']).where('id', '=', id).executeTakeFirst();
}

/** A performer's own commission rate (null: the site's), or undefined when there is no such performer. */
export function findCommissionRate(db: DbOrTrx, id: string) {
  return db.selectFrom('performers').select('commissionBps').where('id', '=', id).executeTakeFirst();
}

export async function setCommissionRate(db: DbOrTrx, id: string, commissionBps: number | null): Promise<void> {
  await db.updateTable('performers').set({ commissionBps, updatedAt: nowIso() }).where('id', '=', id).execute();
}

/** The own commission rates of some performers (null: the site's), by id. */
export async function commissionRatesOf(db: DbOrTrx, ids: string[]): Promise<Map<string, number | null>> {
  const rows = await db.selectFrom('performers').select(['id', 'commissionBps']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.commissionBps]));
}

/** Approves a performer or withdraws the approval; false when there is no such performer. */
export async function setPerformerApproved(db: DbOrTrx, id: string, approved: boolean): Promise<boolean> {
  const res = await db.updateTable('performers').set({ approved: approved ? 1 : 0, updatedAt: nowIso() }).where('id', '=', id).executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

type PerformerStatus = Selectable<PerformersTable>['status'];

/** Sets a performer's status; with `from`, only when the performer has that status now. */
export async function setPerformerStatus(db: DbOrTrx, id: string, status: PerformerStatus, from?: PerformerStatus): Promise<void> {
  let q = db.updateTable('performers').set({ status, updatedAt: nowIso() }).where('id', '=', id);
  if (from) q = q.where('status', '=', from);
  await q.execute();
}
