import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures of the sandbox gateway, in the same shape real providers use (Stripe's `t=…,v1=…`):
 *
 *   x-sandbox-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
 *
 * The HMAC covers the raw bytes as received (never a re-serialised JSON), and the timestamp is part of what is
 * signed, so an old event cannot be replayed outside the tolerance window.
 */

export const SANDBOX_SIGNATURE_HEADER = 'x-sandbox-signature';
export const DEFAULT_TOLERANCE_SEC = 300;

export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

export function hmacHex(secret: string, timestamp: number, rawBody: Buffer | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/** The header value for a body, signed now (or at `timestamp`, unix seconds). */
export function signPayload(secret: string, rawBody: Buffer | string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${hmacHex(secret, timestamp, rawBody)}`;
}

/** Throws WebhookSignatureError unless `header` is a valid signature of `rawBody` made within the tolerance. */
export function verifySignature(
  secret: string,
  rawBody: Buffer,
  header: string | string[] | undefined,
  opts: { toleranceSec?: number; now?: number } = {},
): void {
  if (!secret) throw new WebhookSignatureError('Webhook secret is not configured');
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) throw new WebhookSignatureError('Missing signature');
  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(v)) timestamp = Number(v);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(v)) candidates.push(v.toLowerCase());
  }
  if (timestamp === undefined || candidates.length === 0) throw new WebhookSignatureError('Malformed signature');
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (opts.toleranceSec ?? DEFAULT_TOLERANCE_SEC)) throw new WebhookSignatureError('Signature timestamp outside the tolerance');
  const expected = Buffer.from(hmacHex(secret, timestamp, rawBody), 'hex');
  const ok = candidates.some((c) => {
    const given = Buffer.from(c, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!ok) throw new WebhookSignatureError('Signature mismatch');
}
