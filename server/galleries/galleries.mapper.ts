import type { AccessDecision } from '../access/access.service.js';
import { parseTags } from '../catalogue/catalogue.repository.js';
import type { GalleryItem, PerformerSummary } from '../../common/schemas/catalogue.js';
import type { GalleryRow } from './galleries.repository.js';

export function toGalleryItem(r: GalleryRow, x: { performer: PerformerSummary | undefined; cover: string | null; decision: AccessDecision }): GalleryItem {
  return {
    _id: r.id,
    slug: r.slug,
    title: r.title,
    description: r.description,
    performerId: r.performerId,
    performer: x.performer ?? null,
    access: r.access,
    isSale: r.isSale === 1,
    price: r.price,
    locked: !x.decision.open,
    cover: x.cover,
    photoCount: r.photoCount,
    tags: parseTags(r.tags),
    status: r.status,
    publishedAt: r.publishedAt,
    createdAt: r.createdAt,
    stats: { views: r.viewCount, likes: r.likeCount, favourites: r.favouriteCount, comments: r.commentCount },
  };
}
