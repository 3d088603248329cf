import { CompiledQuery, type Compilable } from 'kysely';
import type { DbOrTrx } from './database.js';

type Slot = { name: string } | { value: unknown };

/**
 * A statement whose shape never changes, built and compiled once per database: Kysely builds a tree of frozen nodes
 * and compiles it on every call (52 µs for the session's lookup, measured alone; about a quarter of the member
 * header's CPU), though the statements every signed-in request runs differ only in their values.
 *
 * `prepared(names, build)` calls `build` once with a placeholder for each named value, keeps the SQL and where each
 * value goes, and from then on runs that SQL with the values given, through the same executor (the rows come back
 * camel-cased as from any query; SQLite's statement cache finds the same text). Only plain values can be named: one
 * that shapes the SQL (an array for `in`, a value written into the text) is not found among the statement's
 * parameters when it is first compiled, and that is an error, never a wrong statement.
 */
export function prepared<K extends string, R>(names: readonly K[], build: (db: DbOrTrx, values: Record<K, string>) => Compilable<R>) {
  // One compiled form per dialect adapter: the tests run SQLite and PostgreSQL side by side in one process.
  const compiled = new WeakMap<object, { sql: string; slots: Slot[] }>();
  const placeholder = (name: string) => `\u0000prepared:${name}\u0000`;

  function compile(db: DbOrTrx): { sql: string; slots: Slot[] } {
    const query = build(db, Object.fromEntries(names.map((n) => [n, placeholder(n)])) as Record<K, string>).compile();
    const byPlaceholder = new Map(names.map((n) => [placeholder(n), n]));
    const slots = query.parameters.map((p): Slot => (typeof p === 'string' && byPlaceholder.has(p) ? { name: byPlaceholder.get(p)! } : { value: p }));
    for (const n of names) {
      if (!slots.some((s) => 'name' in s && s.name === n)) throw new Error(`prepared statement: "${n}" is not one of its parameters (a value that shapes the SQL cannot be prepared)`);
    }
    if (query.sql.includes('\u0000prepared:')) throw new Error('prepared statement: a value was written into the SQL text');
    return { sql: query.sql, slots };
  }

  return async (db: DbOrTrx, values: Record<K, string>): Promise<R[]> => {
    const adapter = db.getExecutor().adapter;
    let statement = compiled.get(adapter);
    if (!statement) compiled.set(adapter, (statement = compile(db)));
    const parameters = statement.slots.map((s) => ('name' in s ? values[s.name as K] : s.value));
    return (await db.executeQuery<R>(CompiledQuery.raw(statement.sql, parameters))).rows;
  };
}
