import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser } from '../helpers/sessions.js';
import { openDatabase, type DatabaseHandle } from '../../server/db/database.js';

/**
 * Named statements on PostgreSQL (server/db/pg-statement-names.ts): a text run again is parsed by the server once per
 * connection and then only bound, and the rows and errors are what they were.
 */
describe.runIf(engines.includes('postgres'))('named statements on postgres', () => {
  let t: TestApp;
  let one: DatabaseHandle;
  let plain: DatabaseHandle;

  beforeAll(async () => {
    t = await startTestApp('postgres');
    // One connection each, so what the server holds is the connection's that ran the statements.
    one = await openDatabase({ databaseUrl: process.env.DATABASE_URL, pgSchema: t.schema, poolSize: 1 });
    plain = await openDatabase({ databaseUrl: process.env.DATABASE_URL, pgSchema: t.schema, poolSize: 1, namedStatements: 0 });
  });
  afterAll(async () => {
    await one?.close();
    await plain?.close();
    await t?.close();
  });

  const prepared = async (h: DatabaseHandle) =>
    (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(h.db)).rows.map((r) => r.statement);
  const byId = (h: DatabaseHandle, id: string) => h.db.selectFrom('users').select(['id', 'username']).where('id', '=', id);

  it('runs a text as a named statement from its second run, with the same rows', async () => {
    const [a, b] = [await createUser(t.ctx.db), await createUser(t.ctx.db)];
    const text = byId(one, a.id).compile().sql;
    expect(await byId(one, a.id).execute()).toEqual([{ id: a.id, username: a.username }]);
    expect(await prepared(one)).not.toContain(text);
    expect(await byId(one, b.id).execute()).toEqual([{ id: b.id, username: b.username }]);
    expect(await prepared(one)).toContain(text);
    // Bound again with other values: still the rows of those values.
    expect(await byId(one, a.id).execute()).toEqual([{ id: a.id, username: a.username }]);
    expect(await byId(one, 'nobody').execute()).toEqual([]);
  });

  it('answers a named statement\'s errors as before: a duplicate key is still a unique violation', async () => {
    const [fan, performer] = [await createUser(t.ctx.db), await createUser(t.ctx.db, 'performer')];
    const insert = (h: DatabaseHandle) => h.db.insertInto('follows').values({ userId: fan.id, performerId: performer.id, createdAt: new Date().toISOString() }).execute();
    await insert(one);
    for (let i = 0; i < 2; i++) await expect(insert(one)).rejects.toMatchObject({ code: '23505' });
    expect(await one.db.selectFrom('follows').select('userId').where('userId', '=', fan.id).execute()).toHaveLength(1);
  });

  it('names nothing when told so (PG_NAMED_STATEMENTS=0)', async () => {
    const a = await createUser(t.ctx.db);
    for (let i = 0; i < 3; i++) await byId(plain, a.id).execute();
    expect(await prepared(plain)).toEqual([]);
  });

  it("survives a migration of another instance changing a table under a name: the statement runs again, as it is, outside a transaction", async () => {
    await sql`create table named_probe (id text primary key)`.execute(t.ctx.db);
    await sql`insert into named_probe (id) values ('a')`.execute(t.ctx.db);
    const all = () => one.db.selectFrom('named_probe' as never).selectAll().execute();
    await all();
    expect(await all()).toEqual([{ id: 'a' }]);
    expect(await prepared(one)).toContain(one.db.selectFrom('named_probe' as never).selectAll().compile().sql);
    // Another instance's migration adds a column: PostgreSQL refuses the kept plan of `select *` from then on.
    await sql`alter table named_probe add column note text`.execute(t.ctx.db);
    expect(await all()).toEqual([{ id: 'a', note: null }]);
    expect(await all()).toEqual([{ id: 'a', note: null }]);
    // Inside a transaction the refusal has failed the transaction: it reaches the caller; the next run works.
    const byKey = (db: typeof one.db) => db.selectFrom('named_probe' as never).selectAll().where('id' as never, '=', 'a' as never).execute();
    await byKey(one.db);
    await byKey(one.db);
    await sql`alter table named_probe add column more text`.execute(t.ctx.db);
    await expect(one.db.transaction().execute((trx) => byKey(trx as never))).rejects.toMatchObject({ code: '0A000' });
    // The name is retired on this connection: the next transaction sends the text as it is.
    expect(await one.db.transaction().execute((trx) => byKey(trx as never))).toEqual([{ id: 'a', note: null, more: null }]);
    expect(await byKey(one.db)).toEqual([{ id: 'a', note: null, more: null }]);
  });
});
