import type { CategoryItem } from '../../common/schemas/catalogue.js';
import type { CategoryGroup } from '../db/schema.js';

export function toCategoryItem(r: { id: string; name: string; slug: string; group: CategoryGroup; description: string | null; ordering: number }): CategoryItem {
  return { _id: r.id, name: r.name, slug: r.slug, group: r.group, description: r.description, ordering: r.ordering };
}
