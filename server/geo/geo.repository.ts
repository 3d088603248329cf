import type { DbOrTrx } from '../db/database.js';
import { nowIso } from '../db/ids.js';

/** SQL of the site-wide country blocks (`country_blocks`; the console lists them with admin.repository.ts). */

export async function blockedCountryCodes(db: DbOrTrx): Promise<string[]> {
  const rows = await db.selectFrom('countryBlocks').select('countryCode').execute();
  return rows.map((r) => r.countryCode);
}

export function findCountryBlock(db: DbOrTrx, countryCode: string) {
  return db.selectFrom('countryBlocks').selectAll().where('countryCode', '=', countryCode).executeTakeFirst();
}

/** Blocks a country; blocking it again changes nothing. */
export async function blockCountry(db: DbOrTrx, countryCode: string): Promise<void> {
  await db.insertInto('countryBlocks').values({ countryCode, createdAt: nowIso() }).onConflict((oc) => oc.column('countryCode').doNothing()).execute();
}

/** Unblocks a country; false when it was not blocked. */
export async function unblockCountry(db: DbOrTrx, countryCode: string): Promise<boolean> {
  const res = await db.deleteFrom('countryBlocks').where('countryCode', '=', countryCode).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
