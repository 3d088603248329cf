import type { Insertable } from 'kysely';
import type { DbOrTrx } from '../../server/db/database.js';
import type { PerformersTable } from '../../server/db/schema.js';
import { newId, nowIso } from '../../server/db/ids.js';
import { hashToken, newSecretToken } from '../../server/auth/tokens.js';
import type { Role } from '../../common/enums.js';

export interface TestUser {
  id: string;
  username: string;
  email: string;
  role: Role;
  /** Session token, as the login endpoint would hand it out. */
  token: string;
  /** `{ authorization: 'Bearer <token>' }` for fetch. */
  headers: { authorization: string };
}

let counter = 0;

/**
 * A user of `role` with a live session, inserted directly (no password hashing, no HTTP): the fast way to act
 * as someone in API tests. A performer also gets its performers row (`performer` overrides its columns).
 */
export async function createUser(
  db: DbOrTrx,
  role: Role = 'user',
  opts: { username?: string; name?: string; status?: 'active' | 'suspended' | 'pending'; performer?: Partial<Insertable<PerformersTable>> } = {},
): Promise<TestUser> {
  const id = newId();
  const username = opts.username ?? `${role}${++counter}_${id.slice(-6)}`;
  const email = `${username}@example.test`;
  const now = nowIso();
  await db
    .insertInto('users')
    .values({ id, email, username, name: opts.name ?? username, passwordHash: 'not-a-real-hash', role, status: opts.status ?? 'active', emailVerified: 1, createdAt: now, updatedAt: now })
    .execute();
  if (role === 'performer') {
    await db
      .insertInto('performers')
      .values({ id, username, displayName: opts.name ?? username, status: 'active', approved: 1, createdAt: now, updatedAt: now, ...opts.performer })
      .execute();
  }
  const token = await createSession(db, id);
  return { id, username, email, role, token, headers: { authorization: `Bearer ${token}` } };
}

/** A new live session for an existing user; returns its token. */
export async function createSession(db: DbOrTrx, userId: string, ttlMs = 24 * 60 * 60 * 1000): Promise<string> {
  const token = newSecretToken();
  const now = nowIso();
  await db
    .insertInto('sessions')
    .values({ id: newId(), userId, tokenHash: hashToken(token), remember: 1, expiresAt: new Date(Date.now() + ttlMs).toISOString(), createdAt: now, lastSeenAt: now })
    .execute();
  return token;
}
