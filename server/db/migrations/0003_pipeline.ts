import type { Kysely } from 'kysely';

/**
 * Media pipeline: the job queue gets a lease (a claimed job belongs to its worker until `lease_expires_at`;
 * after that any worker may claim it again, which is how jobs of a crashed process run after a restart),
 * a subject (`video:<id>`, `photo:<id>`... to find the jobs of a row) and the time it finished.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('lease_expires_at', 'text').execute();
  await db.schema.alterTable('jobs').addColumn('subject', 'text').execute();
  await db.schema.alterTable('jobs').addColumn('finished_at', 'text').execute();
  // Claiming looks for queued jobs due by run_at (jobs_status_run_at, from 0001) and for running jobs whose lease ran out.
  await db.schema.createIndex('jobs_status_lease').on('jobs').columns(['status', 'lease_expires_at']).execute();
  await db.schema.createIndex('jobs_subject').on('jobs').columns(['subject', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_subject').ifExists().execute();
  await db.schema.dropIndex('jobs_status_lease').ifExists().execute();
  await db.schema.alterTable('jobs').dropColumn('finished_at').execute();
  await db.schema.alterTable('jobs').dropColumn('subject').execute();
  await db.schema.alterTable('jobs').dropColumn('lease_expires_at').execute();
}
