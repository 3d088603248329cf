import type { DbOrTrx } from '../db/database.js';
import type { AuthTokensTable } from '../db/schema.js';
import { newId, nowIso } from '../db/ids.js';
import { prepared } from '../db/prepared.js';
import type { AccountStatus, Role } from '../../common/enums.js';

/** Every SQL statement about sessions and mailed single-use tokens. Only SHA-256 hashes of tokens are stored. */

export type TokenPurpose = AuthTokensTable['purpose'];

export interface SessionRow {
  sessionId: string;
  lastSeenAt: string | null;
  /** When the session ends by itself (a kept session is not served past it). */
  expiresAt: string;
  id: string;
  role: Role;
  status: AccountStatus;
  email: string;
  name: string;
  username: string;
  avatarPath: string | null;
}

/**
 * A live session: not revoked, not expired, and its user not suspended or deleted. Every signed-in request asks it,
 * so it is compiled once (server/db/prepared.ts).
 */
export async function findLiveSession(db: DbOrTrx, tokenHash: string, now: string): Promise<SessionRow | undefined> {
  return (await liveSession(db, { tokenHash, now }))[0];
}

const liveSession = prepared(['tokenHash', 'now'], (db, { tokenHash, now }) =>
  db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.userId')
    .select([
      'sessions.id as sessionId',
      'sessions.lastSeenAt',
      'sessions.expiresAt',
      'users.id',
      'users.role',
      'users.status',
      'users.email',
      'users.name',
      'users.username',
      'users.avatarPath',
    ])
    .where('sessions.tokenHash', '=', tokenHash)
    .where('sessions.revokedAt', 'is', null)
    .where('sessions.expiresAt', '>', now)
    .where('users.status', 'not in', ['suspended', 'deleted']),
);

export async function insertSession(
  db: DbOrTrx,
  s: { userId: string; tokenHash: string; remember: boolean; expiresAt: string; ip: string | null; userAgent: string | null },
): Promise<string> {
  const id = newId();
  const now = nowIso();
  await db
    .insertInto('sessions')
    .values({ id, userId: s.userId, tokenHash: s.tokenHash, remember: s.remember ? 1 : 0, expiresAt: s.expiresAt, ip: s.ip, userAgent: s.userAgent, createdAt: now, lastSeenAt: now })
    .execute();
  return id;
}

export async function touchSession(db: DbOrTrx, sessionId: string, now: string): Promise<void> {
  await db.updateTable('sessions').set({ lastSeenAt: now }).where('id', '=', sessionId).execute();
}

export async function revokeSession(db: DbOrTrx, sessionId: string): Promise<void> {
  await db.updateTable('sessions').set({ revokedAt: nowIso() }).where('id', '=', sessionId).where('revokedAt', 'is', null).execute();
}

/** Ends every session of a user, except `keepSessionId` (the one changing its password stays signed in). */
export async function revokeUserSessions(db: DbOrTrx, userId: string, keepSessionId?: string): Promise<number> {
  let q = db.updateTable('sessions').set({ revokedAt: nowIso() }).where('userId', '=', userId).where('revokedAt', 'is', null);
  if (keepSessionId) q = q.where('id', '!=', keepSessionId);
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** Housekeeping at login: a user's expired or revoked sessions are of no further use. */
export async function deleteDeadSessions(db: DbOrTrx, userId: string, now: string): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where('userId', '=', userId)
    .where((eb) => eb.or([eb('expiresAt', '<=', now), eb('revokedAt', 'is not', null)]))
    .execute();
}

/** Issues a mailed token; older unused tokens of the same purpose stop working, so only the newest link is live. */
export async function insertAuthToken(db: DbOrTrx, t: { userId: string; purpose: TokenPurpose; tokenHash: string; expiresAt: string }): Promise<void> {
  const now = nowIso();
  await db.updateTable('authTokens').set({ usedAt: now }).where('userId', '=', t.userId).where('purpose', '=', t.purpose).where('usedAt', 'is', null).execute();
  await db.insertInto('authTokens').values({ id: newId(), ...t, usedAt: null, createdAt: now }).execute();
}

/** Uses up every unused token of a purpose: a password change or reset makes older reset links worthless. */
export async function revokeAuthTokens(db: DbOrTrx, userId: string, purpose: TokenPurpose): Promise<void> {
  await db.updateTable('authTokens').set({ usedAt: nowIso() }).where('userId', '=', userId).where('purpose', '=', purpose).where('usedAt', 'is', null).execute();
}

export function findAuthToken(db: DbOrTrx, tokenHash: string, purpose: TokenPurpose) {
  return db.selectFrom('authTokens').selectAll().where('tokenHash', '=', tokenHash).where('purpose', '=', purpose).executeTakeFirst();
}

/** Marks a token used; false when another request used it first (the conditional update makes it single-use under races). */
export async function consumeAuthToken(db: DbOrTrx, id: string, now: string): Promise<boolean> {
  const res = await db.updateTable('authTokens').set({ usedAt: now }).where('id', '=', id).where('usedAt', 'is', null).where('expiresAt', '>', now).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
