import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser } from '../helpers/sessions.js';

/**
 * How long what the accounts hand out lives: a verification link 48 hours, a reset link 1 hour (as the mail says), a
 * session 365 days with "remember me" and 1 day without; and how often a session's last-seen time is written (at most
 * every 5 minutes, so a busy session does not write on every request).
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe.each(engines)('session and token lifetimes on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, { env: { RATE_LIMIT_LOGIN_IP: '1000/60', RATE_LIMIT_LOGIN_ACCOUNT: '1000/60', RATE_LIMIT_EMAIL_ACCOUNT: '100/60', RATE_LIMIT_EMAIL_IP: '100/60', RATE_LIMIT_REGISTER_IP: '100/60' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** expires_at − created_at of the newest token of a user and purpose. */
  async function tokenLifetime(userId: string, purpose: 'verify-email' | 'reset-password'): Promise<number> {
    const row = await t.ctx.db.selectFrom('authTokens').select(['expiresAt', 'createdAt']).where('userId', '=', userId).where('purpose', '=', purpose).orderBy('createdAt', 'desc').executeTakeFirstOrThrow();
    return Date.parse(row.expiresAt) - Date.parse(row.createdAt);
  }
  const near = (ms: number, expected: number) => expect(Math.abs(ms - expected)).toBeLessThan(5_000);

  it('a verification link lives 48 hours, from sign-up and from a resend', async () => {
    const email = `life-${engine}@example.test`;
    const res = await t.api('/auth/users/register', { method: 'POST', json: { email, username: `life_${engine}`, name: 'Life', password: 'a-long-password-1', role: 'user', confirmAdult: true, acceptTerms: true } });
    expect(res.status).toBeLessThan(300);
    const user = await t.ctx.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    near(await tokenLifetime(user.id, 'verify-email'), 48 * HOUR);
    expect((await t.api('/auth/email-verification/resend', { method: 'POST', json: { email } })).status).toBeLessThan(300);
    const tokens = await t.ctx.db.selectFrom('authTokens').select('id').where('userId', '=', user.id).where('purpose', '=', 'verify-email').execute();
    expect(tokens.length).toBeGreaterThanOrEqual(2);
    near(await tokenLifetime(user.id, 'verify-email'), 48 * HOUR);
  });

  it('a reset link lives 1 hour', async () => {
    const user = await createUser(t.ctx.db, 'user');
    expect((await t.api('/auth/users/forgot', { method: 'POST', json: { email: user.email } })).status).toBeLessThan(300);
    near(await tokenLifetime(user.id, 'reset-password'), HOUR);
  });

  it('a session lives 365 days with "remember me" and 1 day without', async () => {
    const user = await createUser(t.ctx.db, 'user');
    await t.ctx.db.updateTable('users').set({ passwordHash: await import('../../server/auth/password.js').then((m) => m.hashPassword('a-long-password-2')) }).where('id', '=', user.id).execute();
    for (const [remember, lifetime] of [[true, 365 * DAY], [false, DAY]] as const) {
      const res = await t.api('/auth/login', { method: 'POST', json: { email: user.email, password: 'a-long-password-2', remember } });
      expect(res.status).toBe(200);
      const row = await t.ctx.db.selectFrom('sessions').select(['expiresAt', 'createdAt']).where('userId', '=', user.id).orderBy('createdAt', 'desc').executeTakeFirstOrThrow();
      near(Date.parse(row.expiresAt) - Date.parse(row.createdAt), lifetime);
    }
  });

  it('writes a session\'s last-seen time when it is unknown or older than 5 minutes, not on every request', async () => {
    const user = await createUser(t.ctx.db, 'user');
    const lastSeen = async () => (await t.ctx.db.selectFrom('sessions').select('lastSeenAt').where('userId', '=', user.id).executeTakeFirstOrThrow()).lastSeenAt;
    const setLastSeen = (at: string | null) => t.ctx.db.updateTable('sessions').set({ lastSeenAt: at as string }).where('userId', '=', user.id).execute();
    const me = async () => expect((await t.api('/users/me', { headers: user.headers })).status).toBe(200);

    const fourMinutesAgo = new Date(Date.now() - 4 * 60_000).toISOString();
    await setLastSeen(fourMinutesAgo);
    await me();
    expect(await lastSeen()).toBe(fourMinutesAgo);

    await setLastSeen(new Date(Date.now() - 6 * 60_000).toISOString());
    const before = Date.now();
    await me();
    expect(Date.parse((await lastSeen())!)).toBeGreaterThanOrEqual(before - 1_000);

    await setLastSeen(null);
    await me();
    expect(Date.parse((await lastSeen())!)).toBeGreaterThanOrEqual(before - 1_000);
  });
});
