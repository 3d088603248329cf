import { sql, type SelectQueryBuilder } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { publicMediaUrl } from '../media/storage.js';
import { DEFAULT_AVATAR, type PerformerCard } from '../../common/api-types.js';
import type { Cursor } from '../http/pagination.js';
import { checkCursor, countQuery, page, performerIsPublic, performerOpenTo, runList, type Audience, type SortSpec } from '../catalogue/catalogue.repository.js';
import { keywordListQueries, listOrder } from '../catalogue/search.repository.js';

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
  if (q.q) return keywordListQueries(db, 'performer', q.q, filter, select, sort, q);
  const base = filter(db.selectFrom('performers'));
  return { page: page(select(base), sort, 'performers.id', { ...q, cursor: checkCursor(q.cursor, sort) }), count: countQuery(base), sort };
}

export async function searchPerformers(db: DbOrTrx, q: PerformerQuery): Promise<{ items: PerformerCard[]; total: number; nextCursor: string | null }> {
  const { rows, total, nextCursor } = await runList(performerListQueries(db, q), q.limit);
  return { items: rows.map(toCard), total, nextCursor };
}

/** A performer by id or username, whatever the status, with the profile page's fields and whether it is public to `a`. */
export function findPerformerByKey(db: DbOrTrx, key: string, a: Audience) {
  return db
    .selectFrom('performers')
    .innerJoin('users', 'users.id', 'performers.id')
    .selectAll('performers')
    .select(['users.avatarPath', 'users.coverPath'])
    .select(performerIsPublic(a).as('visible'))
    .where((eb) => eb.or([eb('performers.id', '=', key), eb('performers.username', '=', key.toLowerCase())]))
    .orderBy(sql`case when ${sql.ref('performers.id')} = ${key} then 0 else 1 end`)
    .limit(1)
    .executeTakeFirst();
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
