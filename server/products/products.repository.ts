import type { SelectQueryBuilder } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { ContentStatus, Database } from '../db/schema.js';
import type { Cursor } from '../http/pagination.js';
import { catalogueConditions, oneByIdOrSlug, productIsPublic, runList, type Audience, type SortSpec } from '../catalogue/catalogue.repository.js';
import { listOrder, listQueries } from '../catalogue/search.repository.js';
import type { ProductType } from '../../common/enums.js';

export type ProductSort = 'newest' | 'popular' | 'price';

/** Public lists: products_status_published, products_status_popular, products_status_price (and products_performer_published). */
export const productSorts: Record<ProductSort, SortSpec> = {
  newest: { column: 'products.publishedAt', dir: 'desc', kind: 'string' },
  popular: { column: 'products.viewCount', dir: 'desc', kind: 'number' },
  price: { column: 'products.price', dir: 'asc', kind: 'number' },
};

/** The studio lists drafts too, which may have no publication date: newest means newest created (products_performer_created). */
export const ownProductSorts: Record<ProductSort, SortSpec> = { ...productSorts, newest: { column: 'products.createdAt', dir: 'desc', kind: 'string' } };

export interface ProductFilters {
  q?: string;
  performerId?: string;
  tag?: string;
  categoryId?: string;
  type?: ProductType;
  /** Unset: best match first when there is a keyword (search.repository.ts), else newest. */
  sort?: ProductSort | 'relevance';
  limit: number;
  offset: number;
  cursor?: Cursor;
}

const productColumns = [
  'products.id', 'products.slug', 'products.name', 'products.description', 'products.performerId', 'products.type', 'products.price',
  'products.stock', 'products.imageFileId', 'products.digitalFileId', 'products.tags', 'products.status', 'products.publishedAt',
  'products.createdAt', 'products.viewCount', 'products.likeCount', 'products.favouriteCount', 'products.commentCount',
] as const;

/** The list's conditions but the keyword, on a query of products. */
type ProductQuery = SelectQueryBuilder<Database, 'products', object>;
function filtered(qb: ProductQuery, f: ProductFilters): ProductQuery {
  const base = f.type ? qb.where('products.type', '=', f.type) : qb;
  return catalogueConditions('products', 'product', f).reduce((q, c) => q.where(c), base);
}

function productQueries(db: DbOrTrx, filter: (qb: ProductQuery) => ProductQuery, sorts: Record<ProductSort, SortSpec>, f: Omit<ProductFilters, 'performerId'>) {
  const sort = listOrder(sorts, f.sort, f.q, { fallback: 'newest', tie: 'newest' });
  return listQueries(db, 'product', filter, (qb) => qb.select(productColumns), sort, f);
}

/** The page and count queries of the public product list (exported for the EXPLAIN test). */
export function publicProductQueries(db: DbOrTrx, f: ProductFilters, a: Audience) {
  return productQueries(db, (qb) => filtered(qb, f).where(productIsPublic(a)), productSorts, f);
}

/** The page and count queries of a performer's own products, every state (exported for the EXPLAIN test). */
export function ownProductQueries(db: DbOrTrx, performerId: string, f: Omit<ProductFilters, 'performerId'> & { status?: ContentStatus }) {
  const filter = (qb: ProductQuery) => {
    const base = filtered(qb, { ...f, performerId });
    return f.status ? base.where('products.status', '=', f.status) : base;
  };
  return productQueries(db, filter, ownProductSorts, f);
}

export function listPublicProducts(db: DbOrTrx, f: ProductFilters, a: Audience) {
  return runList(publicProductQueries(db, f, a), f.limit);
}

export function listOwnProducts(db: DbOrTrx, performerId: string, f: Omit<ProductFilters, 'performerId'> & { status?: ContentStatus }) {
  return runList(ownProductQueries(db, performerId, f), f.limit, { cacheTotal: false });
}

export type ProductRow = Awaited<ReturnType<typeof listPublicProducts>>['rows'][number];

/** A product by id or slug, whatever its status, with whether it is public to `a` now. */
export function findProductByKey(db: DbOrTrx, key: string, a: Audience) {
  const query = db
    .selectFrom('products')
    .select(productColumns)
    .select(productIsPublic(a).as('visible'));
  return oneByIdOrSlug(query, 'products', key).executeTakeFirst();
}
