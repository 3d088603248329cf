import { describe, expect, it } from 'vitest';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { withStatementCache } from '../../server/db/sqlite-statements.js';

/** Counts what reaches better-sqlite3's prepare. */
function counted() {
  const raw = new SQLite(':memory:');
  const prepared: string[] = [];
  const prepare = raw.prepare.bind(raw);
  raw.prepare = ((text: string) => {
    prepared.push(text);
    return prepare(text);
  }) as typeof raw.prepare;
  return { raw, prepared };
}

describe('withStatementCache (the SQLite connection Kysely runs on)', () => {
  it('prepares a SQL text once, evicting the least recently used past its size', () => {
    const { raw, prepared } = counted();
    const db = withStatementCache(raw, 2);
    const a = db.prepare('select 1');
    expect(db.prepare('select 1')).toBe(a);
    db.prepare('select 2');
    db.prepare('select 1'); // used last: "select 2" is now the oldest
    db.prepare('select 3'); // evicts "select 2"
    expect(db.prepare('select 1')).toBe(a);
    db.prepare('select 2');
    expect(prepared).toEqual(['select 1', 'select 2', 'select 3', 'select 2']);
    db.close();
    expect(raw.open).toBe(false);
  });

  it('gives Kysely the same answers as fresh statements: reads, writes, transactions, a schema change, a streamed read', async () => {
    const { raw, prepared } = counted();
    const db = new Kysely<{ t: { id: number; name: string } }>({ dialect: new SqliteDialect({ database: withStatementCache(raw) }) });
    await sql`create table t (id integer primary key, name text not null)`.execute(db);
    for (const name of ['a', 'b', 'c']) await db.insertInto('t').values({ id: name.charCodeAt(0), name }).execute();
    const byName = (name: string) => db.selectFrom('t').select('id').where('name', '=', name).executeTakeFirst();
    expect(await byName('b')).toEqual({ id: 98 });
    expect(await byName('c')).toEqual({ id: 99 });
    const preparedBefore = prepared.length;
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('t').set({ name: 'z' }).where('id', '=', 97).execute();
      expect(await trx.selectFrom('t').select('id').where('name', '=', 'z').executeTakeFirst()).toEqual({ id: 97 });
    });
    expect(await byName('a')).toBeUndefined();
    // The select inside the transaction has the text byName already prepared: it was not prepared again.
    expect(prepared.slice(preparedBefore).filter((t) => t.startsWith('select "id" from "t" where "name"'))).toEqual([]);
    // A kept `select *` sees a column added after it was prepared (SQLite re-prepares it).
    const all = () => sql<Record<string, unknown>>`select * from t where id = 98`.execute(db);
    expect((await all()).rows).toEqual([{ id: 98, name: 'b' }]);
    await sql`alter table t add column extra text default 'x'`.execute(db);
    expect((await all()).rows).toEqual([{ id: 98, name: 'b', extra: 'x' }]);
    // Streaming iterates a kept statement; the same text runs again afterwards.
    const streamed: unknown[] = [];
    for await (const row of db.selectFrom('t').select('name').orderBy('id').stream()) streamed.push(row);
    expect(streamed).toEqual([{ name: 'z' }, { name: 'b' }, { name: 'c' }]);
    expect(await db.selectFrom('t').select('name').orderBy('id').execute()).toEqual(streamed);
    await db.destroy();
  });

  it("builds a reading statement's rows as better-sqlite3's own objects would be, and follows a renamed column", async () => {
    const raw = new SQLite(':memory:');
    const fresh = new SQLite(':memory:');
    const db = withStatementCache(raw);
    for (const d of [raw, fresh]) {
      d.exec("create table t (id integer primary key, name text, data blob); insert into t values (1, 'a', x'01'), (2, null, null)");
    }
    // Objects keyed by column, the later of two same-named columns winning, as better-sqlite3 builds them.
    const text = 'select t.id, t.name, t.data, t.name as id, 7 as "odd ""name""" from t order by t.id';
    expect(db.prepare(text).all([])).toEqual(fresh.prepare(text).all());
    expect(db.prepare(text).all([])).toEqual([{ id: 'a', name: 'a', data: Buffer.from([1]), 'odd "name"': 7 }, { id: null, name: null, data: null, 'odd "name"': 7 }]);
    expect([...db.prepare('select id from t order by id').iterate([])]).toEqual([{ id: 1 }, { id: 2 }]);
    expect(db.prepare('select id from t where id = 3').all([])).toEqual([]);
    // A column renamed through this connection: the same number of columns, under their new names.
    const all = 'select * from t where id = 1';
    expect(db.prepare(all).all([])).toEqual([{ id: 1, name: 'a', data: Buffer.from([1]) }]);
    db.prepare('alter table t rename column name to title').run([]);
    expect(db.prepare(all).all([])).toEqual([{ id: 1, title: 'a', data: Buffer.from([1]) }]);
    // Writes answer as before.
    expect(db.prepare('update t set title = ? where id = ?').run(['b', 2])).toMatchObject({ changes: 1 });
    db.close();
    fresh.close();
  });
});
