import { sql, type Kysely } from 'kysely';

/**
 * Performer identity and age verification (docs/product.md, Verification; server/verification/README.md).
 *
 * performer_verifications: one row per submission, kept after the decision (a resubmission is a new row; the newest
 * row is the performer's state). status pending → approved | rejected, with decided_at, decided_by (the admin) and
 * reason (a rejection's words). The three pictures are `files` rows under private/verification/ named by
 * document_front_file_id, document_back_file_id and selfie_file_id; the retention job deletes them a set number of
 * days after the decision, sets the three ids to null and files_deleted_at, and keeps the rest (decision, dates,
 * legal name, date of birth). seeded = 1: a demo record written by the seed, without pictures.
 * performer_verifications_one_pending_uq: at most one pending submission per performer (two racing submissions:
 * the second insert fails and is answered 409).
 * performer_verifications_status_submitted: the console's queue by status, oldest first.
 * performer_verifications_performer: a performer's newest submission.
 * performer_verifications_decided: the retention job's walk of decided rows whose files are still there.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('performer_verifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('performer_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('legal_name', 'text', (c) => c.notNull())
    .addColumn('date_of_birth', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('document_front_file_id', 'text')
    .addColumn('document_back_file_id', 'text')
    .addColumn('selfie_file_id', 'text')
    .addColumn('seeded', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('submitted_at', 'text', (c) => c.notNull())
    .addColumn('decided_at', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('reason', 'text')
    .addColumn('files_deleted_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // Literal status: a partial index's predicate cannot take bound parameters on PostgreSQL.
  await sql`create unique index performer_verifications_one_pending_uq on performer_verifications (performer_id) where status = 'pending'`.execute(db);
  await db.schema.createIndex('performer_verifications_status_submitted').on('performer_verifications').columns(['status', 'submitted_at', 'id']).execute();
  await db.schema.createIndex('performer_verifications_performer').on('performer_verifications').columns(['performer_id', 'submitted_at', 'id']).execute();
  await db.schema.createIndex('performer_verifications_decided').on('performer_verifications').columns(['files_deleted_at', 'decided_at']).execute();
  // Approval now follows a verified identity, and nobody was verified before this table existed: a performer approved
  // until now keeps drafts only (their items leave the catalogue, their checkouts are refused) until they submit and
  // an admin approves. Keeping them approved would go on selling the work of people the site never identified.
  await db.updateTable('performers').set({ approved: 0 }).where('approved', '=', 1).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('performer_verifications').ifExists().execute();
}
