import { sql, type Insertable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { NewUser, PerformersTable, User, UserUpdate } from '../db/schema.js';
import { nowIso } from '../db/ids.js';
import { prepared } from '../db/prepared.js';
import { unreadMessagesQuery } from '../messages/messages.repository.js';
import { unreadNotificationsQuery } from '../notifications/notifications.repository.js';
import { holdsAnyAccessQuery } from '../access/access.repository.js';

/** Every SQL statement about users and their performer row. Emails and usernames are stored lower-cased. */

export function findUserById(db: DbOrTrx, id: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findUserByEmail(db: DbOrTrx, email: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
}

export function findUserByUsername(db: DbOrTrx, username: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('username', '=', username.trim().toLowerCase()).executeTakeFirst();
}

/** Login accepts either: an identifier with "@" is an email, anything else a username. */
export function findUserByLogin(db: DbOrTrx, identifier: string): Promise<User | undefined> {
  return identifier.includes('@') ? findUserByEmail(db, identifier) : findUserByUsername(db, identifier);
}

/** Whether a username is used by a user or by a performer row (the two share one namespace). */
export async function usernameTaken(db: DbOrTrx, username: string, exceptUserId?: string): Promise<boolean> {
  let users = db.selectFrom('users').select('id').where('username', '=', username);
  let performers = db.selectFrom('performers').select('id').where('username', '=', username);
  if (exceptUserId) {
    users = users.where('id', '!=', exceptUserId);
    performers = performers.where('id', '!=', exceptUserId);
  }
  const [u, p] = await Promise.all([users.executeTakeFirst(), performers.executeTakeFirst()]);
  return Boolean(u || p);
}

export async function insertUser(db: DbOrTrx, user: NewUser): Promise<void> {
  await db.insertInto('users').values(user).execute();
}

/** A performers row as given (the demo seed and the factories write whole rows; sign-up uses insertPerformerFor). */
export async function insertPerformer(db: DbOrTrx, row: Insertable<PerformersTable>): Promise<void> {
  await db.insertInto('performers').values(row).execute();
}

export async function insertPerformerFor(db: DbOrTrx, user: { id: string; username: string; name: string; createdAt: string }): Promise<void> {
  await db
    .insertInto('performers')
    .values({ id: user.id, username: user.username, displayName: user.name, status: 'active', approved: 0, createdAt: user.createdAt, updatedAt: user.createdAt })
    .execute();
}

export async function updateUser(db: DbOrTrx, id: string, changes: UserUpdate): Promise<void> {
  await db.updateTable('users').set({ ...changes, updatedAt: nowIso() }).where('id', '=', id).execute();
}

/** Keeps the performer row's public name and handle in step with the account. */
export async function updatePerformerIdentity(db: DbOrTrx, id: string, changes: { displayName?: string; username?: string }): Promise<void> {
  if (changes.displayName === undefined && changes.username === undefined) return;
  await db.updateTable('performers').set({ ...changes, updatedAt: nowIso() }).where('id', '=', id).execute();
}

export interface UserSearch {
  q?: string;
  role?: User['role'];
  status?: User['status'];
  limit: number;
  offset: number;
}

export async function searchUsers(db: DbOrTrx, q: UserSearch): Promise<{ rows: User[]; total: number }> {
  let query = db.selectFrom('users');
  if (q.q) {
    const like = `%${q.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where((eb) =>
      eb.or([
        eb(sql`lower(users.name)`, 'like', sql`${like} escape '\\'`),
        eb('users.username', 'like', sql<string>`${like} escape '\\'`),
        eb('users.email', 'like', sql<string>`${like} escape '\\'`),
      ]),
    );
  }
  if (q.role) query = query.where('users.role', '=', q.role);
  if (q.status) query = query.where('users.status', '=', q.status);
  const [rows, count] = await Promise.all([
    query.selectAll('users').orderBy('users.createdAt', 'desc').orderBy('users.id', 'desc').limit(q.limit).offset(q.offset).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Forgets the `files` record of a profile image that has just been replaced and deleted from storage (seeded pictures have one). */
export async function deleteFileRecordsByKey(db: DbOrTrx, ownerId: string, storageKey: string): Promise<void> {
  // owner_id first: it is indexed, storage_key is not.
  await db.deleteFrom('files').where('ownerId', '=', ownerId).where('storageKey', '=', storageKey).execute();
}

export interface MailContact {
  id: string;
  email: string;
  name: string;
  /** Set when the user is a performer: the name and address of their page. */
  displayName: string | null;
  username: string | null;
}

/** Who the money mails go to and name: each user's address and name, and their performer page where they have one. */
export async function mailContacts(db: DbOrTrx, ids: readonly string[]): Promise<Map<string, MailContact>> {
  if (!ids.length) return new Map();
  const rows = await db
    .selectFrom('users')
    .leftJoin('performers', 'performers.id', 'users.id')
    .select(['users.id', 'users.email', 'users.name', 'performers.displayName', 'performers.username'])
    .where('users.id', 'in', [...ids])
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * What the member header shows every signed-in page view besides who the visitor is: their unread messages and
 * notifications, and whether they hold any live subscription or purchase. Each is its module's own query, asked
 * together as one statement (three round trips were most of the header's cost on PostgreSQL), compiled once.
 */
export async function memberHeaderFacts(db: DbOrTrx, userId: string, now: string): Promise<{ messages: number; notifications: number; holdsAny: boolean }> {
  const [row] = await headerFacts(db, { userId, now });
  return { messages: Number(row?.messages ?? 0), notifications: Number(row?.notifications ?? 0), holdsAny: Boolean(row?.holds) };
}

const headerFacts = prepared(['userId', 'now'], (db, { userId, now }) => memberHeaderFactsQuery(db, userId, now));

/** The statement of memberHeaderFacts (exported for the EXPLAIN test). */
export function memberHeaderFactsQuery(db: DbOrTrx, userId: string, now: string) {
  return db.selectNoFrom([
    unreadMessagesQuery(db, userId).as('messages'),
    unreadNotificationsQuery(db, userId).as('notifications'),
    holdsAnyAccessQuery(db, userId, now).as('holds'),
  ]);
}
