import type { GalleryCardData, PostCardData, VideoCardData } from '../../common/schemas/catalogue.js';
import type { FeedItem } from '../../common/schemas/feed.js';

/**
 * A feed item as its card shows it (src/islands/Feed.tsx): who published it, when, and the catalogue card of its kind,
 * with the same `locked`, price and access. The server cuts its first page to these fields (only they are written into
 * the page's HTML); items the browser fetches later are cut the same way.
 */
export type FeedCard =
  | { kind: 'video'; _id: string; publishedAt: string; performer: FeedPerformer | null; card: VideoCardData }
  | { kind: 'gallery'; _id: string; publishedAt: string; performer: FeedPerformer | null; card: GalleryCardData }
  | { kind: 'post'; _id: string; publishedAt: string; performer: FeedPerformer | null; card: PostCardData };

/** A page of the feed cut to its cards. */
export interface FeedCardPage {
  items: FeedCard[];
  nextCursor: string | null;
}

export interface FeedPerformer {
  username: string;
  name: string;
  avatar: string;
}

const who = (p: { username: string; name: string; avatar: string } | null): FeedPerformer | null => (p ? { username: p.username, name: p.name, avatar: p.avatar } : null);

export function toFeedCard(item: FeedItem): FeedCard {
  const head = { _id: item._id, publishedAt: item.publishedAt };
  switch (item.kind) {
    case 'video': {
      const v = item.video;
      const card: VideoCardData = {
        _id: v._id, title: v.title, thumbnail: v.thumbnail, poster: v.poster, duration: v.duration, locked: v.locked, access: v.access, price: v.price,
        performer: v.performer ? { username: v.performer.username, name: v.performer.name } : null, stats: { views: v.stats.views },
      };
      return { kind: 'video', ...head, performer: who(v.performer), card };
    }
    case 'gallery': {
      const g = item.gallery;
      const card: GalleryCardData = {
        _id: g._id, title: g.title, cover: g.cover, photoCount: g.photoCount, locked: g.locked, access: g.access, price: g.price,
        performer: g.performer ? { username: g.performer.username, name: g.performer.name } : null,
      };
      return { kind: 'gallery', ...head, performer: who(g.performer), card };
    }
    case 'post': {
      const p = item.post;
      const card: PostCardData = {
        _id: p._id, title: p.title, image: p.image, excerpt: p.excerpt, publishedAt: p.publishedAt, createdAt: p.createdAt, locked: p.locked, access: p.access,
        price: p.price, imageCount: p.imageCount, hasVideo: p.hasVideo,
      };
      return { kind: 'post', ...head, performer: who(p.performer), card };
    }
  }
}

/** Where a locked item is unlocked: the performer's page for a subscription, the item's own page for a purchase. */
export function unlockLink(c: FeedCard): { href: string; label: 'subscribe' | 'buy' } | null {
  if (!c.card.locked) return null;
  if (c.card.access === 'sale') {
    const path = c.kind === 'video' ? `/videos/${c._id}` : c.kind === 'gallery' ? `/galleries/${c._id}#unlock` : `/posts/${c._id}`;
    return { href: path, label: 'buy' };
  }
  return c.performer ? { href: `/performers/${c.performer.username}`, label: 'subscribe' } : null;
}
