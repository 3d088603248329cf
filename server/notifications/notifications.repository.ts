import type { Selectable, UpdateQueryBuilder, UpdateResult } from 'kysely';
import { cappedCount } from '../db/capped-count.js';
import { prepared } from '../db/prepared.js';
import { isSqlite } from '../catalogue/catalogue.repository.js';
import type { DbOrTrx } from '../db/database.js';
import type { Database, NotificationsTable } from '../db/schema.js';
import type { Cursor } from '../http/pagination.js';

/** SQL of notifications (`notifications`: read_at null = unread) and the email choices (`notification_preferences`, migration 0023). */

export type NotificationRow = Selectable<NotificationsTable>;

/** A new notification's own values: it starts unread, not mailed, not pushed. */
export type NewNotification = Pick<NotificationRow, 'id' | 'userId' | 'type' | 'payload' | 'createdAt' | 'thread'>;

export async function insertNotification(db: DbOrTrx, row: NewNotification): Promise<void> {
  await insertOne(db, row);
}

/** What writing a notification found for its mail: whether its batch's mail is out, and the person's choice for its type. */
export interface MailFacts {
  batched: boolean;
  /** The stored choice (undefined: never set). */
  choice: boolean | undefined;
}

/**
 * Writes a notification that may be mailed and answers, in the same statement, what deciding its mail needs: one
 * round trip where a write and two reads took three (every comment and message runs it). The reads see the table as
 * it was before this row, which they leave out anyway.
 */
export async function insertNotificationForMail(db: DbOrTrx, row: NewNotification, batch: MailBatch | null, batchSince: string): Promise<MailFacts> {
  const values = { ...row, since: batchSince };
  const [facts] = await (batch === null ? insertFacts.none(db, values) : 'thread' in batch ? insertFacts.thread(db, { ...values, thread: batch.thread }) : insertFacts.type(db, { ...values, type: batch.type }));
  return { batched: Number(facts?.batched) === 1, choice: facts?.emailChoice == null ? undefined : choiceIsOn(facts.emailChoice) };
}

// Every comment, message and tip runs these statements of notifying: each compiled once (server/db/prepared.ts).
const insertQuery = (db: DbOrTrx, v: NewNotification) => db.insertInto('notifications').values({ ...v, readAt: null, emailedAt: null, pushedAt: null });
const insertOne = prepared(['id', 'userId', 'type', 'payload', 'createdAt', 'thread'], insertQuery);
const NEW_ROW = ['id', 'userId', 'type', 'payload', 'createdAt', 'thread'] as const;
type NewRowValues = NewNotification & { since: string };
const withFacts = (db: DbOrTrx, v: NewRowValues, batch: MailBatch | null) =>
  insertQuery(db, { id: v.id, userId: v.userId, type: v.type, payload: v.payload, createdAt: v.createdAt, thread: v.thread }).returning((eb) => [
    eb.selectFrom('notificationPreferences as np').select('np.email').where('np.userId', '=', v.userId).where('np.type', '=', v.type).as('emailChoice'),
    batch === null ? eb.lit(0).as('batched') : eb.exists(mailedInBatch(db, { userId: v.userId, exceptId: v.id, since: v.since }, batch)).as('batched'),
  ]);
const insertFacts = {
  none: prepared(NEW_ROW, (db, v: NewRowValues) => withFacts(db, v, null)),
  thread: prepared([...NEW_ROW, 'since'], (db, v: NewRowValues) => withFacts(db, v, { thread: v.thread! })),
  type: prepared([...NEW_ROW, 'since'], (db, v: NewRowValues) => withFacts(db, v, { type: v.type })),
};

export async function unreadNotificationCount(db: DbOrTrx, userId: string): Promise<number> {
  const [row] = await unreadOf(db, { userId });
  return Number(row?.n ?? 0);
}

// Sent over the realtime connection when a notification arrives: compiled once (server/db/prepared.ts).
const unreadOf = prepared(['userId'], (db, { userId }) => unreadNotificationsQuery(db, userId));

/**
 * The query of unreadNotificationCount (the member header asks it with its other facts: server/users/users.repository.ts),
 * counting up to UNREAD_COUNT_CAP: it runs on every notification's push, so its cost stays bounded by the cap.
 */
export function unreadNotificationsQuery(db: DbOrTrx, userId: string) {
  return cappedCount(db, db.selectFrom('notifications').where('userId', '=', userId).where('readAt', 'is', null));
}

