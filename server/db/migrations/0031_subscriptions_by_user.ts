import type { Kysely } from 'kysely';

/**
 * subscriptions_user_status_expires: a visitor's live subscriptions, found through their own rows. Every signed-in
 * page asks whether the visitor holds any (the member header's `unlocksMore`), and each page of the feed which
 * performers they subscribe to. Without it SQLite, which plans without statistics, read them through
 * subscriptions_status_expires: every live subscription on the site, then the visitor's among them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('subscriptions_user_status_expires').on('subscriptions').columns(['user_id', 'status', 'expires_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('subscriptions_user_status_expires').ifExists().execute();
}
