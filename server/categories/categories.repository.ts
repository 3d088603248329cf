import type { DbOrTrx } from '../db/database.js';
import type { CategoryGroup } from '../db/schema.js';
import type { Cursor } from '../http/pagination.js';
import { checkCursor, countQuery, matches, page, runList, type SortSpec } from '../catalogue/catalogue.repository.js';

export type CategorySort = 'ordering' | 'name';

/** Active categories, by group when given: categories_group_status_ordering, else categories_status_ordering. */
export const categorySorts: Record<CategorySort, SortSpec> = {
  ordering: { column: 'categories.ordering', dir: 'asc', kind: 'number' },
  name: { column: 'categories.name', dir: 'asc', kind: 'string' },
};

export interface CategoryFilters {
  group?: CategoryGroup;
  q?: string;
  sort: CategorySort;
  limit: number;
  offset: number;
  cursor?: Cursor;
}

const categoryColumns = ['categories.id', 'categories.name', 'categories.slug', 'categories.group', 'categories.description', 'categories.ordering'] as const;

/** The page and count queries of the category list (exported for the EXPLAIN test). */
export function categoryQueries(db: DbOrTrx, f: CategoryFilters) {
  let base = db.selectFrom('categories').where('categories.status', '=', 'active');
  if (f.group) base = base.where('categories.group', '=', f.group);
  if (f.q) base = base.where(matches('categories.name', f.q));
  const sort = categorySorts[f.sort];
  return { page: page(base.select(categoryColumns), sort, 'categories.id', { ...f, cursor: checkCursor(f.cursor, sort) }), count: countQuery(base), sort };
}

export function listCategories(db: DbOrTrx, f: CategoryFilters) {
  return runList(categoryQueries(db, f), f.limit);
}

/** Categories linked to an object (the performer profile), in their display order. */
export function categoriesOf(db: DbOrTrx, objectType: 'performer', objectId: string) {
  return db
    .selectFrom('contentCategories')
    .innerJoin('categories', 'categories.id', 'contentCategories.categoryId')
    .select(['categories.id', 'categories.name', 'categories.slug'])
    .where('contentCategories.objectType', '=', objectType)
    .where('contentCategories.objectId', '=', objectId)
    .where('categories.status', '=', 'active')
    .orderBy('categories.ordering')
    .orderBy('categories.id')
    .execute();
}

/** Takes a category off every item it was given to (before the category itself is deleted). */
export async function unlinkCategory(db: DbOrTrx, categoryId: string): Promise<void> {
  await db.deleteFrom('contentCategories').where('categoryId', '=', categoryId).execute();
}
