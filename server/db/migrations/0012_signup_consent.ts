import type { Kysely } from 'kysely';

/**
 * Sign-up asks for two confirmations: the person is 18 or older, and accepts the terms. The moment each was given is
 * kept on the account (ISO time), so the site can show when consent was recorded. Accounts made before this
 * migration, by the admin command or by the demo seed have none (null): they never went through the sign-up form.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('terms_accepted_at', 'text').execute();
  await db.schema.alterTable('users').addColumn('adult_confirmed_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('adult_confirmed_at').execute();
  await db.schema.alterTable('users').dropColumn('terms_accepted_at').execute();
}
