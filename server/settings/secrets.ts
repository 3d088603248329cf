import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Secrets kept in the settings table (payment gateway keys) are stored encrypted: AES-256-GCM, the key derived
 * from APP_SECRET, a random 12-byte IV per value, the auth tag checked on read. Stored form: `enc:v1:<base64url of
 * iv | tag | ciphertext>`. A value without the prefix is read as plain text (set before encryption existed).
 * The API never returns a secret, only whether one is configured and where from.
 */

const PREFIX = 'enc:v1:';

function keyOf(appSecret: string): Buffer {
  return createHash('sha256').update(`settings-secrets-v1:${appSecret}`).digest();
}

export function encryptSecret(appSecret: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(appSecret), iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64url');
}

/** The plain secret; '' for an empty value or one that cannot be decrypted (APP_SECRET changed). */
export function decryptSecret(appSecret: string, stored: string | null | undefined): string {
  if (!stored) return '';
  if (!stored.startsWith(PREFIX)) return stored;
  try {
    const raw = Buffer.from(stored.slice(PREFIX.length), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyOf(appSecret), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return '';
  }
}

export function isEncrypted(stored: string | null | undefined): boolean {
  return Boolean(stored?.startsWith(PREFIX));
}
