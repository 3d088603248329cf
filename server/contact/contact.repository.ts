import type { Insertable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { ContactsTable } from '../db/schema.js';

/** SQL of the contact form's messages (`contacts`). */

export async function insertContactMessage(db: DbOrTrx, row: Insertable<ContactsTable>): Promise<void> {
  await db.insertInto('contacts').values(row).execute();
}
