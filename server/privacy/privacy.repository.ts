import type { Selectable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { DataExportsTable } from '../db/schema.js';

/**
 * SQL of data rights (migration 0030; server/privacy/README.md): the `data_exports` rows, the reads that gather one
 * user's data for their export (every statement narrowed to that user's id: nothing here reads another user's rows
 * except as the counterpart of the user's own, a message they received, a tip to them), and the writes of an account
 * deletion that no other domain has a statement for (the tombstone, the erased texts). Counters, follows, reactions and
 * comments are removed through their own domains' statements (server/privacy/deletion.service.ts).
 */

export type DataExportRow = Selectable<DataExportsTable>;

// ---------------------------------------------------------------------------------------------------------------
// data_exports

export async function insertDataExport(db: DbOrTrx, row: { id: string; userId: string; at: string }): Promise<void> {
  await db.insertInto('dataExports').values({ id: row.id, userId: row.userId, status: 'queued', size: 0, createdAt: row.at, updatedAt: row.at }).execute();
}

export function findRunningExport(db: DbOrTrx, userId: string): Promise<DataExportRow | undefined> {
  return db.selectFrom('dataExports').selectAll().where('userId', '=', userId).where('status', 'in', ['queued', 'running']).executeTakeFirst();
}

export function findOwnExport(db: DbOrTrx, userId: string, id: string): Promise<DataExportRow | undefined> {
  return db.selectFrom('dataExports').selectAll().where('id', '=', id).where('userId', '=', userId).executeTakeFirst();
}

export function findExport(db: DbOrTrx, id: string): Promise<DataExportRow | undefined> {
  return db.selectFrom('dataExports').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listOwnExports(db: DbOrTrx, userId: string, limit: number): Promise<DataExportRow[]> {
  return db.selectFrom('dataExports').selectAll().where('userId', '=', userId).orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** queued → running (also a running one again: a job retried after its worker died); false when it is no longer either. */
export async function startExport(db: DbOrTrx, id: string, at: string): Promise<boolean> {
  const res = await db.updateTable('dataExports').set({ status: 'running', updatedAt: at }).where('id', '=', id).where('status', 'in', ['queued', 'running']).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function finishExport(db: DbOrTrx, id: string, f: { fileId: string; size: number; at: string; expiresAt: string }): Promise<boolean> {
  const res = await db
    .updateTable('dataExports')
    .set({ status: 'ready', fileId: f.fileId, size: f.size, readyAt: f.at, expiresAt: f.expiresAt, updatedAt: f.at, error: null })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function failExport(db: DbOrTrx, id: string, error: string, at: string): Promise<void> {
  await db.updateTable('dataExports').set({ status: 'failed', error: error.slice(0, 500), updatedAt: at }).where('id', '=', id).where('status', 'in', ['queued', 'running']).execute();
}

/** ready → expired, forgetting its file; answers the file's id when this call did it. */
export async function expireExport(db: DbOrTrx, id: string, at: string): Promise<string | null> {
  const row = await db.selectFrom('dataExports').select(['fileId', 'status']).where('id', '=', id).executeTakeFirst();
  if (!row || row.status !== 'ready') return null;
  const res = await db.updateTable('dataExports').set({ status: 'expired', fileId: null, updatedAt: at }).where('id', '=', id).where('status', '=', 'ready').executeTakeFirst();
  return Number(res.numUpdatedRows) === 1 ? row.fileId : null;
}

/** The export's file, for the protected media route: the export, its owner, whether it is still ready, the file. */
export function findExportFile(db: DbOrTrx, exportId: string, fileId: string) {
  return db
    .selectFrom('dataExports')
    .innerJoin('files', 'files.id', 'dataExports.fileId')
    .select(['dataExports.id', 'dataExports.userId', 'dataExports.status', 'dataExports.expiresAt', 'files.storageKey', 'files.status as fileStatus', 'files.originalName'])
    .where('dataExports.id', '=', exportId)
    .where('dataExports.fileId', '=', fileId)
    .executeTakeFirst();
}

/** Every export of a user that still has a file (an account deletion removes them): their file ids. */
export async function deleteExportsOf(db: DbOrTrx, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('dataExports').select('fileId').where('userId', '=', userId).execute();
  await db.deleteFrom('dataExports').where('userId', '=', userId).execute();
  return rows.map((r) => r.fileId).filter((id): id is string => Boolean(id));
}

/** Deletes files rows; answers their storage keys (the bytes go after the commit). */
export async function deleteFileRows(db: DbOrTrx, ids: string[]): Promise<string[]> {
  if (!ids.length) return [];
  const rows = await db.selectFrom('files').select('storageKey').where('id', 'in', ids).execute();
  await db.deleteFrom('files').where('id', 'in', ids).execute();
  return rows.map((r) => r.storageKey);
}

// ---------------------------------------------------------------------------------------------------------------
// The export's reads: one user's rows

export function exportAccount(db: DbOrTrx, userId: string) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'username', 'name', 'role', 'status', 'emailVerified', 'avatarPath', 'coverPath', 'country', 'bio', 'termsAcceptedAt', 'adultConfirmedAt', 'createdAt', 'updatedAt'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

/** Sessions' times and where from; never the token's hash. */
export function exportSessions(db: DbOrTrx, userId: string) {
  return db.selectFrom('sessions').select(['createdAt', 'lastSeenAt', 'expiresAt', 'revokedAt', 'remember', 'ip', 'userAgent']).where('userId', '=', userId).orderBy('createdAt').execute();
}

export function exportSubscriptions(db: DbOrTrx, userId: string) {
  return db
    .selectFrom('subscriptions')
    .select(['id', 'performerId', 'type', 'status', 'startedAt', 'expiresAt', 'cancelledAt', 'cancelAtPeriodEnd', 'autoRenew', 'renewalAmount', 'renewalCurrency', 'periodDays', 'gateway', 'createdAt'])
    .where('userId', '=', userId)
    .orderBy('createdAt')
    .execute();
}

export function exportPayments(db: DbOrTrx, userId: string) {
  return db
    .selectFrom('payments')
    .select(['id', 'performerId', 'type', 'status', 'gateway', 'originalPrice', 'discount', 'amount', 'refundedAmount', 'currency', 'shippingAddress', 'paidAt', 'reversedAt', 'createdAt'])
    .where('userId', '=', userId)
    .orderBy('createdAt')
    .execute();
}

export function exportPaymentItems(db: DbOrTrx, userId: string) {
  return db
    .selectFrom('paymentItems')
    .innerJoin('payments', 'payments.id', 'paymentItems.paymentId')
    .select(['paymentItems.id', 'paymentItems.paymentId', 'paymentItems.objectType', 'paymentItems.objectId', 'paymentItems.quantity', 'paymentItems.unitPrice', 'paymentItems.discount'])
    .where('payments.userId', '=', userId)
    .orderBy('paymentItems.id')
    .execute();
}

export function exportOrders(db: DbOrTrx, userId: string) {
  return db
    .selectFrom('orders')
    .select(['id', 'orderNumber', 'paymentId', 'performerId', 'status', 'deliveryStatus', 'shippingAddress', 'trackingCode', 'totalPrice', 'createdAt'])
    .where('buyerId', '=', userId)
    .orderBy('createdAt')
    .execute();
}

export function exportOrderItems(db: DbOrTrx, userId: string) {
  return db
    .selectFrom('orderItems')
    .innerJoin('orders', 'orders.id', 'orderItems.orderId')
    .select(['orderItems.id', 'orderItems.orderId', 'orderItems.productId', 'orderItems.name', 'orderItems.productType', 'orderItems.quantity', 'orderItems.unitPrice', 'orderItems.totalPrice'])
    .where('orders.buyerId', '=', userId)
    .orderBy('orderItems.id')
    .execute();
}

export function exportEntitlements(db: DbOrTrx, userId: string) {
  return db.selectFrom('entitlements').select(['objectType', 'objectId', 'paymentId', 'revokedAt', 'createdAt']).where('userId', '=', userId).orderBy('createdAt').execute();
}

export function exportTipsGiven(db: DbOrTrx, userId: string) {
  return db.selectFrom('tips').select(['id', 'paymentId', 'performerId', 'amount', 'contextType', 'contextId', 'note', 'createdAt']).where('userId', '=', userId).orderBy('createdAt').execute();
}

export function exportTipsReceived(db: DbOrTrx, performerId: string) {
  return db.selectFrom('tips').select(['id', 'paymentId', 'userId', 'amount', 'contextType', 'contextId', 'note', 'createdAt']).where('performerId', '=', performerId).orderBy('createdAt').execute();
}

export function exportComments(db: DbOrTrx, userId: string) {
  return db.selectFrom('comments').select(['id', 'objectType', 'objectId', 'content', 'imageFileId', 'status', 'createdAt', 'updatedAt']).where('userId', '=', userId).orderBy('createdAt').execute();
}

export function exportReactions(db: DbOrTrx, userId: string) {
  return db.selectFrom('reactions').select(['objectType', 'objectId', 'action', 'createdAt']).where('userId', '=', userId).orderBy('createdAt').execute();
}

export function exportFollows(db: DbOrTrx, userId: string) {
  return db.selectFrom('follows').select(['performerId', 'createdAt']).where('userId', '=', userId).orderBy('createdAt').execute();
}

/** Messages the user sent or received (`side`), with their attachments' references (never a storage key). */
export async function exportMessages(db: DbOrTrx, userId: string, side: 'sent' | 'received') {
  const column = side === 'sent' ? 'messages.senderId' : 'messages.recipientId';
  const messages = await db
    .selectFrom('messages')
    .select(['messages.id', 'messages.conversationId', 'messages.senderId', 'messages.recipientId', 'messages.body', 'messages.price', 'messages.createdAt', 'messages.readAt'])
    .where(column, '=', userId)
    .orderBy('messages.createdAt')
    .orderBy('messages.id')
    .execute();
  const attachments = await db
    .selectFrom('messageAttachments')
    .innerJoin('messages', 'messages.id', 'messageAttachments.messageId')
    .leftJoin('files', 'files.id', 'messageAttachments.fileId')
    .select(['messageAttachments.messageId', 'messageAttachments.fileId', 'messageAttachments.kind', 'messageAttachments.position', 'files.mime', 'files.size', 'files.originalName'])
    .where(column, '=', userId)
    .orderBy('messageAttachments.position')
    .execute();
  return { messages, attachments };
}

export function exportNotifications(db: DbOrTrx, userId: string) {
  return db.selectFrom('notifications').select(['id', 'type', 'payload', 'readAt', 'createdAt']).where('userId', '=', userId).orderBy('createdAt').execute();
}

export function exportNotificationPreferences(db: DbOrTrx, userId: string) {
  return db.selectFrom('notificationPreferences').select(['type', 'email', 'updatedAt']).where('userId', '=', userId).execute();
}

export function exportReports(db: DbOrTrx, userId: string) {
  return db.selectFrom('reports').select(['id', 'targetType', 'targetId', 'reason', 'details', 'status', 'outcome', 'createdAt', 'resolvedAt']).where('reporterId', '=', userId).orderBy('createdAt').execute();
}

export function exportPerformerProfile(db: DbOrTrx, performerId: string) {
  return db
    .selectFrom('performers')
    .select(['id', 'username', 'displayName', 'bio', 'monthlyPrice', 'yearlyPrice', 'trialDays', 'bundle3Bps', 'bundle6Bps', 'bundle12Bps', 'status', 'approved', 'gender', 'country', 'messagePolicy', 'createdAt', 'updatedAt'])
    .where('id', '=', performerId)
    .executeTakeFirst();
}

/** A performer's items' metadata (titles, texts, prices, dates), never their files. */
export async function exportPerformerItems(db: DbOrTrx, performerId: string) {
  const [videos, galleries, photos, products, posts] = await Promise.all([
    db.selectFrom('videos').select(['id', 'title', 'slug', 'description', 'status', 'access', 'price', 'duration', 'tags', 'publishedAt', 'createdAt', 'updatedAt']).where('performerId', '=', performerId).orderBy('createdAt').execute(),
    db.selectFrom('galleries').select(['id', 'title', 'slug', 'description', 'status', 'access', 'price', 'photoCount', 'tags', 'publishedAt', 'createdAt', 'updatedAt']).where('performerId', '=', performerId).orderBy('createdAt').execute(),
    db.selectFrom('photos').select(['id', 'galleryId', 'title', 'status', 'position', 'publishedAt', 'createdAt']).where('performerId', '=', performerId).orderBy('createdAt').execute(),
    db.selectFrom('products').select(['id', 'name', 'slug', 'description', 'type', 'status', 'price', 'stock', 'tags', 'publishedAt', 'createdAt', 'updatedAt']).where('performerId', '=', performerId).orderBy('createdAt').execute(),
    db.selectFrom('posts').select(['id', 'title', 'slug', 'excerpt', 'content', 'status', 'access', 'price', 'publishedAt', 'createdAt', 'updatedAt']).where('performerId', '=', performerId).orderBy('createdAt').execute(),
  ]);
  return { videos, galleries, photos, products, posts };
}

export function exportEarnings(db: DbOrTrx, performerId: string) {
  return db
    .selectFrom('earnings')
    .select(['id', 'paymentId', 'sourceType', 'entry', 'gross', 'commission', 'net', 'commissionBps', 'isPaid', 'paidAt', 'payoutId', 'testMoney', 'createdAt'])
    .where('performerId', '=', performerId)
    .orderBy('createdAt')
    .execute();
}

/** Payouts as recorded, with the masked view of the details only (never the encrypted ones). */
export function exportPayouts(db: DbOrTrx, performerId: string) {
  return db
    .selectFrom('payouts')
    .select(['id', 'amount', 'earningsCount', 'currency', 'status', 'method', 'detailsMasked', 'reference', 'reason', 'note', 'createdAt', 'approvedAt', 'paidAt', 'rejectedAt'])
    .where('performerId', '=', performerId)
    .orderBy('createdAt')
    .execute();
}

// ---------------------------------------------------------------------------------------------------------------
// Account deletion

/** How many admin accounts are active (a deletion must not leave the site without one). */
export async function activeAdminCount(db: DbOrTrx): Promise<number> {
  const row = await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).where('role', '=', 'admin').where('status', '=', 'active').executeTakeFirst();
  return Number(row?.n ?? 0);
}

export function findAccount(db: DbOrTrx, userId: string) {
  return db.selectFrom('users').select(['id', 'role', 'status', 'passwordHash', 'avatarPath', 'coverPath']).where('id', '=', userId).executeTakeFirst();
}

/**
 * The tombstone: the row stays (payments, orders, earnings point at it) with nothing personal left. The email and
 * username become placeholders unique to the id, so the address can sign up again; the password hash is emptied
 * (no password verifies against it).
 */
export async function tombstoneUser(db: DbOrTrx, userId: string, at: string): Promise<boolean> {
  const res = await db
    .updateTable('users')
    .set({
      email: `deleted-${userId.toLowerCase()}@deleted.invalid`,
      username: `deleted-${userId.toLowerCase()}`,
      name: 'Deleted account',
      passwordHash: '',
      status: 'deleted',
      emailVerified: 0,
      avatarPath: null,
      coverPath: null,
      country: null,
      bio: null,
      deletedAt: at,
      updatedAt: at,
    })
    .where('id', '=', userId)
    .where('status', '!=', 'deleted')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** A deleted performer's profile: not public any more, and nothing personal left on it. */
export async function erasePerformer(db: DbOrTrx, performerId: string, at: string): Promise<void> {
  await db
    .updateTable('performers')
    .set({ username: `deleted-${performerId.toLowerCase()}`, displayName: 'Deleted account', bio: null, gender: null, country: null, status: 'inactive', featured: 0, updatedAt: at })
    .where('id', '=', performerId)
    .execute();
  await db.deleteFrom('performerBlockedCountries').where('performerId', '=', performerId).execute();
}

/** A performer's posts leave the site (their other items follow the performer's status out of every list). */
export async function hidePerformerPosts(db: DbOrTrx, performerId: string, at: string): Promise<void> {
  await db.updateTable('posts').set({ status: 'hidden', updatedAt: at }).where('performerId', '=', performerId).execute();
}

/** Everything of the account that is only about the person and no one else's record. */
export async function deletePersonalRows(db: DbOrTrx, userId: string): Promise<void> {
  await db.deleteFrom('sessions').where('userId', '=', userId).execute();
  await db.deleteFrom('authTokens').where('userId', '=', userId).execute();
  await db.deleteFrom('notificationPreferences').where('userId', '=', userId).execute();
  await db.deleteFrom('notifications').where('userId', '=', userId).execute();
  await db.deleteFrom('payoutDetails').where('performerId', '=', userId).execute();
  await db.deleteFrom('performerBlocks').where('performerId', '=', userId).execute();
  // Their words in the reports they filed go; the report (what, why, outcome) stays for the moderation record.
  await db.updateTable('reports').set({ details: null }).where('reporterId', '=', userId).execute();
  // A tip's note is the fan's words; the tip (money) stays.
  await db.updateTable('tips').set({ note: null }).where('userId', '=', userId).execute();
}

export function reactionsOf(db: DbOrTrx, userId: string) {
  return db.selectFrom('reactions').select(['objectType', 'objectId', 'action']).where('userId', '=', userId).execute();
}

export async function followedBy(db: DbOrTrx, userId: string): Promise<string[]> {
  return (await db.selectFrom('follows').select('performerId').where('userId', '=', userId).execute()).map((r) => r.performerId);
}

export function commentsOf(db: DbOrTrx, userId: string) {
  return db.selectFrom('comments').select(['id', 'objectType', 'objectId', 'status', 'imageFileId']).where('userId', '=', userId).execute();
}

/**
 * The texts of the messages the user sent are emptied; the messages stay (the other participant's conversation keeps
 * its shape, a bought message keeps its purchase). Their attachments go, except those of a message its recipient
 * bought (paid for: kept for the buyer, as a purchase of an item is). Answers the removed attachments' file ids.
 */
export async function eraseSentMessages(db: DbOrTrx, userId: string): Promise<string[]> {
  await db.updateTable('messages').set({ body: '' }).where('senderId', '=', userId).execute();
  await db.updateTable('massMessages').set({ body: '' }).where('performerId', '=', userId).execute();
  const rows = await db
    .selectFrom('messageAttachments')
    .innerJoin('messages', 'messages.id', 'messageAttachments.messageId')
    .select(['messageAttachments.messageId', 'messageAttachments.fileId'])
    .where('messages.senderId', '=', userId)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('entitlements')
            .select('entitlements.objectId')
            .where('entitlements.objectType', '=', 'message')
            .whereRef('entitlements.objectId', '=', 'messages.id')
            .where('entitlements.revokedAt', 'is', null),
        ),
      ),
    )
    .execute();
  const messageIds = [...new Set(rows.map((r) => r.messageId))];
  for (let i = 0; i < messageIds.length; i += 500) {
    await db.deleteFrom('messageAttachments').where('messageId', 'in', messageIds.slice(i, i + 500)).execute();
  }
  // A mass message's copies share their files: a file goes only when no attachment row names it any more.
  const fileIds = [...new Set(rows.map((r) => r.fileId))];
  const stillUsed = new Set<string>();
  for (let i = 0; i < fileIds.length; i += 500) {
    const used = await db.selectFrom('messageAttachments').select('fileId').where('fileId', 'in', fileIds.slice(i, i + 500)).execute();
    for (const u of used) stillUsed.add(u.fileId);
  }
  return fileIds.filter((id) => !stillUsed.has(id));
}

/** Renewing subscriptions the user pays for, and (for a performer) those paid to them: each must stop renewing. */
export function subscriptionsToStop(db: DbOrTrx, userId: string) {
  return db
    .selectFrom('subscriptions')
    .select(['id', 'userId', 'performerId'])
    .where((eb) => eb.or([eb('userId', '=', userId), eb('performerId', '=', userId)]))
    .where('status', '=', 'active')
    .where('cancelAtPeriodEnd', '=', 0)
    .execute();
}
