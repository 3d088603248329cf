import type { Kysely } from 'kysely';

/**
 * Indexes behind the catalogue lists: every list query of server/{videos,galleries,photos,products,
 * posts,categories} is served by an index on both engines (tests/api/explain.test.ts checks it with EXPLAIN).
 * 0001 already has the "newest" and "by performer" indexes; this adds the other sort orders, slug lookups
 * (detail pages take an id or a slug) and the performer studio's own-items list.
 */
const indexes: Array<{ name: string; table: string; columns: string[] }> = [
  { name: 'videos_status_price', table: 'videos', columns: ['status', 'price', 'id'] },
  { name: 'galleries_status_popular', table: 'galleries', columns: ['status', 'view_count', 'id'] },
  { name: 'galleries_status_price', table: 'galleries', columns: ['status', 'price', 'id'] },
  { name: 'galleries_slug', table: 'galleries', columns: ['slug'] },
  { name: 'products_status_popular', table: 'products', columns: ['status', 'view_count', 'id'] },
  { name: 'products_status_price', table: 'products', columns: ['status', 'price', 'id'] },
  { name: 'products_slug', table: 'products', columns: ['slug'] },
  { name: 'products_performer_created', table: 'products', columns: ['performer_id', 'created_at', 'id'] },
  { name: 'posts_type_status_popular', table: 'posts', columns: ['type', 'status', 'like_count', 'id'] },
  { name: 'categories_status_ordering', table: 'categories', columns: ['status', 'ordering', 'id'] },
  { name: 'categories_group_status_ordering', table: 'categories', columns: ['group', 'status', 'ordering', 'id'] },
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const i of indexes) await db.schema.createIndex(i.name).on(i.table).columns(i.columns).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const i of [...indexes].reverse()) await db.schema.dropIndex(i.name).ifExists().execute();
}
