import { sql, type Kysely } from 'kysely';

/**
 * Data rights (docs/product.md, Your data; server/privacy/README.md).
 *
 * data_exports: one row per "download my data" request. status queued → running → ready (file_id names the JSON in
 * private storage, expires_at when it is deleted) | failed; ready → expired once the expiry job deleted the file.
 * data_exports_one_running_uq: at most one queued or running export per user. Two requests racing both pass the
 * service's read; the second insert fails on this index and is answered 409, like a request while one runs.
 * data_exports_user_created: the account page's list, newest first.
 *
 * users.deleted_at: when the account was deleted (status 'deleted'); the row stays as a tombstone so the money
 * records that point at it keep their foreign keys.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('data_exports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('file_id', 'text')
    .addColumn('size', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('ready_at', 'text')
    .addColumn('expires_at', 'text')
    .execute();
  // Literal statuses: a partial index's predicate cannot take bound parameters on PostgreSQL.
  await sql`create unique index data_exports_one_running_uq on data_exports (user_id) where status in ('queued', 'running')`.execute(db);
  await db.schema.createIndex('data_exports_user_created').on('data_exports').columns(['user_id', 'created_at', 'id']).execute();
  await db.schema.alterTable('users').addColumn('deleted_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('data_exports').ifExists().execute();
  await db.schema.alterTable('users').dropColumn('deleted_at').execute();
}
