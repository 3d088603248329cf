import type { DbOrTrx } from '../db/database.js';
import type { CategoryItem } from '../../common/schemas/catalogue.js';
import type { ListResult } from '../../common/schemas/http.js';
import { listCategories, type CategoryFilters } from './categories.repository.js';
import { toCategoryItem } from './categories.mapper.js';

export async function searchCategories(db: DbOrTrx, filters: CategoryFilters): Promise<ListResult<CategoryItem>> {
  const { rows, total, nextCursor } = await listCategories(db, filters);
  return { items: rows.map(toCategoryItem), total, nextCursor };
}
