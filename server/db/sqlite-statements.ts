import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * The connection Kysely's SqliteDialect is given: better-sqlite3 with its prepared statements kept, by SQL text.
 * Kysely's driver prepares every query it runs; preparing costs about as much as running the small indexed
 * queries a page makes (~0.1–0.35 ms each, ~1 ms a list), and the same few hundred SQL texts repeat forever.
 *
 * Safe to share one statement between queries because the dialect runs one query at a time on its single
 * connection (a streamed query holds the connection until the stream ends). SQLite re-prepares a kept statement
 * by itself after a schema change. Least recently used texts are dropped past `max` (keyword and id-list
 * queries vary their text).
 */
export function withStatementCache(db: SqliteDatabase, max = 500): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement) {
        // Map keeps insertion order: moving a used text to the end makes the first key the least recently used.
        statements.delete(sql);
      } else {
        statement = db.prepare(sql);
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
