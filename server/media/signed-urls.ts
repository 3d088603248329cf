import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Short-lived signed URLs for protected media (full videos, full photos, digital product files, a post's pictures and video,
 * a direct message's attachments, a user's data export, a performer's identity verification pictures: admins only).
 *
 *   /media/protected/<objectType>/<objectId>/<fileId>?u=<userId|guest>&e=<expiry, unix seconds>&s=<signature>
 *
 * The signature is HMAC-SHA256, keyed with a key derived from APP_SECRET for this one purpose, over
 * `v1 \n objectType \n objectId \n fileId \n u \n e`, base64url. A URL is bound to the user it was signed for
 * ("guest" for visitors) and to the item it belongs to, so the media route can check, on every request, the
 * signature, the expiry, that the session is that user's, and that the user may still open that item
 * (server/media/protected.routes.ts). Nothing in the URL is a storage path.
 */

export const PROTECTED_MEDIA_PREFIX = '/media/protected';
export const GUEST = 'guest';

/** Items whose full file is protected; the signed URL names the item so access is re-checked against it. */
export type ProtectedObjectType = 'video' | 'photo' | 'product' | 'post' | 'message' | 'export' | 'consent' | 'verification';
const objectTypes: readonly ProtectedObjectType[] = ['video', 'photo', 'product', 'post', 'message', 'export', 'consent', 'verification'];

export interface MediaGrant {
  objectType: ProtectedObjectType;
  objectId: string;
  fileId: string;
  /** The user the URL is for, or null for a guest. */
  userId: string | null;
  /** Unix seconds. */
  expiresAt: number;
}

export type VerifyResult =
  | { ok: true; grant: MediaGrant }
  | { ok: false; reason: 'malformed' | 'bad-signature' | 'expired' };

/** Ids, usernames and slugs: what may appear in a path segment of a signed URL. */
const SEGMENT = /^[A-Za-z0-9_.-]{1,100}$/;

export class MediaUrlSigner {
  private readonly key: Buffer;

  constructor(
    appSecret: string,
    /** Lifetime of a new URL, seconds. */
    readonly ttlSec: number,
  ) {
    if (!appSecret) throw new Error('appSecret is required to sign media URLs');
    if (!Number.isInteger(ttlSec) || ttlSec < 1) throw new Error(`MEDIA_URL_TTL_SEC must be a positive whole number of seconds, got ${ttlSec}`);
    // A key of its own, so a media signature can never be replayed as any other HMAC made with APP_SECRET.
    this.key = createHmac('sha256', appSecret).update('media-url-v1').digest();
  }

  /** A URL for `target`, valid for ttlSec from `now` (or until `expiresAt`, unix seconds, when given). */
  sign(
    target: { objectType: ProtectedObjectType; objectId: string; fileId: string },
    userId: string | null,
    opts: { now?: number; expiresAt?: number } = {},
  ): { url: string; expiresAt: string } {
    for (const part of [target.objectId, target.fileId, userId ?? GUEST]) {
      if (!SEGMENT.test(part)) throw new Error(`cannot sign a media URL with ${JSON.stringify(part)}`);
    }
    const exp = opts.expiresAt ?? Math.floor((opts.now ?? Date.now()) / 1000) + this.ttlSec;
    const u = userId ?? GUEST;
    const s = this.signature(target.objectType, target.objectId, target.fileId, u, exp);
    // Nothing to escape: u is a checked segment, exp digits, s base64url (as URLSearchParams would write them).
    return {
      url: `${PROTECTED_MEDIA_PREFIX}/${target.objectType}/${target.objectId}/${target.fileId}?u=${u}&e=${exp}&s=${s}`,
      expiresAt: new Date(exp * 1000).toISOString(),
    };
  }

  /** Checks the parts of a request to the protected media route; never throws. */
  verify(
    params: { objectType: string; objectId: string; fileId: string },
    query: { u?: unknown; e?: unknown; s?: unknown },
    now = Date.now(),
  ): VerifyResult {
    const { objectType, objectId, fileId } = params;
    const { u, e, s } = query;
    if (
      !objectTypes.includes(objectType as ProtectedObjectType) ||
      !SEGMENT.test(objectId) ||
      !SEGMENT.test(fileId) ||
      typeof u !== 'string' ||
      !SEGMENT.test(u) ||
      typeof e !== 'string' ||
      !/^\d{1,12}$/.test(e) ||
      typeof s !== 'string' ||
      !/^[A-Za-z0-9_-]{43}$/.test(s)
    ) {
      return { ok: false, reason: 'malformed' };
    }
    const exp = Number(e);
    const expected = Buffer.from(this.signature(objectType as ProtectedObjectType, objectId, fileId, u, exp), 'base64url');
    const given = Buffer.from(s, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'bad-signature' };
    if (exp * 1000 <= now) return { ok: false, reason: 'expired' };
    return { ok: true, grant: { objectType: objectType as ProtectedObjectType, objectId, fileId, userId: u === GUEST ? null : u, expiresAt: exp } };
  }

  private signature(objectType: ProtectedObjectType, objectId: string, fileId: string, u: string, exp: number): string {
    return createHmac('sha256', this.key).update(['v1', objectType, objectId, fileId, u, String(exp)].join('\n')).digest('base64url');
  }
}

const signers = new Map<string, MediaUrlSigner>();

/**
 * The signer for a configuration, made once per secret and lifetime: deriving its key is an HMAC, and every catalogue
 * request asks for the signer (made each time, it was about 2% of a signed-in list's CPU, measured by profile).
 */
export function mediaSigner(config: { appSecret: string; mediaUrlTtlSec: number }): MediaUrlSigner {
  const key = `${config.mediaUrlTtlSec}\n${config.appSecret}`;
  let signer = signers.get(key);
  if (!signer) signers.set(key, (signer = new MediaUrlSigner(config.appSecret, config.mediaUrlTtlSec)));
  return signer;
}
