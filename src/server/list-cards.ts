import type {
  GalleryCardData, GalleryItem, PerformerCard, PerformerCardData, PhotoCardData, PhotoItem, PostCard, PostCardData, ProductCardData, ProductItem,
  VideoCardData, VideoItem,
} from '../../common/schemas/catalogue.js';
import type { ListResult } from '../../common/schemas/http.js';
import type { FeedPage } from '../../common/schemas/feed.js';
import { toFeedCard, type FeedCardPage } from '../lib/feed-cards.js';
import type { AnyCard, ListKind } from '../islands/LoadMoreList.tsx';

type AnyItem = VideoItem | GalleryItem | ProductItem | PhotoItem | PostCard | PerformerCard;

function pick<T, K extends keyof T>(item: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) out[k] = item[k];
  return out;
}

const performerOf = (p: VideoItem['performer']) => (p ? { username: p.username, name: p.name } : null);

const photoCard = (p: PhotoItem): PhotoCardData => pick(p, ['_id', 'title', 'thumbnail', 'locked', 'access', 'price', 'photo', 'galleryId']);

const project: Record<ListKind, (item: never) => AnyCard> = {
  videos: (v: VideoItem): VideoCardData => ({
    ...pick(v, ['_id', 'title', 'thumbnail', 'poster', 'duration', 'locked', 'access', 'price']),
    performer: performerOf(v.performer),
    stats: { views: v.stats.views },
  }),
  galleries: (g: GalleryItem): GalleryCardData => ({ ...pick(g, ['_id', 'title', 'cover', 'photoCount', 'locked', 'access', 'price']), performer: performerOf(g.performer) }),
  products: (p: ProductItem): ProductCardData => pick(p, ['_id', 'name', 'image', 'type', 'price', 'stock']),
  photos: photoCard,
  galleryPhotos: photoCard,
  posts: (p: PostCard): PostCardData => pick(p, ['_id', 'title', 'image', 'excerpt', 'publishedAt', 'createdAt', 'locked', 'access', 'price', 'imageCount', 'hasVideo']),
  performers: (p: PerformerCard): PerformerCardData => pick(p, ['_id', 'username', 'name', 'avatar', 'cover', 'videoCount', 'monthlyPrice']),
};

/**
 * The first page of a hydrated list island (LoadMoreList), cut to what its cards show: Astro serialises an
 * island's props into the page, so full items made the home page's list alone 21 KB of HTML and a sizeable part
 * of each render. Total and cursor are kept.
 */
export function cardPage(kind: ListKind, page: ListResult<AnyItem>): ListResult<AnyCard> {
  const toCard = project[kind] as (item: AnyItem) => AnyCard;
  return { items: page.items.map(toCard), total: page.total, nextCursor: page.nextCursor ?? null };
}

/** The feed's first page for the Feed island, cut to its cards' fields (src/lib/feed-cards.ts) like the lists above. */
export function feedCardPage(page: FeedPage): FeedCardPage {
  return { items: page.items.map(toFeedCard), nextCursor: page.nextCursor };
}
