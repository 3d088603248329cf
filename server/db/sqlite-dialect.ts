import { SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

/**
 * Kysely's SQLite dialect with one change: a query waits one turn of the event loop before it takes the
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
