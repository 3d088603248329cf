import { SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type QueryCompiler, type SqliteDialectConfig } from 'kysely';
import { SnakeCaseSqliteQueryCompiler } from './snake-case.js';

/**
 * Kysely's SQLite dialect with two changes: its compiler writes identifiers in snake_case (server/db/snake-case.ts),
 * and a query waits one turn of the event loop before it takes the
 * connection. better-sqlite3 is synchronous and Kysely's promises around it resolve as microtasks, so without
 * this a whole page render (its queries and the HTML) ran as one uninterrupted block of the event loop, and
 * every other request, micro-cache hits included, waited for all of it (PostgreSQL queries yield by themselves,
 * being real I/O). With it, requests interleave at each query. Queries inside a transaction run on the
 * connection the transaction holds and do not yield.
 */
export class YieldingSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createQueryCompiler(): QueryCompiler {
    return new SnakeCaseSqliteQueryCompiler();
  }

  override createDriver(): Driver {
    return new YieldingSqliteDriver(this.settings);
  }
}

class YieldingSqliteDriver extends SqliteDriver {
  override async acquireConnection(): Promise<DatabaseConnection> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    return super.acquireConnection();
  }
}
