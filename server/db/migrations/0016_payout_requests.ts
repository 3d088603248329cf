import { sql, type Kysely } from 'kysely';

/**
 * Payout requests (server/payments/README.md, "Payouts"): a performer asks to be paid their available balance, an
 * admin approves, pays or rejects it.
 *
 * payouts (0006: a batch of earnings marked paid at once) becomes the one record of a payout, whichever way it came:
 *  - status: requested | approved | paid | rejected. Rows made before this migration were paid when recorded.
 *  - method, details_enc, details_masked: how the performer asked to be paid, copied from their payout details when
 *    they asked (a later edit does not redirect money already asked for). details_enc is the full copy, encrypted
 *    with the app secret and erased once the payout is paid or rejected; details_masked (JSON) is what lists show.
 *  - reference: the transfer's reference, given when paid; reason: why it was rejected.
 *  - approved_at, paid_at, rejected_at, updated_at: when each step happened; actor_id is the admin who acted last.
 * payouts_one_open_uq: at most one requested or approved payout per performer. Two requests racing both pass the
 * "no open request" read; the second insert then fails on this index (on PostgreSQL it waits for the first to commit).
 *
 * payout_details: one row per performer: the method and the details as encrypted JSON (AES-256-GCM, the same scheme as
 * the gateway keys in the settings).
 *
 * earnings: a row claimed by an open request has its payout_id set and is_paid still 0; paying sets is_paid, paid_at;
 * rejecting clears payout_id again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payouts').addColumn('status', 'text', (c) => c.notNull().defaultTo('paid')).execute();
  await db.schema.alterTable('payouts').addColumn('method', 'text').execute();
  await db.schema.alterTable('payouts').addColumn('details_enc', 'text').execute();
  await db.schema.alterTable('payouts').addColumn('details_masked', 'text').execute();
  await db.schema.alterTable('payouts').addColumn('reference', 'text').execute();
  await db.schema.alterTable('payouts').addColumn('reason', 'text').execute();
  await db.schema.alterTable('payouts').addColumn('approved_at', 'text').execute();
  await db.schema.alterTable('payouts').addColumn('paid_at', 'text').execute();
  await db.schema.alterTable('payouts').addColumn('rejected_at', 'text').execute();
  await db.schema.alterTable('payouts').addColumn('updated_at', 'text').execute();
  await sql`update payouts set paid_at = created_at, updated_at = created_at`.execute(db);
  // Literal statuses: a partial index's predicate cannot take bound parameters on PostgreSQL.
  await sql`create unique index payouts_one_open_uq on payouts (performer_id) where status in ('requested', 'approved')`.execute(db);
  // The console's queue: by status, oldest first.
  await db.schema.createIndex('payouts_status_created').on('payouts').columns(['status', 'created_at']).execute();
  // What a payout claimed, and what a request releases or pays.
  await db.schema.createIndex('earnings_payout').on('earnings').column('payout_id').execute();

  await db.schema
    .createTable('payout_details')
    .addColumn('performer_id', 'text', (c) => c.primaryKey().references('performers.id'))
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('details_enc', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('payout_details').execute();
  await db.schema.dropIndex('earnings_payout').execute();
  await db.schema.dropIndex('payouts_status_created').execute();
  await db.schema.dropIndex('payouts_one_open_uq').execute();
  // Claims of open requests go back to unclaimed: without the status column they would look paid.
  await sql`update earnings set payout_id = null where is_paid = 0 and payout_id is not null`.execute(db);
  await sql`delete from payouts where status <> 'paid'`.execute(db);
  for (const column of ['updated_at', 'rejected_at', 'paid_at', 'approved_at', 'reason', 'reference', 'details_masked', 'details_enc', 'method', 'status']) {
    await db.schema.alterTable('payouts').dropColumn(column).execute();
  }
}
