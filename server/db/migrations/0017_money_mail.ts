import type { Kysely } from 'kysely';

/**
 * Money mails (server/payments/README.md, "Mail").
 *
 * subscriptions.renewal_reminded_at: when the reminder of an upcoming yearly renewal was mailed for the current
 * period. The reminder job claims a subscription by setting it (only where it is still NULL), so two instances' money
 * clocks mail it once; adding a paid period clears it, so the next period gets its own reminder.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscriptions').addColumn('renewal_reminded_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscriptions').dropColumn('renewal_reminded_at').execute();
}
