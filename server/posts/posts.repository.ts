import type { SelectQueryBuilder } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { Database } from '../db/schema.js';
import type { Cursor } from '../http/pagination.js';
import { catalogueConditions, feedParts, oneByIdOrSlug, postIsPublic, runList, type Audience, type SortSpec } from '../catalogue/catalogue.repository.js';
import { listOrder, listQueries } from '../catalogue/search.repository.js';

export type PostSort = 'newest' | 'popular';

/** Backed by posts_type_status_published, posts_type_status_popular (and posts_performer_published). */
export const postSorts: Record<PostSort, SortSpec> = {
  newest: { column: 'posts.publishedAt', dir: 'desc', kind: 'string' },
  popular: { column: 'posts.likeCount', dir: 'desc', kind: 'number' },
};

export interface PostFilters {
  type: 'post' | 'page';
  q?: string;
  /** One performer's posts (their page's Posts tab). */
  performerId?: string;
  /**
   * `site`: only the site's own posts (the blog), never a performer's; `all` (default): both, e.g. for search. A
   * performerId narrows either to that performer.
   */
  scope?: 'site' | 'all';
  tag?: string;
  categoryId?: string;
  /** Unset: best match first when there is a keyword (search.repository.ts), else newest. */
  sort?: PostSort | 'relevance';
  limit: number;
  offset: number;
  cursor?: Cursor;
}

const cardColumns = [
  'posts.id', 'posts.slug', 'posts.type', 'posts.title', 'posts.excerpt', 'posts.imageFileId', 'posts.performerId', 'posts.publishedAt',
  'posts.createdAt', 'posts.likeCount', 'posts.commentCount', 'posts.favouriteCount', 'posts.access', 'posts.price', 'posts.status',
] as const;

/** The page and count queries of the public post list (exported for the EXPLAIN test). */
export function publicPostQueries(db: DbOrTrx, f: PostFilters, a: Audience) {
  const filter = (qb: SelectQueryBuilder<Database, 'posts', object>) => {
    let base = qb.where('posts.type', '=', f.type).where(postIsPublic(a));
    if (!f.performerId && f.scope === 'site') base = base.where('posts.performerId', 'is', null);
    return catalogueConditions('posts', 'post', f).reduce((q, c) => q.where(c), base);
  };
  const sort = listOrder(postSorts, f.sort, f.q, { fallback: 'newest', tie: 'newest' });
  return listQueries(db, 'post', filter, (qb) => qb.select(cardColumns), sort, f);
}

export function listPublicPosts(db: DbOrTrx, f: PostFilters, a: Audience) {
  return runList(publicPostQueries(db, f, a), f.limit);
}

/** A fan's feed's posts: the parts of its page of the newest public posts of the performers followed (see feedRows). */
export function feedPostQueries(db: DbOrTrx, a: Audience) {
  return feedParts<PostCardRow>({
    sort: postSorts.newest,
    objectType: 'post',
    keys: (performers) => db.selectFrom('posts').select(['posts.id', 'posts.publishedAt']).where('posts.type', '=', 'post').where(postIsPublic(a)).where('posts.performerId', 'in', performers),
    rows: (keys) => db.selectFrom(keys).innerJoin('posts', 'posts.id', 'page.id').select(cardColumns),
  });
}

export type PostCardRow = Awaited<ReturnType<typeof listPublicPosts>>['rows'][number];

/** A post or page by id or slug, whatever its status, with whether it is public to `a` now. */
export function findPostByKey(db: DbOrTrx, key: string, a: Audience) {
  const query = db
    .selectFrom('posts')
    .select(cardColumns)
    .select('posts.content')
    .select(postIsPublic(a).as('visible'));
  return oneByIdOrSlug(query, 'posts', key).executeTakeFirst();
}

export type PostDetailRow = NonNullable<Awaited<ReturnType<typeof findPostByKey>>>;

const mediaColumns = [
  'postMedia.id', 'postMedia.postId', 'postMedia.position', 'postMedia.kind', 'postMedia.fileId', 'postMedia.displayFileId', 'postMedia.previewFileId',
  'postMedia.thumbFileId', 'postMedia.processingStatus', 'postMedia.width', 'postMedia.height', 'postMedia.duration',
] as const;

function postMediaRows(db: DbOrTrx, postIds: readonly string[]) {
  return db.selectFrom('postMedia').select(mediaColumns).where('postMedia.postId', 'in', postIds).orderBy('postMedia.postId').orderBy('postMedia.position').orderBy('postMedia.id').execute();
}

export type PostMediaRow = Awaited<ReturnType<typeof postMediaRows>>[number];

/** The media of some posts by post, each post's in order (index post_media_post); a post without media is absent. */
export async function postMediaOf(db: DbOrTrx, postIds: readonly string[]): Promise<Map<string, PostMediaRow[]>> {
  const ids = [...new Set(postIds)];
  const byPost = new Map<string, PostMediaRow[]>();
  for (const m of ids.length ? await postMediaRows(db, ids) : []) {
    const list = byPost.get(m.postId);
    if (list) list.push(m);
    else byPost.set(m.postId, [m]);
  }
  return byPost;
}
