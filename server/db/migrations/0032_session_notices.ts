import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Notices of changed accounts and sessions, for the sessions kept in memory (server/auth/session-cache.ts): every
 * update or delete of a `users` or `sessions` row, whoever writes it, names the account it touches.
 *  - PostgreSQL: `pg_notify('session_changed', user id)`, heard by every instance's listening connection once the
 *    transaction commits, and a RAISE NOTICE the writing connection gets at once (server/db/database.ts).
 *  - SQLite: `session_changed(user id)`, a function each connection of the process defines (server/db/database.ts),
 *    called while the statement runs.
 */
const tables = [
  ['users', 'id'],
  ['sessions', 'user_id'],
] as const;

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: Kysely<any>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  if (isPostgres(db)) {
    // The account's id is read by name from the row (tg_argv): one function for both tables.
    await run(`create function session_change_notice() returns trigger language plpgsql as $$
      declare
        account text := to_jsonb(old) ->> tg_argv[0];
      begin
        raise notice 'session_changed %', account;
        perform pg_notify('session_changed', account);
        return null;
      end $$`);
    for (const [table, column] of tables) {
      await run(`create trigger ${table}_session_change after update or delete on ${table} for each row execute function session_change_notice('${column}')`);
    }
    return;
  }
  for (const [table, column] of tables) {
    for (const event of ['update', 'delete']) {
      await run(`create trigger ${table}_session_change_${event} after ${event} on ${table} begin select session_changed(old.${column}); end`);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  if (isPostgres(db)) {
    for (const [table] of tables) await run(`drop trigger if exists ${table}_session_change on ${table}`);
    await run('drop function if exists session_change_notice()');
    return;
  }
  for (const [table] of tables) for (const event of ['update', 'delete']) await run(`drop trigger if exists ${table}_session_change_${event}`);
}
