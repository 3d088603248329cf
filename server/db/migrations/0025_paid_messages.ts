import type { Kysely } from 'kysely';

/**
 * Paid messages (docs/product.md, Messages; server/messages/README.md, "Paid messages"): a performer may put a price on
 * a message that carries pictures or videos. Its text stays readable; its files open for the recipient once bought.
 *
 * messages.price: minor units, 0 for a free message. A mass message's copies carry their mass message's price
 * (mass_messages.price), so every recipient buys their own copy.
 * What was bought is an ordinary `entitlements` row of object type 'message' naming the message (the copy, for a mass
 * message), written by the settlement when the payment is paid and revoked by a refund, as for a post or a video: no
 * table of its own. The entitlements' key (user, object type, object id) already answers "did this recipient buy it".
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('price', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('mass_messages').addColumn('price', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('mass_messages').dropColumn('price').execute();
  await db.schema.alterTable('messages').dropColumn('price').execute();
}
