import type { DbOrTrx } from '../db/database.js';
import { offsetPage } from '../catalogue/catalogue.repository.js';

/** Subscription packages (monthly, yearly): their duration, and the price used when a performer has none. */
export async function listActivePackages(db: DbOrTrx, f: { type?: string; limit: number; offset: number }) {
  let base = db.selectFrom('subscriptionPackages').where('status', '=', 'active');
  if (f.type) base = base.where('type', '=', f.type);
  const { rows, total } = await offsetPage(base, f, (qb) => qb.selectAll().orderBy('ordering').orderBy('id'));
  return { rows, total };
}
