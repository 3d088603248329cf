import { sql } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { nowIso } from '../db/ids.js';
import type { EntitlementObjectType } from '../db/schema.js';
import { productIsPublic, type Audience } from '../catalogue/catalogue.repository.js';

/** SQL of what a payment gives: stock taken from products, and entitlements (what the paywall reads). */

// -----------------------------------------------------------------------------------------------------------------
// Stock. A product's stock is NULL for unlimited (digital products); otherwise it only ever moves by these two
// conditional updates, so concurrent checkouts of the last item cannot both take it.

/**
 * Takes `quantity` of a product's stock if that many are left. Returns false when not enough are left (nothing
 * changed). Unlimited stock (NULL) always succeeds without a change.
 */
export async function takeStock(db: DbOrTrx, productId: string, quantity: number): Promise<boolean> {
  const res = await db
    .updateTable('products')
    .set({ stock: sql`stock - ${quantity}`, updatedAt: nowIso() })
    .where('id', '=', productId)
    .where('stock', 'is not', null)
    .where('stock', '>=', quantity)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 1) return true;
  const row = await db.selectFrom('products').select('stock').where('id', '=', productId).executeTakeFirst();
  return !!row && row.stock === null;
}

export async function returnStock(db: DbOrTrx, productId: string, quantity: number): Promise<void> {
  await db
    .updateTable('products')
    .set({ stock: sql`stock + ${quantity}`, updatedAt: nowIso() })
    .where('id', '=', productId)
    .where('stock', 'is not', null)
    .execute();
}

/** Products by id with what checkout and settlement need. */
export function productsByIds(db: DbOrTrx, ids: readonly string[]) {
  if (!ids.length) return Promise.resolve([]);
  return db.selectFrom('products').select(['id', 'name', 'type', 'price', 'stock', 'performerId']).where('id', 'in', [...ids]).execute();
}

// -----------------------------------------------------------------------------------------------------------------
// Entitlements: one row per (user, object) (entitlements_pk); a purchase opens its object while revoked_at is NULL.

/** Opens the object for the user through this payment; an entitlement revoked earlier comes back to life. */
export async function grantEntitlement(db: DbOrTrx, userId: string, objectType: EntitlementObjectType, objectId: string, paymentId: string): Promise<void> {
  await db
    .insertInto('entitlements')
    .values({ userId, objectType, objectId, paymentId, revokedAt: null, createdAt: nowIso() })
    .onConflict((oc) =>
      oc
        .columns(['userId', 'objectType', 'objectId'])
        .doUpdateSet({ paymentId: (eb) => eb.ref('excluded.paymentId'), revokedAt: null })
        .where('entitlements.revokedAt', 'is not', null),
    )
    .execute();
}

/** Revokes what this payment opened; returns the objects that were revoked. */
export async function revokeEntitlementsOf(db: DbOrTrx, paymentId: string): Promise<Array<{ userId: string; objectType: EntitlementObjectType; objectId: string }>> {
  const rows = await db
    .selectFrom('entitlements')
    .select(['userId', 'objectType', 'objectId'])
    .where('paymentId', '=', paymentId)
    .where('revokedAt', 'is', null)
    .execute();
  if (rows.length) {
    await db.updateTable('entitlements').set({ revokedAt: nowIso() }).where('paymentId', '=', paymentId).where('revokedAt', 'is', null).execute();
  }
  return rows;
}

/** Another paid (not reversed) payment of this user that bought the object, if any. */
export async function otherPaidPurchase(db: DbOrTrx, userId: string, objectType: EntitlementObjectType, objectId: string, exceptPaymentId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('paymentItems')
    .innerJoin('payments', 'payments.id', 'paymentItems.paymentId')
    .select('payments.id')
    .where('payments.userId', '=', userId)
    .where('payments.status', '=', 'success')
    .where('payments.id', '!=', exceptPaymentId)
    .where('paymentItems.objectType', '=', objectType)
    .where('paymentItems.objectId', '=', objectId)
    .orderBy('payments.paidAt')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/** Whether the user holds a live entitlement of the object. */
export async function hasEntitlement(db: DbOrTrx, userId: string, objectType: EntitlementObjectType, objectId: string): Promise<boolean> {
  const row = await db
    .selectFrom('entitlements')
    .select('userId')
    .where('userId', '=', userId)
    .where('objectType', '=', objectType)
    .where('objectId', '=', objectId)
    .where('revokedAt', 'is', null)
    .executeTakeFirst();
  return !!row;
}

/** Products by id with whether each is public now (0/1 or boolean) — the cart's checkout reads these. */
/** Products by id with whether each is public to the buyer `a` (a performer's country block included). */
export function productsForSale(db: DbOrTrx, ids: readonly string[], a: Audience) {
  if (!ids.length) return Promise.resolve([]);
  return db
    .selectFrom('products')
    .select(['id', 'name', 'type', 'price', 'stock', 'performerId', 'digitalFileId'])
    .select(productIsPublic(a).as('visible'))
    .where('id', 'in', [...ids])
    .execute();
}

/** Of these performers, the ones that may not sell: not approved by an admin, or not active. */
export async function performersNotSelling(db: DbOrTrx, performerIds: readonly string[]): Promise<string[]> {
  if (!performerIds.length) return [];
  const rows = await db
    .selectFrom('performers')
    .select('id')
    .where('id', 'in', [...performerIds])
    .where((eb) => eb.or([eb('approved', '!=', 1), eb('status', '!=', 'active')]))
    .execute();
  return rows.map((r) => r.id);
}
