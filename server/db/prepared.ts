import { CompiledQuery, type Compilable } from 'kysely';
import type { DbOrTrx } from './database.js';

/**
 * A value a prepared statement is run with: bound as a parameter (a string or a number), a list bound element by
 * element (for `in (…)`, or one arm per element), or absent (null or undefined: the builder leaves its clause out).
 */
export type PreparedValue = string | number | null | undefined | readonly (string | number)[];

type Slot = { name: string; index?: number } | { value: unknown };
type Statement = { sql: string; slots: Slot[] };

/** Shapes kept per statement and dialect: lists of every length up to a page's size, absent values; past it, compiled each time. */
const MAX_SHAPES = 256;

/**
 * A statement built and compiled once per shape and database: Kysely builds a tree of frozen nodes and compiles it on
 * every call (52 µs for the session's lookup, measured alone; about a quarter of the member header's CPU, and of a feed
 * page's), though the statements every signed-in request runs differ only in their values.
 *
 * `prepared(names, build)` calls `build` once with a placeholder for each named value, keeps the SQL and where each
 * value goes, and from then on runs that SQL with the values given, through the same executor (the rows come back
 * camel-cased as from any query; SQLite's statement cache finds the same text). A statement's shape is what changes
 * its SQL besides the values: the length of each list and which values are absent; each shape is compiled once
 * (`build` sees the lists' lengths and the absent values as they are).
 *
 * Only plain values can be named. One that shapes the SQL otherwise (a column name, a value written into the text, a
 * number `build` computes with, a string it lower-cases or upper-cases) is not found among the statement's
 * parameters when it is first compiled, and that is an error; so is a value `build` compares when the branch its
 * placeholder takes leaves it unbound. A comparison whose both branches bind it cannot be caught: `build` must not
 * look at its values. What else shapes the statement (an order, an engine) belongs to `build` itself: one prepared
 * statement per such choice.
 */
export function prepared<K extends string, R, V extends { [N in K]: PreparedValue } = { [N in K]: string }>(
  names: readonly K[],
  build: (db: DbOrTrx, values: V) => Compilable<R>,
) {
  // Per dialect adapter (the tests run SQLite and PostgreSQL side by side in one process), then per shape.
  const compiled = new WeakMap<object, Map<string, Statement>>();
  // Upper and lower case both, so that a value `build` lower-cases or upper-cases is no longer found: refused, not bound raw.
  const placeholder = (name: string, index?: number) => `\u0000Prepared:${name}${index === undefined ? '' : `#${index}`}\u0000`;

  function shapeOf(values: V): string {
    let shape = '';
    for (const n of names) {
      const v: PreparedValue = values[n];
      shape += v === null ? 'n,' : v === undefined ? 'u,' : typeof v === 'object' ? `${v.length},` : 'v,';
    }
    return shape;
  }

  function compile(db: DbOrTrx, values: V): Statement {
    const byPlaceholder = new Map<string, { name: string; index?: number }>();
    const stand: Record<string, unknown> = {};
    for (const n of names) {
      const v: PreparedValue = values[n];
      if (v === null || v === undefined) stand[n] = v;
      else if (typeof v === 'object') {
        stand[n] = v.map((_, index) => {
          byPlaceholder.set(placeholder(n, index), { name: n, index });
          return placeholder(n, index);
        });
      } else {
        byPlaceholder.set(placeholder(n), { name: n });
        stand[n] = placeholder(n);
      }
    }
    const query = build(db, stand as V).compile();
    const slots = query.parameters.map((p): Slot => (typeof p === 'string' && byPlaceholder.has(p) ? byPlaceholder.get(p)! : { value: p }));
    for (const [p, { name }] of byPlaceholder) {
      if (!query.parameters.includes(p)) throw new Error(`prepared statement: "${name}" is not one of its parameters (a value that shapes the SQL cannot be prepared)`);
    }
    if (/\u0000prepared:/i.test(query.sql)) throw new Error('prepared statement: a value was written into the SQL text');
    return { sql: query.sql, slots };
  }

  /** The statement with these values, as Kysely would have compiled it (a count cache keys its totals by it). */
  function compiledWith(db: DbOrTrx, values: V): CompiledQuery<R> {
    const adapter = db.getExecutor().adapter;
    let shapes = compiled.get(adapter);
    if (!shapes) compiled.set(adapter, (shapes = new Map()));
    const shape = shapeOf(values);
    let statement = shapes.get(shape);
    if (!statement) {
      statement = compile(db, values);
      if (shapes.size < MAX_SHAPES) shapes.set(shape, statement);
    }
    const parameters = statement.slots.map((s) => {
      if (!('name' in s)) return s.value;
      const v: PreparedValue = values[s.name as K];
      return s.index === undefined ? v : (v as readonly unknown[])[s.index];
    });
    return CompiledQuery.raw(statement.sql, parameters) as CompiledQuery<R>;
  }

  const run = async (db: DbOrTrx, values: V): Promise<R[]> => (await db.executeQuery(compiledWith(db, values))).rows;
  return Object.assign(run, { compiled: compiledWith });
}