export async function notificationTotal(db: DbOrTrx, userId: string): Promise<number> {
  const row = await db.selectFrom('notifications').select((eb) => eb.fn.countAll<number>().as('n')).where('userId', '=', userId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** A page of the user's notifications, newest first (notifications_user_created), after `cursor` (created_at, id). */
export async function notificationPage(db: DbOrTrx, userId: string, limit: number, cursor?: Cursor): Promise<NotificationRow[]> {
  let q = db.selectFrom('notifications').selectAll().where('userId', '=', userId);
  if (cursor) {
    const v = String(cursor.v ?? '');
    q = q.where((eb) => eb.or([eb('createdAt', '<', v), eb.and([eb('createdAt', '=', v), eb('id', '<', cursor.id)])]));
  }
  return q.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** The user's notification by id; undefined when there is none or it is someone else's. */
export async function findOwnNotification(db: DbOrTrx, userId: string, id: string): Promise<NotificationRow | undefined> {
  return db.selectFrom('notifications').selectAll().where('id', '=', id).where('userId', '=', userId).executeTakeFirst();
}

/**
 * A notification with what its mail needs, in one statement: the recipient (null columns when gone) and their email
 * choice for its type (`emailChoice` undefined: never set, so on).
 */
export async function findNotificationToMail(db: DbOrTrx, id: string) {
  const row = await db
    .selectFrom('notifications as n')
    .leftJoin('users', 'users.id', 'n.userId')
    .leftJoin('performers', 'performers.id', 'n.userId')
    .selectAll('n')
    .select(['users.email', 'users.name', 'users.status', 'users.emailVerified', 'performers.displayName'])
    .select((eb) =>
      eb.selectFrom('notificationPreferences as np').select('np.email').whereRef('np.userId', '=', 'n.userId').whereRef('np.type', '=', 'n.type').as('emailChoice'),
    )
    .where('n.id', '=', id)
    .executeTakeFirst();
  return row && { ...row, emailChoice: row.emailChoice === null ? undefined : choiceIsOn(row.emailChoice) };
}

/**
 * Marks the user's unread notifications that `narrow` picks read at `at`: how many were. A row already read keeps its
 * first read time.
 */
async function markUnreadRead(db: DbOrTrx, userId: string, at: string, narrow: (qb: NotificationUpdate) => NotificationUpdate): Promise<number> {
  const r = await narrow(db.updateTable('notifications').set({ readAt: at }).where('userId', '=', userId).where('readAt', 'is', null)).executeTakeFirst();
  return Number(r.numUpdatedRows ?? 0);
}
type NotificationUpdate = UpdateQueryBuilder<Database, 'notifications', 'notifications', UpdateResult>;

/** Marks one of the user's notifications read. */
export async function markNotificationRead(db: DbOrTrx, userId: string, id: string, at: string): Promise<void> {
  await markUnreadRead(db, userId, at, (qb) => qb.where('id', '=', id));
}

/** Marks the user's unread notifications of one type and thread read (notifications_user_thread): how many were. */
export function markThreadNotificationsRead(db: DbOrTrx, userId: string, type: string, thread: string, at: string): Promise<number> {
  return markUnreadRead(db, userId, at, (qb) => qb.where('thread', '=', thread).where('type', '=', type));
}

/** Marks the user's unread notifications created up to `before` read: how many were. */
export function markAllNotificationsRead(db: DbOrTrx, userId: string, before: string, at: string): Promise<number> {
  return markUnreadRead(db, userId, at, (qb) => qb.where('createdAt', '<=', before));
}

/**
 * Claims the user's rows not yet pushed (created since `since`, newest `limit`), oldest first: one conditional UPDATE,
 * so of two pushes at once each row goes out with one of them. When it claims any, the same statement answers the
 * user's unread count (`unread`), which the push sends next; otherwise `unread` is undefined.
 *
 * On PostgreSQL a claim skips the rows another claim is locking (`for update skip locked`): that claim pushes them. Two
 * claims that waited for each other's rows deadlocked whenever their plans locked rows in different orders (a
 * performer written to by many fans at once: each wait lasted the server's deadlock_timeout, 1 s, and held a pooled
 * connection, so the whole site stalled for seconds; the loser's push was lost).
 */
export async function claimUnpushed(db: DbOrTrx, userId: string, since: string, at: string, limit: number): Promise<{ rows: NotificationRow[]; unread: number | undefined }> {
  const rows = await claimUnpushedOf(db, { userId, since, at, limit });
  rows.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
  return { rows: rows.map(({ unread: _, ...row }) => row), unread: rows.length ? Number(rows[0]!.unread) : undefined };
}

const claimUnpushedOf = prepared(['userId', 'since', 'at', 'limit'], (db, v: { userId: string; since: string; at: string; limit: number }) =>
  claimUnpushedQuery(db, v.userId, v.since, v.at, v.limit),
);

/** The statement of `claimUnpushed`: its rows found through notifications_unpushed (migration 0033). */
export function claimUnpushedQuery(db: DbOrTrx, userId: string, since: string, at: string, limit: number) {
  return db
    .updateTable('notifications')
    .set({ pushedAt: at })
    .where('id', 'in', (eb) => {
      const unpushed = eb.selectFrom('notifications').select('id').where('userId', '=', userId).where('pushedAt', 'is', null).where('createdAt', '>=', since).orderBy('createdAt', 'desc').limit(limit);
      // SQLite has one writer at a time and no row locks.
      return isSqlite(db) ? unpushed : unpushed.forUpdate().skipLocked();
    })
    .where('pushedAt', 'is', null)
    .returningAll()
    // PostgreSQL counts once per statement (an InitPlan); SQLite once per row claimed, usually the one just written.
    .returning(() => unreadNotificationsQuery(db, userId).as('unread'));
}

/**
 * Which rows a row's mail is batched with (notifications.service.ts, `mailBatchOf`): the user's rows of one thread (the
 * comments on one item), or all of the user's rows of one type (their messages, whichever conversation).
 */
export type MailBatch = { thread: string } | { type: string };

/**
 * Claims a notification's mail: sets `emailed_at` when it has none and, for a row in a batch, when no other unread
 * row of that batch was mailed since `batchSince`. False: already mailed, or batched with an earlier mail.
 */
export async function claimNotificationMail(db: DbOrTrx, row: Pick<NotificationRow, 'id' | 'userId'>, batch: MailBatch | null, at: string, batchSince: string): Promise<boolean> {
  let q = db.updateTable('notifications').set({ emailedAt: at }).where('id', '=', row.id).where('emailedAt', 'is', null);
  if (batch) {
    const mailed = mailedInBatch(db, { userId: row.userId, exceptId: row.id, since: batchSince }, batch);
    q = q.where(({ not, exists }) => not(exists(mailed)));
  }
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows ?? 0) > 0;
}

/**
 * The batching rule's one test: another unread row of the user's batch was mailed since `since`. The claim holds a
 * row's mail back while it is true, and a new row of such a batch gets no mail job at all (`insertNotificationForMail`).
 * A type's batch is found through notifications_mailed_unread (migration 0034), a thread's through
 * notifications_user_thread.
 */
function mailedInBatch(db: DbOrTrx, p: { userId: string; exceptId: string; since: string }, batch: MailBatch) {
  const q = db
    .selectFrom('notifications as other')
    .select('other.id')
    .where('other.userId', '=', p.userId)
    .where('other.id', '<>', p.exceptId)
    .where('other.readAt', 'is', null)
    .where('other.emailedAt', '>=', p.since);
  return 'thread' in batch ? q.where('other.thread', '=', batch.thread) : q.where('other.type', '=', batch.type);
}

/** Gives a claimed mail back (its sending failed: the retry claims it again). */
export async function releaseNotificationMail(db: DbOrTrx, id: string, at: string): Promise<void> {
  await db.updateTable('notifications').set({ emailedAt: null }).where('id', '=', id).where('emailedAt', '=', at).execute();
}

// -----------------------------------------------------------------------------------------------------------------
// Email choices

/** The types the user has set, each on (1) or off (0). */
export async function emailChoicesOf(db: DbOrTrx, userId: string): Promise<Map<string, boolean>> {
  const rows = await choicesOf(db, { userId });
  return new Map(rows.map((r) => [r.type, choiceIsOn(r.email)]));
}
const choicesOf = prepared(['userId'], (db, { userId }) => db.selectFrom('notificationPreferences').select(['type', 'email']).where('userId', '=', userId));

/** A `notification_preferences.email` flag as stored (0/1; PostgreSQL may hand it back as text). */
function choiceIsOn(email: number | string): boolean {
  return Number(email) === 1;
}

/** Sets one type's email choice (insert or update). */
export async function setEmailChoice(db: DbOrTrx, userId: string, type: string, email: boolean, at: string): Promise<void> {
  await db
    .insertInto('notificationPreferences')
    .values({ userId, type, email: email ? 1 : 0, updatedAt: at })
    .onConflict((oc) => oc.columns(['userId', 'type']).doUpdateSet({ email: email ? 1 : 0, updatedAt: at }))
    .execute();
}

/** A user's display name (a performer's stage name, else their name): the `actorName` of what they caused. */
export async function displayNameOf(db: DbOrTrx, userId: string): Promise<string | null> {
  const row = await db
    .selectFrom('users')
    .leftJoin('performers', 'performers.id', 'users.id')
    .select(['users.name', 'users.username', 'performers.displayName'])
    .where('users.id', '=', userId)
    .executeTakeFirst();
  return row ? row.displayName || row.name || row.username || null : null;
}

export async function userExists(db: DbOrTrx, userId: string): Promise<boolean> {
  return Boolean(await db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst());
}
