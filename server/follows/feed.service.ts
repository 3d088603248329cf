import { accessViewOfRows, type AccessSubject, type AccessView, type HeldColumns, type Viewer } from '../access/access.service.js';
import { audienceOf } from '../catalogue/audience.js';
import { feedRows } from '../catalogue/catalogue.repository.js';
import type { CatalogueDeps, ItemList } from '../catalogue/catalogue.service.js';
import { encodeCursor, type Cursor } from '../http/pagination.js';
import { galleryList } from '../galleries/galleries.service.js';
import { feedGalleryQueries } from '../galleries/galleries.repository.js';
import { postList } from '../posts/posts.service.js';
import { feedPostQueries } from '../posts/posts.repository.js';
import { videoList } from '../videos/videos.service.js';
import { feedVideoQueries } from '../videos/videos.repository.js';
import { feedPerformerIds } from './follows.repository.js';
import type { FeedItem, FeedPage } from '../../common/schemas/feed.js';

type Row = { id: string; publishedAt: string | null };

/**
 * The feed (docs/product.md, Follows and the feed): the public posts, videos and galleries of the performers the user
 * follows or subscribes to, newest first, keyset paged by (published time, id).
 *
 * Those performers are read once; each kind's page of their items is read as the catalogue's public rule gives it
 * to this viewer (country blocks included; `feedRows` in server/catalogue/catalogue.repository.ts says how it stays
 * flat with the catalogue's size), and its rows become items through the kind's catalogue list, so an item carries
 * exactly what the catalogue gives this viewer: the same access decision (`locked`) and the same URLs (a locked item
 * names no full file). Ids are unique across tables, so one cursor (the last item's published time and id) resumes
 * all three kinds; each gives at most a page of rows, the newest `limit` of them are this page, and only those become
 * items (performer cards, previews, access decisions, signed URLs); what the viewer holds of each comes with its row.
 * A feed page has no total: it would count every item of everyone the fan follows, on every page.
 */
export async function feedOf(deps: CatalogueDeps, viewer: NonNullable<Viewer>, q: { limit: number; cursor?: Cursor }): Promise<FeedPage> {
  const audience = audienceOf(viewer, deps.country);
  const performers = await feedPerformerIds(deps.db, viewer.id, audience.now);
  if (!performers.length) return { items: [], nextCursor: null };
  const [videos, galleries, posts] = await Promise.all([
    feedRows(deps.db, performers, feedVideoQueries, audience, q, viewer.id),
    feedRows(deps.db, performers, feedGalleryQueries, audience, q, viewer.id),
    feedRows(deps.db, performers, feedPostQueries, audience, q, viewer.id),
  ]);
  // Public items always have a publication time (the public rules compare it with now).
  const newest = (a: Row, b: Row) => (a.publishedAt === b.publishedAt ? cmp(b.id, a.id) : cmp(b.publishedAt!, a.publishedAt!));
  const all: Row[] = [...videos.rows, ...galleries.rows, ...posts.rows].sort(newest);
  const shown = new Set<Row>(all.slice(0, q.limit));
  const keep = <R extends Row>(rows: R[]) => rows.filter((r) => shown.has(r));
  const kept = { videos: keep(videos.rows), galleries: keep(galleries.rows), posts: keep(posts.rows) };
  // What the viewer holds of the items kept, read with their rows.
  const held = <R extends HeldColumns>(rows: R[], subject: (r: R) => AccessSubject) =>
    rows.map((r) => ({ heldSubscription: r.heldSubscription, heldPurchase: r.heldPurchase, subject: subject(r) }));
  const access = accessViewOfRows(
    viewer,
    [...held(kept.videos, videoList.subject), ...held(kept.galleries, galleryList.subject), ...held(kept.posts, postList.subject)],
    (r) => r.subject,
  );
  const [videoItems, galleryItems, postItems] = await Promise.all([
    itemsOf(deps, viewer, videoList, kept.videos, access),
    itemsOf(deps, viewer, galleryList, kept.galleries, access),
    itemsOf(deps, viewer, postList, kept.posts, access),
  ]);
  const byId = new Map<string, FeedItem>([
    ...videoItems.map((video) => [video._id, { kind: 'video' as const, _id: video._id, publishedAt: video.publishedAt!, video }] as const),
    ...galleryItems.map((gallery) => [gallery._id, { kind: 'gallery' as const, _id: gallery._id, publishedAt: gallery.publishedAt!, gallery }] as const),
    ...postItems.map((post) => [post._id, { kind: 'post' as const, _id: post._id, publishedAt: post.publishedAt!, post }] as const),
  ]);
  const items = [...shown].map((r) => byId.get(r.id)!);
  const more = all.length > q.limit || Boolean(videos.nextCursor || galleries.nextCursor || posts.nextCursor);
  const last = items.at(-1);
  return { items, nextCursor: last && items.length === q.limit && more ? encodeCursor({ v: last.publishedAt, id: last._id }) : null };
}

/** The items of the rows kept (none asked for none). */
function itemsOf<F, R, I>(deps: CatalogueDeps, viewer: Viewer, list: ItemList<F, R, I>, rows: R[], access: AccessView): Promise<I[]> {
  return rows.length ? list.items(deps, viewer, rows, access) : Promise.resolve([]);
}

/** Plain code-unit order, as both engines compare these ASCII columns (ISO times, ids). */
function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
