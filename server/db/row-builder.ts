/**
 * Row objects built by a function compiled once per column list: `{"publishedAt": m(r["published_at"]), …}`.
 *
 * A list's rows are a dozen objects of twenty-odd columns each, and building them one property at a time was a large
 * part of what a signed-in list costs: better-sqlite3 setting each column on a new object, then the camelCase mapping
 * copying each row key by key (measured on the videos list's 12 rows of 22 columns: 133 µs for the statement with
 * objects against 81 with arrays, and 20 µs for the mapping). V8 builds an object literal of a fixed shape in one
 * step. Column names come from our own SQL (a statement's columns, the driver's field names); each is written into the
 * function as a JSON string literal, so no name can change the code.
 */

type Row = Record<string, unknown>;
/** A row as the driver gives it: an object keyed by column name, or an array in column order. */
type Source = Row | readonly unknown[];
export type RowBuilder = (source: Source) => Row;

const identity = (v: unknown) => v;
const builders = new Map<string, RowBuilder>();
/** Column lists kept; past it the cache starts again (keyword and id-list statements vary their text, not their columns). */
const MAX_BUILDERS = 2000;

/**
 * The builder of rows whose `names[i]` holds the source's `from[i]` (a key of an object row, or a position of an array
 * row), through `value` (identity unless given). Later columns of the same name win, as they do in a driver's objects.
 * `kind` tells apart builders of the same columns with another `value`. `names` may be a function of `from` alone
 * (the same answer for the same kind and `from`): it is then called only when the builder is compiled, and a result
 * already seen costs one lookup.
 */
export function rowBuilder(
  kind: string,
  from: ReadonlyArray<string | number>,
  names: readonly string[] | (() => readonly string[]),
  value: (v: unknown) => unknown = identity,
): RowBuilder {
  const key = `${kind}\u0000${from.join('\u0001')}${typeof names === 'function' ? '' : `\u0000${names.join('\u0001')}`}`;
  let build = builders.get(key);
  if (!build) {
    if (builders.size >= MAX_BUILDERS) builders.clear();
    build = compile(from, typeof names === 'function' ? names() : names, value);
    builders.set(key, build);
  }
  return build;
}

function compile(from: ReadonlyArray<string | number>, names: readonly string[], value: (v: unknown) => unknown): RowBuilder {
  // In a literal, `__proto__` would set the prototype: a column so named is set the way the drivers set it.
  if (names.includes('__proto__')) {
    return (source) => {
      const row: Row = {};
      for (let i = 0; i < names.length; i++) row[names[i]!] = value((source as Row)[from[i]!]);
      return row;
    };
  }
  const fields = names.map((name, i) => `${JSON.stringify(name)}: m(r[${JSON.stringify(from[i])}])`).join(', ');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- see above: names enter as JSON string literals only
  return new Function('m', `return (r) => ({ ${fields} });`)(value) as RowBuilder;
}
