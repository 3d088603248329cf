import type { Kysely } from 'kysely';

/**
 * Co-performers and consent records (docs/product.md, Co-performers and consent; server/consent/README.md).
 *
 * co_performers: one row per person a performer names in one of their items (object_type video | gallery | post,
 * object_id, owner_id: the item's performer, who named them).
 *  - kind 'performer': a performer of this site (performer_id), status pending until they confirm or decline in
 *    their own studio (responded_at).
 *  - kind 'outside': somebody without an account, named by legal_name, with a release form (release_file_id) and an
 *    identity document (id_file_id): `files` rows under private/consent/, never public. Confirmed when created.
 * An item with any row not 'confirmed' cannot be published; naming a performer on a published item takes the item
 * back to draft in the same transaction, so the catalogue's public lists need no look at this table.
 * co_performers_item: an item's rows (the editor's list, the publish check, the console).
 * co_performers_performer: one performer's requests (the studio's list), newest first.
 * co_performers_one_uq: a site performer is named at most once per item (outside persons carry a null performer_id,
 * which a unique index lets repeat on both engines).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('co_performers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('performer_id', 'text')
    .addColumn('legal_name', 'text')
    .addColumn('release_file_id', 'text')
    .addColumn('id_file_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('responded_at', 'text')
    .execute();
  await db.schema.createIndex('co_performers_item').on('co_performers').columns(['object_type', 'object_id', 'status']).execute();
  await db.schema.createIndex('co_performers_performer').on('co_performers').columns(['performer_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('co_performers_one_uq').on('co_performers').columns(['object_type', 'object_id', 'performer_id']).unique().execute();
  await db.schema.createIndex('co_performers_created').on('co_performers').columns(['created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('co_performers').ifExists().execute();
}
