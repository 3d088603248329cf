import { sql, type Expression, type Insertable, type Selectable } from 'kysely';
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
    // A performer's promotion applies by itself: its internal code is never one a buyer can type.
    .where('autoApply', '=', 0)
    .orderBy(sql`case when code = ${code} then 0 when id = ${code} then 2 else 1 end`)
    .limit(1)
    .executeTakeFirst();
}

/**
 * Takes one use if one is left and the coupon is still usable, in one conditional UPDATE: of concurrent checkouts
 * racing for the last use, exactly one matches (PostgreSQL re-checks the condition on the row the winner committed;
 * SQLite has one writer at a time). False when nothing was taken.
 */
export async function reserveCouponUse(db: DbOrTrx, id: string, now = nowIso()): Promise<boolean> {
  const r = await db
    .updateTable('coupons')
    .set({ usedCount: sql`used_count + 1`, updatedAt: now })
    .where('id', '=', id)
    .where('status', '=', 'active')
    .where(sql<boolean>`used_count < max_uses`)
    .where((eb) => eb.or([eb('expiresAt', 'is', null), eb('expiresAt', '>', now)]))
    .where((eb) => eb.or([eb('startsAt', 'is', null), eb('startsAt', '<=', now)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A use taken by a checkout that ended unpaid goes back. */
export async function releaseCouponUse(db: DbOrTrx, id: string): Promise<void> {
  await db.updateTable('coupons').set({ usedCount: sql`used_count - 1`, updatedAt: nowIso() }).where('id', '=', id).where('usedCount', '>', 0).execute();
}

/**
 * A use counted whatever is left: a payment the provider took after its checkout had expired (and given its use
 * back), with no use left by then. The buyer paid the price they were quoted, so the use is honoured.
 */
export async function countCouponUse(db: DbOrTrx, id: string): Promise<void> {
  await db.updateTable('coupons').set({ usedCount: sql`used_count + 1`, updatedAt: nowIso() }).where('id', '=', id).execute();
}

/** Whether any payment used the coupon (then it is deactivated rather than deleted: payments refer to it). */
export async function couponInUse(db: DbOrTrx, id: string): Promise<boolean> {
  return Boolean(await db.selectFrom('payments').select('id').where('couponId', '=', id).limit(1).executeTakeFirst());
}

// -----------------------------------------------------------------------------------------------------------------
// A performer's promotions: coupons with performer_id and auto_apply = 1 (migration 0018, server/payments/README.md,
// "Offers"), so a promotion's count is taken and given back exactly as a coupon's use is.

/** A performer's promotions running at `now` (started, not ended, uses left), the largest discount first. */
export function runningPromotions(db: DbOrTrx, performerId: string, now = nowIso()) {
  return runningPromotionsQuery(db, performerId, now).selectAll().orderBy('valueBps', 'desc').orderBy('id').execute();
}

/** The promotions of runningPromotions, unselected (a performer page asks whether any runs with its other facts). */
export function runningPromotionsQuery(db: DbOrTrx, performerId: string | Expression<string>, now: string) {
  return db
    .selectFrom('coupons')
    .where('performerId', '=', performerId)
    .where('autoApply', '=', 1)
    .where('status', '=', 'active')
    .where(sql<boolean>`used_count < max_uses`)
    .where((eb) => eb.or([eb('startsAt', 'is', null), eb('startsAt', '<=', now)]))
    .where((eb) => eb.or([eb('expiresAt', 'is', null), eb('expiresAt', '>', now)]));
}

/** Every promotion of a performer, latest start first (the studio's list). */
export function promotionsOf(db: DbOrTrx, performerId: string) {
  return db
    .selectFrom('coupons')
    .selectAll()
    .where('performerId', '=', performerId)
    .where('autoApply', '=', 1)
    .orderBy('startsAt', 'desc')
    .orderBy('id', 'desc')
    .limit(100)
    .execute();
}

export async function insertCoupon(db: DbOrTrx, row: Insertable<CouponsTable>): Promise<void> {
  await db.insertInto('coupons').values(row).execute();
}

export function findPromotion(db: DbOrTrx, id: string, performerId: string) {
  return db.selectFrom('coupons').selectAll().where('id', '=', id).where('performerId', '=', performerId).where('autoApply', '=', 1).executeTakeFirst();
}

/** Ends a promotion now: no checkout takes it after this (checkouts holding a use keep it until they end). */
export async function endPromotion(db: DbOrTrx, id: string, performerId: string, now = nowIso()): Promise<void> {
  await db.updateTable('coupons').set({ status: 'inactive', updatedAt: now }).where('id', '=', id).where('performerId', '=', performerId).where('autoApply', '=', 1).execute();
}
