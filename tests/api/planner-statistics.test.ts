import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser } from '../helpers/sessions.js';
import { openDatabase, type DatabaseHandle } from '../../server/db/database.js';

/**
 * `optimize()` on PostgreSQL analyzes what autovacuum would analyze next: after a bulk load the planner has
 * statistics at once, not a minute or more later; tables unchanged since their last analysis are left alone.
 */
describe.runIf(engines.includes('postgres'))('planner statistics on postgres', () => {
  let t: TestApp;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    t = await startTestApp('postgres');
    handle = await openDatabase({ databaseUrl: process.env.DATABASE_URL, pgSchema: t.schema, poolSize: 1 });
  });
  afterAll(async () => {
    await handle?.close();
    await t?.close();
  });

  const analyzedAt = async (table: string) =>
    (await sql<{ at: Date | null }>`select last_analyze as at from pg_stat_user_tables where schemaname = current_schema() and relname = ${table}`.execute(t.ctx.db)).rows[0]?.at ?? null;

  it('analyzes the tables never analyzed or much changed since, and only those', async () => {
    for (let i = 0; i < 3; i++) await createUser(t.ctx.db);
    expect(await analyzedAt('users')).toBeNull();
    await handle.optimize();
    const first = await analyzedAt('users');
    expect(first).not.toBeNull();
    // The planner knows the rows now.
    const known = (await sql<{ n: number }>`select reltuples::int as n from pg_class where oid = 'users'::regclass`.execute(t.ctx.db)).rows[0]!.n;
    expect(known).toBeGreaterThanOrEqual(3);
    // Nothing changed since: not analyzed again.
    await handle.optimize();
    expect(await analyzedAt('users')).toEqual(first);
  });
});
