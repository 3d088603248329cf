import { sql, type Kysely } from 'kysely';

/**
 * Test money: earnings credited by the sandbox gateway (where the buyer approves their own payment) are marked
 * `test_money = 1` and are never part of a payable balance or a payout. Earnings already recorded from sandbox
 * payments are marked too, so a database that ran the demo cannot pay that money out later.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('earnings').addColumn('test_money', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await sql`update earnings set test_money = 1 where payment_id in (select id from payments where gateway = 'sandbox')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('earnings').dropColumn('test_money').execute();
}
