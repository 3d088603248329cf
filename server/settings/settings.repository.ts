import type { DbOrTrx } from '../db/database.js';
import { nowIso } from '../db/ids.js';

export async function readAllSettings(db: DbOrTrx): Promise<Map<string, unknown>> {
  const rows = await db.selectFrom('settings').select(['key', 'value']).execute();
  return new Map(rows.map((r) => [r.key, JSON.parse(r.value) as unknown]));
}

export async function upsertSetting(db: DbOrTrx, key: string, value: unknown, group: string, isPublic: boolean): Promise<void> {
  const row = { key, value: JSON.stringify(value), group, public: isPublic ? 1 : 0, updatedAt: nowIso() };
  await db
    .insertInto('settings')
    .values(row)
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: row.value, updatedAt: row.updatedAt }))
    .execute();
}
