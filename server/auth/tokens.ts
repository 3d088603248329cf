import { createHash, randomBytes } from 'node:crypto';

/** A secret handed to a client (session token, link in a mail): 32 random bytes, base64url (43 characters). */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Only this hash is stored, so a leaked database or backup holds no usable token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Rejects obviously malformed tokens before any database work. */
export function looksLikeToken(token: string | undefined | null): token is string {
  return typeof token === 'string' && token.length >= 20 && token.length <= 200 && /^[A-Za-z0-9_-]+$/.test(token);
}
