import type { Insertable } from 'kysely';
import type { DbOrTrx } from '../../server/db/database.js';
import type { PerformersTable } from '../../server/db/schema.js';
import { hashToken, newSecretToken } from '../../server/auth/tokens.js';
import { insertSession } from '../../server/auth/auth.repository.js';
import type { Role } from '../../common/enums.js';
import { makePerformer, makeUser } from '../../server/seed/factories.js';

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

/**
 * A user of `role` with a live session, inserted directly (no password hashing, no HTTP): the fast way to act
 * as someone in API tests. A performer also gets its performers row (`performer` overrides its columns). The rows
 * come from the factories (server/seed/factories.ts).
 */
export async function createUser(
  db: DbOrTrx,
  role: Role = 'user',
  opts: { username?: string; email?: string; name?: string; status?: 'active' | 'suspended' | 'pending'; performer?: Partial<Insertable<PerformersTable>> } = {},
): Promise<TestUser> {
  const { performer, ...account } = opts;
  const user = role === 'performer' ? (await makePerformer(db, { ...account, performer })).user : await makeUser(db, { ...account, role });
  const token = await createSession(db, user.id);
  return { id: user.id, username: user.username, email: user.email, role, token, headers: { authorization: `Bearer ${token}` } };
}

/** A new live session for an existing user; returns its token. */
export async function createSession(db: DbOrTrx, userId: string, ttlMs = 24 * 60 * 60 * 1000): Promise<string> {
  const token = newSecretToken();
  await insertSession(db, { userId, tokenHash: hashToken(token), remember: true, expiresAt: new Date(Date.now() + ttlMs).toISOString(), ip: null, userAgent: null });
  return token;
}
