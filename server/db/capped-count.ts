import { sql, type SelectQueryBuilder } from 'kysely';
import { UNREAD_COUNT_CAP } from '../../common/limits.js';
import type { DbOrTrx } from './database.js';
import type { Database } from './schema.js';

/**
 * `count(*)` of the rows `rows` finds (a query with no columns yet), stopping at UNREAD_COUNT_CAP (common/limits.ts): the
 * walk reads at most that many index entries, however large the backlog (a constant column leaves the table's rows
 * unread where the index covers the filter). Usable as a scalar subquery (`.as(name)`).
 */
export function cappedCount<TB extends keyof Database>(db: DbOrTrx, rows: SelectQueryBuilder<Database, TB, object>) {
  return db.selectFrom(rows.select(sql<number>`1`.as('one')).limit(UNREAD_COUNT_CAP).as('capped')).select((eb) => eb.fn.countAll<number>().as('n'));
}
