import { sql, type Selectable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { nowIso } from '../db/ids.js';
import type { CouponsTable } from '../db/schema.js';

/** SQL of coupons. Codes are unique (coupons_code_uq); a coupon is found by its code (as typed or upper case) or its id. */

export type CouponRow = Selectable<CouponsTable>;

export function findCouponByCode(db: DbOrTrx, code: string) {
  return db
    .selectFrom('coupons')
    .selectAll()
    .where((eb) => eb.or([eb('code', '=', code), eb('code', '=', code.toUpperCase()), eb('id', '=', code)]))
    .orderBy(sql`case when code = ${code} then 0 when id = ${code} then 2 else 1 end`)
    .limit(1)
    .executeTakeFirst();
}

export function findCouponById(db: DbOrTrx, id: string) {
  return db.selectFrom('coupons').selectAll().where('id', '=', id).executeTakeFirst();
}

/** One use, counted in the transaction that settles the payment that used it. */
export async function countCouponUse(db: DbOrTrx, id: string): Promise<void> {
  await db.updateTable('coupons').set({ usedCount: sql`used_count + 1`, updatedAt: nowIso() }).where('id', '=', id).execute();
}
