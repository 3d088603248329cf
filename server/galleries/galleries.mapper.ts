import type { AccessDecision } from '../access/access.service.js';
import { extend, itemStats, sellableItemHead } from '../catalogue/item-mapper.js';
import { parseTags } from '../catalogue/catalogue.repository.js';
import type { GalleryItem, PerformerSummary } from '../../common/schemas/catalogue.js';
import type { GalleryRow } from './galleries.repository.js';

export function toGalleryItem(r: GalleryRow, x: { performer: PerformerSummary | undefined; cover: string | null; decision: AccessDecision }): GalleryItem {
  return extend(sellableItemHead(r, x.performer, x.decision), {
    cover: x.cover,
    photoCount: r.photoCount,
    tags: parseTags(r.tags),
    status: r.status,
    publishedAt: r.publishedAt,
    createdAt: r.createdAt,
    stats: itemStats(r),
  });
}
