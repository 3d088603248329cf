import { describe, expect, it } from 'vitest';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type Dialect } from 'kysely';
import { YieldingSqliteDialect } from '../../server/db/sqlite-dialect.js';

/** Whether work queued on the event loop (another request, say) runs before a query that was asked for first. */
async function queuedWorkRunsFirst(dialect: Dialect): Promise<{ order: string[]; committed: number }> {
  const db = new Kysely<{ t: { n: number } }>({ dialect });
  await sql`create table t (n integer)`.execute(db);
  const order: string[] = [];
  setImmediate(() => order.push('other request'));
  await db.selectFrom('t').select('n').execute();
  order.push('query');
  // A transaction's queries run on the connection it holds: all of it commits.
  await db.transaction().execute(async (trx) => {
    for (let n = 0; n < 5; n++) await trx.insertInto('t').values({ n }).execute();
  });
  const committed = (await db.selectFrom('t').select((eb) => eb.fn.countAll<number>().as('c')).executeTakeFirstOrThrow()).c;
  await db.destroy();
  return { order, committed };
}

describe('YieldingSqliteDialect', () => {
  it('lets queued work run before a query takes the connection; Kysely\'s own dialect does not', async () => {
    expect(await queuedWorkRunsFirst(new YieldingSqliteDialect({ database: new SQLite(':memory:') }))).toEqual({ order: ['other request', 'query'], committed: 5 });
    // Kysely's own: the query (and everything after it, all microtasks) runs before anything else.
    expect((await queuedWorkRunsFirst(new SqliteDialect({ database: new SQLite(':memory:') }))).order[0]).toBe('query');
  });
});
