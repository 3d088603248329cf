import type { Viewer } from '../access/access.service.js';
import type { CatalogueDeps } from '../catalogue/catalogue.service.js';
import { encodeCursor, type Cursor } from '../http/pagination.js';
import { searchGalleries } from '../galleries/galleries.service.js';
import { searchPosts } from '../posts/posts.service.js';
import { searchVideos } from '../videos/videos.service.js';
import type { FeedItem } from '../../common/schemas/feed.js';
import type { ListResult } from '../../common/schemas/http.js';

/**
 * The feed (docs/product.md, Follows and the feed): the public posts, videos and galleries of the performers the user
 * follows or subscribes to, newest first, keyset paged by (published time, id).
 *
 * Each kind is read through its own catalogue list (`feedOf` narrows it to those performers), so an item carries
 * exactly what the catalogue gives this viewer: the same public rule (country blocks included), the same access
 * decision (`locked`) and the same URLs (a locked item names no full file). Ids are unique across tables, so one
 * cursor (the last item's published time and id) resumes all three lists; each gives at most a page, and the newest
 * `limit` of them are this page.
 */
export async function feedOf(deps: CatalogueDeps, viewer: NonNullable<Viewer>, q: { limit: number; cursor?: Cursor }): Promise<ListResult<FeedItem>> {
  const base = { feedOf: viewer.id, sort: 'newest' as const, limit: q.limit, offset: 0, cursor: q.cursor };
  const [videos, galleries, posts] = await Promise.all([
    searchVideos(deps, viewer, base),
    searchGalleries(deps, viewer, base),
    searchPosts(deps, viewer, { ...base, type: 'post' }),
  ]);
  // Public items always have a publication time (the public rules compare it with now).
  const all: FeedItem[] = [
    ...videos.items.map((video) => ({ kind: 'video' as const, _id: video._id, publishedAt: video.publishedAt!, video })),
    ...galleries.items.map((gallery) => ({ kind: 'gallery' as const, _id: gallery._id, publishedAt: gallery.publishedAt!, gallery })),
    ...posts.items.map((post) => ({ kind: 'post' as const, _id: post._id, publishedAt: post.publishedAt!, post })),
  ].sort((a, b) => (a.publishedAt === b.publishedAt ? cmp(b._id, a._id) : cmp(b.publishedAt, a.publishedAt)));
  const items = all.slice(0, q.limit);
  const more = all.length > q.limit || Boolean(videos.nextCursor || galleries.nextCursor || posts.nextCursor);
  const last = items.at(-1);
  return {
    items,
    total: videos.total + galleries.total + posts.total,
    nextCursor: last && items.length === q.limit && more ? encodeCursor({ v: last.publishedAt, id: last._id }) : null,
  };
}

/** Plain code-unit order, as both engines compare these ASCII columns (ISO times, ids). */
function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
