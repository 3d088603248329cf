import { describe, expect, it } from 'vitest';
import { DEFAULT_TOLERANCE_SEC, hmacHex, signPayload, verifySignature, WebhookSignatureError } from '../../server/payments/signature.js';

/**
 * The webhook signature check on its own, part by part: how the header is read (`t=…,v1=…`, spaces, several v1
 * values, unknown parts), what makes it malformed, the replay window at its exact edges, and the error each case
 * gives. The API suite (tests/api/webhooks.test.ts) proves the route uses it.
 */
const secret = 'whsec_test';
const body = Buffer.from('{"id":"evt_1","type":"charge.paid"}');
const now = 1_800_000_000;
const good = hmacHex(secret, now, body);
const other = hmacHex('another secret', now, body);

const refusal = (header: string | string[] | undefined, opts: { toleranceSec?: number; now?: number; secret?: string } = {}) => {
  try {
    verifySignature(opts.secret ?? secret, body, header, { now, ...opts });
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookSignatureError);
    expect((err as Error).name).toBe('WebhookSignatureError');
    return (err as Error).message;
  }
};

describe('webhook signatures', () => {
  it('signs what it verifies: t, then v1 over "<t>.<raw body>"', () => {
    expect(signPayload(secret, body, now)).toBe(`t=${now},v1=${good}`);
    expect(refusal(signPayload(secret, body, now))).toBeNull();
    expect(good).toMatch(/^[0-9a-f]{64}$/);
    expect(hmacHex(secret, now, body)).not.toBe(hmacHex(secret, now + 1, body));
    expect(hmacHex(secret, now, body.toString())).toBe(good);
  });

  it('refuses without a secret or a header, naming which', () => {
    expect(refusal(`t=${now},v1=${good}`, { secret: '' })).toBe('Webhook secret is not configured');
    expect(refusal(undefined)).toBe('Missing signature');
    expect(refusal('')).toBe('Missing signature');
    expect(refusal([])).toBe('Missing signature');
  });

  it('reads the first of repeated headers, trims spaces and skips parts without "="', () => {
    expect(refusal([`t=${now},v1=${good}`, 'garbage'])).toBeNull();
    expect(refusal(['garbage', `t=${now},v1=${good}`])).toBe('Malformed signature');
    expect(refusal(` t = ${now} , v1 = ${good} `)).toBeNull();
    expect(refusal(`junk,t=${now},=x,v1=${good}`)).toBeNull();
    expect(refusal(`t=${now},v1=${good.toUpperCase()}`)).toBeNull();
  });

  it('is malformed without a numeric t or a 64-hex v1, whatever else it carries', () => {
    expect(refusal(`v1=${good}`)).toBe('Malformed signature');
    expect(refusal(`t=${now}`)).toBe('Malformed signature');
    expect(refusal(`t=${now}x,v1=${good}`)).toBe('Malformed signature');
    expect(refusal(`t=x${now},v1=${good}`)).toBe('Malformed signature');
    expect(refusal(`t=1234567890123,v1=${good}`)).toBe('Malformed signature');
    expect(refusal(`t=-${now},v1=${good}`)).toBe('Malformed signature');
    expect(refusal(`t=${now},v1=${good}0`)).toBe('Malformed signature');
    expect(refusal(`t=${now},v1=0${good}`)).toBe('Malformed signature');
    expect(refusal(`t=${now},v1=${good.slice(1)}`)).toBe('Malformed signature');
    expect(refusal(`t=${now},v1=${'g'.repeat(64)}`)).toBe('Malformed signature');
    // The right value under the wrong name counts for nothing.
    expect(refusal(`ts=${now},v1=${good}`)).toBe('Malformed signature');
    expect(refusal(`t=${now},v0=${good}`)).toBe('Malformed signature');
    expect(refusal(`x=${now},t=${now},v2=${good}`)).toBe('Malformed signature');
  });

  it('accepts when any v1 matches (a secret being rotated signs twice), refuses when none does', () => {
    expect(refusal(`t=${now},v1=${other},v1=${good}`)).toBeNull();
    expect(refusal(`t=${now},v1=${good},v1=${other}`)).toBeNull();
    expect(refusal(`t=${now},v1=${other}`)).toBe('Signature mismatch');
    expect(refusal(`t=${now + 1},v1=${good}`)).toBe('Signature mismatch');
    expect(refusal(`t=${now},v1=${good}`, { secret: 'whsec_other' })).toBe('Signature mismatch');
  });

  it('takes a timestamp up to the tolerance away, either side, and not one second more', () => {
    const at = (t: number, toleranceSec?: number) => refusal(signPayload(secret, body, t), toleranceSec === undefined ? {} : { toleranceSec });
    expect(at(now - DEFAULT_TOLERANCE_SEC)).toBeNull();
    expect(at(now + DEFAULT_TOLERANCE_SEC)).toBeNull();
    expect(at(now - DEFAULT_TOLERANCE_SEC - 1)).toBe('Signature timestamp outside the tolerance');
    expect(at(now + DEFAULT_TOLERANCE_SEC + 1)).toBe('Signature timestamp outside the tolerance');
    expect(at(now - 10, 10)).toBeNull();
    expect(at(now - 11, 10)).toBe('Signature timestamp outside the tolerance');
    expect(DEFAULT_TOLERANCE_SEC).toBe(300);
  });

  it('checks the clock with the real time when none is given', () => {
    const t = Math.floor(Date.now() / 1000);
    expect(() => verifySignature(secret, body, signPayload(secret, body, t))).not.toThrow();
    expect(() => verifySignature(secret, body, signPayload(secret, body, t - 3600))).toThrow('outside the tolerance');
  });
});
