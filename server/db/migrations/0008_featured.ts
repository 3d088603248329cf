import type { Kysely } from 'kysely';

/**
 * "Featured performers, most popular first" (the home page) had no index of its own: it walked
 * performers_status_popular over every active performer to find the few featured ones (6.8 ms a render at 10k
 * performers, growing with the directory). Equality on featured and status, then the popular order.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('performers_featured_popular').on('performers').columns(['featured', 'status', 'subscriber_count', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('performers_featured_popular').ifExists().execute();
}
