import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser } from '../helpers/sessions.js';
import { prepared } from '../../server/db/prepared.js';
import type { DbOrTrx } from '../../server/db/database.js';
import { plainFilters, plainVideoQueries, publicVideoQueries } from '../../server/videos/videos.repository.js';
import { audienceOf } from '../../server/catalogue/catalogue.repository.js';

/**
 * Statements compiled once (server/db/prepared.ts): on each engine they answer exactly what the same query built
 * each time answers, camel-cased rows included, inside a transaction too; a value that would shape the SQL is refused
 * when the statement is first compiled.
 */
describe.each(engines)('prepared statements on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
    await createUser(t.ctx.db, 'user', { username: 'prep_one', email: 'prep.one@example.com' });
    await createUser(t.ctx.db, 'performer', { username: 'prep_two', email: 'prep.two@example.com' });
  });
  afterAll(() => t?.close());

  // Constants stay where they are (the roles), the named values are bound anew on every call, one of them twice.
  const build = (db: DbOrTrx, email: string, name: string) =>
    db
      .selectFrom('users')
      .select(['id', 'username', 'avatarPath', 'createdAt'])
      .where((eb) => eb.or([eb('email', '=', email), eb('username', '=', name), eb('email', '=', name)]))
      .where('role', 'in', ['user', 'performer'])
      .orderBy('username');
  const byEmailOrName = prepared(['email', 'name'], (db, v) => build(db, v.email, v.name));

  it('answers as the query built each time, for one value, another, none', async () => {
    for (const [email, name] of [['prep.one@example.com', 'nobody'], ['nobody@example.com', 'prep_two'], ['prep.one@example.com', 'prep_two'], ['x', 'y']]) {
      const rows = await byEmailOrName(t.ctx.db, { email: email!, name: name! });
      expect(rows).toEqual(await build(t.ctx.db, email!, name!).execute());
    }
    const [one] = await byEmailOrName(t.ctx.db, { email: 'prep.one@example.com', name: '' });
    expect(Object.keys(one!).sort()).toEqual(['avatarPath', 'createdAt', 'id', 'username']);
  });

  it('runs inside a transaction, on its connection', async () => {
    await t.ctx.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ username: 'prep_renamed' }).where('username', '=', 'prep_two').execute();
      expect((await byEmailOrName(trx, { email: '', name: 'prep_renamed' })).map((r) => r.username)).toEqual(['prep_renamed']);
      await trx.updateTable('users').set({ username: 'prep_two' }).where('username', '=', 'prep_renamed').execute();
    });
  });

  // Lists bound element by element, one compiled form per length; an absent value leaves its clause out.
  const buildShaped = (db: DbOrTrx, v: { names: readonly string[]; role: string | null }) => {
    let q = db.selectFrom('users').select(['username']).where('username', 'in', v.names);
    if (v.role !== null) q = q.where('role', '=', v.role as 'user');
    return q.orderBy('username');
  };
  const shaped = prepared(['names', 'role'], (db, v: { names: readonly string[]; role: string | null }) => buildShaped(db, v));

  it('answers for lists of several lengths and for absent values, as the query built each time', async () => {
    for (const v of [
      { names: ['prep_one'], role: null },
      { names: ['prep_one', 'prep_two'], role: null },
      { names: ['prep_two', 'prep_one'], role: 'performer' },
      { names: ['nobody', 'prep_one', 'prep_two'], role: 'user' },
      { names: ['prep_two'], role: null },
    ]) {
      expect(await shaped(t.ctx.db, v)).toEqual(await buildShaped(t.ctx.db, v).execute());
    }
    expect((await shaped(t.ctx.db, { names: ['prep_one', 'prep_two'], role: null })).map((r) => r.username)).toEqual(['prep_one', 'prep_two']);
    expect((await shaped(t.ctx.db, { names: ['prep_one', 'prep_two'], role: 'performer' })).map((r) => r.username)).toEqual(['prep_two']);
  });

  it("compiles the plain videos list (an order, a performer, an offset) to the statements built each time, for guests and members", async () => {
    const viewers = [null, { id: 'viewer-1', role: 'user' as const }, { id: 'performer-1', role: 'performer' as const }];
    let compared = 0;
    for (const viewer of viewers) {
      for (const country of [null, 'DE']) {
        const a = audienceOf(viewer, country);
        for (const sort of [undefined, 'relevance', 'newest', 'popular', 'price'] as const) {
          for (const performerId of [undefined, 'performer-2']) {
            const f = { sort, performerId, limit: 12, offset: 24 };
            expect(plainFilters(f)).toBe(true);
            const ours = plainVideoQueries(t.ctx.db, f, a);
            const built = publicVideoQueries(t.ctx.db, f, a);
            for (const [mine, theirs] of [[ours.page.compile(), built.page.compile()], [ours.count.compile(), built.count.compile()]] as const) {
              expect(mine.sql).toBe(theirs.sql);
              expect(mine.parameters).toEqual(theirs.parameters);
              compared++;
            }
            expect(ours.sort).toEqual(built.sort);
          }
        }
      }
    }
    expect(compared).toBe(120);
    // Anything else is built each time.
    for (const f of [{ q: 'x' }, { tag: 'x' }, { categoryId: 'x' }, { cursor: { v: 'x', id: 'y' } }, { performerId: '' }]) expect(plainFilters({ limit: 12, offset: 0, ...f })).toBe(false);
  });

  it('refuses a value that shapes the SQL, and a name the statement never uses', async () => {
    const column = prepared(['col'], (db, { col }) => db.selectFrom('users').select(sql.ref(col).as('x')));
    await expect(column(t.ctx.db, { col: 'email' })).rejects.toThrow(/not one of its parameters/);
    const unused = prepared(['email', 'extra'], (db, { email }) => db.selectFrom('users').select('id').where('email', '=', email));
    await expect(unused(t.ctx.db, { email: 'x', extra: 'y' })).rejects.toThrow(/"extra" is not one of its parameters/);
    // A value lower-cased in code would be bound as given: refused instead.
    const lowered = prepared(['name'], (db, { name }) => db.selectFrom('users').select('id').where('username', '=', name.toLowerCase()));
    await expect(lowered(t.ctx.db, { name: 'Prep_One' })).rejects.toThrow(/"name" is not one of its parameters/);
    // A list element compared in code shapes the SQL as surely as a column name (here its placeholder takes the branch that binds nothing).
    const starIsAll = prepared(['names'], (db, v: { names: readonly string[] }) =>
      v.names[0] === '*' ? db.selectFrom('users').select('id').where('username', 'in', v.names) : db.selectFrom('users').select('id'));
    await expect(starIsAll(t.ctx.db, { names: ['*'] })).rejects.toThrow(/"names" is not one of its parameters/);
  });
});
