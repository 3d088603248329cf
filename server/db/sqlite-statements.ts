import type { SqliteDatabase, SqliteStatement } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import { rowBuilder, type RowBuilder } from './row-builder.js';

/** A schema change: the kept statements' columns may no longer be what they were. */
const SCHEMA_CHANGE = /^\s*(create|alter|drop)\b/i;

/**
 * The connection Kysely's SqliteDialect is given: better-sqlite3 with its prepared statements kept, by SQL text.
 * Kysely's driver prepares every query it runs; preparing costs about as much as running the small indexed
 * queries a page makes (~0.1–0.35 ms each, ~1 ms a list), and the same few hundred SQL texts repeat forever.
 *
 * Safe to share one statement between queries because the dialect runs one query at a time on its single
 * connection (a streamed query holds the connection until the stream ends). SQLite re-prepares a kept statement
 * by itself after a schema change; one made through this connection also forgets every kept statement. Least
 * recently used texts are dropped past `max` (keyword and id-list queries vary their text).
 *
 * A reading statement hands its rows over as arrays and they are made objects by a builder compiled for its columns
 * (./row-builder.ts): better-sqlite3 setting each column on a new object cost more than the rest of its work on a
 * page of a list (133 µs against 81 µs, 12 rows of 22 columns).
 */
export function withStatementCache(db: BetterSqlite3.Database, max = 500): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement) {
        // Map keeps insertion order: moving a used text to the end makes the first key the least recently used.
        statements.delete(sql);
      } else {
        if (SCHEMA_CHANGE.test(sql)) statements.clear();
        statement = rowsAsObjects(db.prepare(sql));
        if (statements.size >= max) statements.delete(statements.keys().next().value as string);
      }
      statements.set(sql, statement);
      return statement;
    },
    close() {
      statements.clear();
      db.close();
    },
  };
}

/** A reading statement run in raw mode, its rows built as objects keyed by its columns' names. */
function rowsAsObjects(statement: BetterSqlite3.Statement): SqliteStatement {
  if (!statement.reader) return statement;
  statement.raw(true);
  let columns = -1;
  let build: RowBuilder = () => ({});
  // Read again when a row's length is not the columns': SQLite re-prepared a `select *` after a change elsewhere.
  const builderFor = (row: readonly unknown[]) => {
    if (row.length !== columns) {
      const names = statement.columns().map((c) => c.name);
      columns = names.length;
      build = rowBuilder('sqlite', names.map((_, i) => i), names);
    }
    return build;
  };
  return {
    reader: true,
    all(parameters) {
      const rows = statement.all(parameters as unknown[]) as unknown[][];
      return rows.length ? rows.map(builderFor(rows[0]!)) : rows;
    },
    run: (parameters) => statement.run(parameters as unknown[]),
    *iterate(parameters) {
      for (const row of statement.iterate(parameters as unknown[]) as IterableIterator<unknown[]>) yield builderFor(row)(row);
    },
  };
}
