import { sql, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { Cursor } from '../http/pagination.js';
import { checkCursor, countQuery, isSqlite, likePattern, likeTest, page, type SortSpec } from './catalogue.repository.js';

/**
 * Keyword search: THE definition of what a keyword matches for each searchable kind, how matches rank, and how a
 * keyword list is paged, used by every list's `q` filter (performers, videos, galleries, products, posts) and by the
 * search page's counts (server/search/search.service.ts counts with the lists' own count queries).
 *
 * A keyword matches an item when it is a case-insensitive substring (LIKE wildcards in it taken literally) of
 *   1. its name: a performer's display name or username; a video's, gallery's or post's title; a product's name;
 *   2. one of its tags, or the name of one of its active categories;
 *   3. its description: a performer's bio; a video's, gallery's or product's description; a post's excerpt (the
 *      teaser everyone sees; a post's text is what is sold, and is not searched).
 * The number of the first field group that matches is the item's rank (0, 1, 2): without an explicit sort a keyword
 * list is ordered by rank, then by the kind's usual order (newest; performers: most subscribers), then id.
 *
 * The LIKE tests are the truth. An index finds candidates first (migration 0014: one search document per item, holding
 * all those fields; FTS5 trigram on SQLite, pg_trgm on PostgreSQL), a superset of the matches, so the index can make
 * search faster but never changes its answer. Keywords under three characters have no trigram: they are tested
 * without the index.
 */

export type SearchKind = 'performer' | 'video' | 'gallery' | 'product' | 'post';

interface Searchable {
  table: string;
  /** The item's id column. */
  id: string;
  /** Name columns: a match here ranks first. */
  names: string[];
  /** Description columns: a match here ranks last. Tags and categories (content_tags, content_categories) rank between. */
  texts: string[];
}

/** Keep in step with `kinds` in server/db/migrations/0014_search_documents.ts (the documents the index holds). */
export const searchables: Record<SearchKind, Searchable> = {
  performer: { table: 'performers', id: 'performers.id', names: ['performers.displayName', 'performers.username'], texts: ['performers.bio'] },
  video: { table: 'videos', id: 'videos.id', names: ['videos.title'], texts: ['videos.description'] },
  gallery: { table: 'galleries', id: 'galleries.id', names: ['galleries.title'], texts: ['galleries.description'] },
  product: { table: 'products', id: 'products.id', names: ['products.name'], texts: ['products.description'] },
  post: { table: 'posts', id: 'posts.id', names: ['posts.title'], texts: ['posts.excerpt'] },
};

const anyOf = (tests: Array<RawBuilder<SqlBool>>) => sql<SqlBool>`(${sql.join(tests, sql` or `)})`;

function nameTest(kind: SearchKind, pattern: string): RawBuilder<SqlBool> {
  return anyOf(searchables[kind].names.map((c) => likeTest(c, pattern)));
}

/** A tag, or the name of an active category (index probes: content_tags_object, content_categories_object). */
function labelTest(kind: SearchKind, pattern: string): RawBuilder<SqlBool> {
  const id = sql.ref(searchables[kind].id);
  return sql<SqlBool>`(exists (select 1 from content_tags kt where kt.object_type = ${kind} and kt.object_id = ${id} and lower(kt.tag) like ${pattern} escape '\\')
    or exists (select 1 from content_categories kc join categories kcn on kcn.id = kc.category_id where kc.object_type = ${kind} and kc.object_id = ${id} and kcn.status = 'active' and lower(kcn.name) like ${pattern} escape '\\'))`;
}

function textTest(kind: SearchKind, pattern: string): RawBuilder<SqlBool> {
  return anyOf(searchables[kind].texts.map((c) => likeTest(c, pattern)));
}

/** The exact test: the keyword is in the item's name, tags, categories or description. */
export function keywordMatch(kind: SearchKind, q: string): RawBuilder<SqlBool> {
  const p = likePattern(q);
  return anyOf([nameTest(kind, p), labelTest(kind, p), textTest(kind, p)]);
}

/** The item's rank for the keyword: 0 name, 1 tag or category, 2 description (only asked of matching rows). */
export function keywordRank(kind: SearchKind, q: string): RawBuilder<number> {
  const p = likePattern(q);
  return sql<number>`(case when ${nameTest(kind, p)} then 0 when ${labelTest(kind, p)} then 1 else 2 end)`;
}

/**
 * The ids of the items whose search document may contain the keyword (migration 0014), a superset of `keywordMatch`,
 * as a subquery of one column `object_id`; null when the index cannot help (under three characters: no trigram).
 *  - SQLite: the FTS5 trigram index folds case at least as widely as lower() and LIKE.
 *  - PostgreSQL: the same LIKE on lower(document), which the pg_trgm index serves (when the extension was
 *    available; without it this is a scan of the documents, and search still answers right).
 */
function candidateIds(db: DbOrTrx, kind: SearchKind, q: string): RawBuilder<{ object_id: string }> | null {
  if ([...q].length < 3) return null;
  if (isSqlite(db)) {
    const phrase = `"${q.replaceAll('"', '""')}"`;
    return sql`(select sk.object_id from search_fts sf join search_keys sk on sk.n = sf.rowid where search_fts match ${phrase} and sk.object_type = ${kind})`;
  }
  // No condition on object_type: ids are unique across the catalogue's tables, and the join to the kind's table by
  // primary key keeps its own; with one, the planner may read every document of the kind instead of the trigram index.
  return sql`(select sd.object_id from search_documents sd where lower(sd.document) like ${likePattern(q)} escape '\\')`;
}

/** `id in (candidates)`: the index as a condition (null: it cannot help). */
export function keywordCandidates(db: DbOrTrx, kind: SearchKind, q: string): RawBuilder<SqlBool> | null {
  const ids = candidateIds(db, kind, q);
  return ids && sql<SqlBool>`${sql.ref(searchables[kind].id)} in ${ids}`;
}

/** The `q` filter of a list as a condition (where the list is driven by another index, e.g. a tag's rows): candidates, then the exact test. */
export function keywordFilter(db: DbOrTrx, kind: SearchKind, q: string): RawBuilder<SqlBool> {
  const candidates = keywordCandidates(db, kind, q);
  return candidates ? sql<SqlBool>`(${candidates} and ${keywordMatch(kind, q)})` : keywordMatch(kind, q);
}

/**
 * The order a list is asked for: `asked` (one of `sorts`, or 'relevance'), or when none is asked, relevance if there is
 * a keyword and `fallback` if not. Relevance ranks by `keywordRank`, then by `tie` (the kind's usual order), then id;
 * without a keyword it is simply `tie`.
 */
export function listOrder<S extends string>(sorts: Record<S, SortSpec>, asked: S | 'relevance' | undefined, q: string | undefined, o: { fallback: S; tie: S }): SortSpec {
  if (asked === 'relevance' || (asked === undefined && q)) return q ? { ...sorts[o.tie], relevance: true } : sorts[o.tie];
  return sorts[asked ?? o.fallback];
}

/**
 * How far a keyword list walks its order's index looking for a page (see `keywordListQueries`). A common word fills a
 * page within a few dozen rows; past this the candidates from the index answer.
 */
export const KEYWORD_WALK = 2000;

/**
 * The page and count queries of a list filtered by a keyword, in `sort` (relevance or a named order).
 *
 * `page` and `count` start from the candidates the index gives and read each one's row by primary key (a CROSS JOIN,
 * which SQLite never reorders: without statistics it would rather walk the list's status index and probe the index
 * per row, reading every public item), keep the exact matches and, for the page, sort them: their cost follows the
 * number of candidates, small for a rare word. For a common word, `walk` finds the same page in a bounded walk of the
 * order's own index from the cursor (KEYWORD_WALK rows): in a named order it keeps the matches; in relevance order it
 * keeps the name matches (rank 0, which come first, in the tie order), so it applies only while the page is within
 * rank 0. A walk that finds a full page found exactly the page; otherwise `page` answers (runList).
 *
 * `filter` adds the list's conditions but the keyword to a query of the kind's table; `select` adds its columns (and
 * joins). Rows of a relevance order carry `searchRank` (the cursor's rank).
 */
export function keywordListQueries<DB, TB extends keyof DB, TS extends keyof DB, O>(
  db: DbOrTrx,
  kind: SearchKind,
  q: string,
  filter: (qb: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, object>,
  /** Adds the list's columns (and joins, as the performer list's users). */
  select: (qb: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TS, O>,
  sort: SortSpec,
  p: { limit: number; offset: number; cursor?: Cursor },
) {
  const { table, id: idColumn } = searchables[kind];
  const untyped = db as unknown as { selectFrom(from: unknown): SelectQueryBuilder<any, any, object> };
  const ids = candidateIds(db, kind, q);
  const from = (ids ? untyped.selectFrom(ids.as('kw')).crossJoin(table).where(sql<SqlBool>`${sql.ref(idColumn)} = kw.object_id`) : untyped.selectFrom(table)) as SelectQueryBuilder<DB, TB, object>;
  const cursor = checkCursor(p.cursor, sort);
  const matched = filter(from).where(keywordMatch(kind, q));
  const rank = sort.relevance ? keywordRank(kind, q) : undefined;
  const rows = rank ? select(matched).select(rank.as('searchRank') as never) : select(matched);
  const tieOrder: SortSpec = { ...sort, relevance: false };
  const walkable = (!rank || !cursor || cursor.r === 0) && (cursor ? 0 : p.offset) + p.limit <= KEYWORD_WALK;
  // The walked rows keep the list's table name, so the tests below refer to the same columns.
  const walked = page(select(filter(untyped.selectFrom(table) as SelectQueryBuilder<DB, TB, object>)), tieOrder, idColumn, {
    limit: KEYWORD_WALK, offset: 0, cursor: cursor && { v: cursor.v, id: cursor.id },
  });
  const walk = walkable
    ? untyped
        .selectFrom(walked.as(table))
        .selectAll()
        .$if(Boolean(rank), (qb) => qb.select(sql<number>`0`.as('searchRank')))
        .where(rank ? nameTest(kind, likePattern(q)) : keywordMatch(kind, q))
        .orderBy(sql.ref(sort.column), sort.dir)
        .orderBy(sql.ref(idColumn), sort.dir)
        .limit(p.limit)
        .offset(cursor ? 0 : p.offset)
    : undefined;
  return {
    page: page(rows as SelectQueryBuilder<DB, TS, O>, sort, idColumn, { ...p, cursor }, rank),
    count: countQuery(matched),
    sort,
    walk: walk as { execute(): Promise<O[]> } | undefined,
  };
}

/**
 * The page and count queries of a content list (videos, galleries, products, posts, performers): by keyword when
 * there is one (keywordListQueries), else the `filter`ed rows of the kind's table in `sort`. `filter` and `select` as
 * for keywordListQueries.
 */
export function listQueries<DB, TB extends keyof DB, TS extends keyof DB, O>(
  db: DbOrTrx,
  kind: SearchKind,
  filter: (qb: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, object>,
  select: (qb: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TS, O>,
  sort: SortSpec,
  p: { q?: string | undefined; limit: number; offset: number; cursor?: Cursor | undefined },
) {
  if (p.q) return keywordListQueries(db, kind, p.q, filter, select, sort, p);
  const { table, id: idColumn } = searchables[kind];
  const base = filter((db as unknown as { selectFrom(from: unknown): SelectQueryBuilder<DB, TB, object> }).selectFrom(table));
  return { page: page(select(base), sort, idColumn, { ...p, cursor: checkCursor(p.cursor, sort) }), count: countQuery(base), sort };
}
