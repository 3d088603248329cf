import { sql } from 'kysely';
import type { DbOrTrx } from '../db/database.js';

/** Subscription packages (monthly, yearly): their duration, and the price used when a performer has none. */
export async function listActivePackages(db: DbOrTrx, f: { type?: string; limit: number; offset: number }) {
  let base = db.selectFrom('subscriptionPackages').where('status', '=', 'active');
  if (f.type) base = base.where('type', '=', f.type);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('ordering').orderBy('id').limit(f.limit).offset(f.offset).execute(),
    base.select(sql<number | string>`count(*)`.as('n')).executeTakeFirst(),
  ]);
  return { rows, total: Number(count?.n ?? 0) };
}
