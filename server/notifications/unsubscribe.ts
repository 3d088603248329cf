import { createHmac, timingSafeEqual } from 'node:crypto';
import { notificationTypeSchema, type NotificationType } from '../../common/enums.js';

/**
 * The one-click unsubscribe link of a notification mail (RFC 8058): `<user id>.<type>.<signature>`, the signature an
 * HMAC-SHA256 of the user and the type under the app secret. No login and no expiry: it can only turn one type of
 * mail off for one person, which the person can turn on again on their account page. A changed user, type or
 * signature does not verify.
 */

const sign = (secret: string, userId: string, type: string) =>
  createHmac('sha256', secret).update(`notification-unsubscribe:${userId}:${type}`).digest('base64url');

export function unsubscribeToken(secret: string, userId: string, type: NotificationType): string {
  return `${userId}.${type}.${sign(secret, userId, type)}`;
}

/** The user and type a token names, or null when it is malformed or its signature does not match. */
export function readUnsubscribeToken(secret: string, token: string): { userId: string; type: NotificationType } | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [userId, rawType, signature] = parts as [string, string, string];
  const type = notificationTypeSchema.safeParse(rawType);
  if (!userId || !type.success) return null;
  const expected = Buffer.from(sign(secret, userId, type.data));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { userId, type: type.data };
}

/** The page a person opens from the mail (asks to confirm) and the address a mail client posts to (one click). */
export function unsubscribeLinks(publicUrl: string, apiBase: string, token: string): { page: string; oneClick: string } {
  const q = `token=${encodeURIComponent(token)}`;
  return { page: `${publicUrl}/notifications/unsubscribe?${q}`, oneClick: `${publicUrl}${apiBase}/notifications/unsubscribe?${q}` };
}

/** The RFC 8058 headers of a mail that can be unsubscribed from with one click. */
export function unsubscribeHeaders(oneClick: string): Record<string, string> {
  return { 'List-Unsubscribe': `<${oneClick}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}
