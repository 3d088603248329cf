import type { AccessDecision } from '../access/access.service.js';
import { itemStats } from '../catalogue/item-mapper.js';
import { parseTags, previewUrl, type MediaFile } from '../catalogue/catalogue.repository.js';
import type { PerformerSummary, ProductItem } from '../../common/schemas/catalogue.js';
import type { ProductRow } from './products.repository.js';

export function toProductItem(r: ProductRow, x: { performer: PerformerSummary | undefined; image: MediaFile | undefined; decision: AccessDecision }): ProductItem {
  return {
    _id: r.id,
    slug: r.slug,
    name: r.name,
    description: r.description,
    performerId: r.performerId,
    performer: x.performer ?? null,
    type: r.type,
    price: r.price,
    stock: r.stock,
    image: previewUrl(x.image),
    locked: !x.decision.open,
    tags: parseTags(r.tags),
    status: r.status,
    publishedAt: r.publishedAt,
    createdAt: r.createdAt,
    stats: itemStats(r),
  };
}
