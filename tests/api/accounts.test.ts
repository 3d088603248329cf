import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_POLICY_MESSAGE } from '../../server/auth/auth.schemas.js';
import { COUNTRY_MESSAGE } from '../../server/users/users.schemas.js';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { linkToken, MailCatcher } from '../helpers/mail-catcher.js';
import { waitInWords } from '../../common/plural.js';

/**
 * Accounts end to end over real HTTP, with mail delivered over real SMTP to a local catcher:
 * registration, verification, login and sessions, logout, password reset and change, profile,
 * public profiles, the admin search, avatar and cover uploads, and the abuse limits.
 */

const DAY = 24 * 60 * 60;
const redisUrl = process.env.REDIS_URL;
/** With REDIS_URL set, the limits and login-failure counters of every app below live in Redis (a fresh key prefix per app). */
const redisEnv: Record<string, string> = redisUrl ? { REDIS_URL: redisUrl } : {};
const catcher = new MailCatcher();

beforeAll(async () => {
  await catcher.start();
});
afterAll(async () => {
  await catcher.stop();
});

/** Generous limits for the functional tests; the limits themselves are tested with low ones below. */
const relaxedLimits = {
  RATE_LIMIT_LOGIN_IP: '1000/60',
  RATE_LIMIT_LOGIN_ACCOUNT: '1000/60',
  RATE_LIMIT_REGISTER_IP: '1000/60',
  RATE_LIMIT_REGISTER_ACCOUNT: '100/60',
  RATE_LIMIT_EMAIL_IP: '1000/60',
  RATE_LIMIT_EMAIL_ACCOUNT: '100/60',
  RATE_LIMIT_PASSWORD_CHANGE: '100/60',
  LOGIN_FAILURE_LIMIT: '3/60',
};

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** What the sign-up form sends once both boxes are ticked: 18 or older, terms accepted. */
const CONSENT = { confirmAdult: true, acceptTerms: true } as const;

interface SetCookie {
  name: string;
  value: string;
  attrs: Record<string, string | true>;
}

function parseSetCookies(headers: Headers): SetCookie[] {
  return headers.getSetCookie().map((line) => {
    const [pair, ...rest] = line.split(';').map((s) => s.trim());
    const eq = pair!.indexOf('=');
    const attrs: Record<string, string | true> = {};
    for (const a of rest) {
      const i = a.indexOf('=');
      if (i < 0) attrs[a.toLowerCase()] = true;
      else attrs[a.slice(0, i).toLowerCase()] = a.slice(i + 1);
    }
    return { name: pair!.slice(0, eq), value: pair!.slice(eq + 1), attrs };
  });
}

async function pngOf(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } }).png().toBuffer();
}

function formWith(...files: Array<{ bytes: Buffer | string; name: string; type: string }>): FormData {
  const form = new FormData();
  form.append('note', 'profile picture');
  for (const f of files) form.append('file', new Blob([typeof f.bytes === 'string' ? f.bytes : new Uint8Array(f.bytes)], { type: f.type }), f.name);
  return form;
}

describe.each(engines)('accounts API on %s', (engine) => {
  let t: TestApp;
  const fan = { name: 'Fan One', username: 'fan_one', email: `fan.${engine}@example.com`, password: 'fanpass123' };
  const perf = { name: 'Perf Star', username: 'perf_star', email: `perf.${engine}@example.com`, password: 'perfpass123' };
  const admin = { name: 'Admin Person', username: 'site_admin', email: `admin.${engine}@example.com`, password: 'adminpass123' };
  let fanId = '';
  let perfId = '';
  let adminToken = '';
  let fanVerifyToken = '';
  let perfVerifyToken = '';

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { SMTP_URL: catcher.smtpUrl, ...relaxedLimits, ...redisEnv } });
    expect(t.ctx.mailer.mode).toBe('smtp');
  });
  afterAll(async () => {
    await t?.close();
  });

  const login = (email: string, password: string, extra: Record<string, unknown> = {}) =>
    t.api('/auth/login', { method: 'POST', json: { email, password, ...extra } });

  async function tokenFor(email: string, password: string, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await login(email, password, extra);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.token as string;
  }

  const userCount = async () => Number((await t.ctx.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  describe('registration and email verification', () => {
    it('registers a fan (email folded to lower case) and mails a verification link over SMTP', async () => {
      const since = catcher.mark();
      const res = await t.api('/auth/users/register', {
        method: 'POST',
        json: { ...fan, ...CONSENT, email: `  Fan.${engine.toUpperCase()}@Example.COM `, username: 'Fan_One', role: 'user' },
      });
      expect(res.status).toBe(201);
      expect(res.body.message).toMatch(/check your inbox/i);
      expect(res.body.user).toMatchObject({ email: fan.email, username: 'fan_one', name: fan.name, role: 'user', emailVerified: false, avatar: '/no-avatar.png', cover: null });
      fanId = res.body.user._id;
      const row = await t.ctx.db.selectFrom('users').selectAll().where('id', '=', fanId).executeTakeFirstOrThrow();
      expect(row.email).toBe(fan.email);
      expect(row.passwordHash).toMatch(/^\$argon2id\$/);
      // The two confirmations of the form are recorded with the account.
      expect(Date.parse(row.termsAcceptedAt!)).toBeGreaterThan(Date.now() - 60_000);
      expect(row.adultConfirmedAt).toBe(row.termsAcceptedAt);

      const mail = await catcher.waitFor(fan.email, /verify your email/i, since);
      fanVerifyToken = linkToken(mail.text, t.url, '/auth/verify-email');
      expect(mail.html).toContain('/auth/verify-email?token=');
    });

    it('registers a performer with its performer row', async () => {
      const since = catcher.mark();
      const res = await t.api('/auth/users/register', { method: 'POST', json: { ...perf, ...CONSENT, role: 'performer' } });
      expect(res.status).toBe(201);
      expect(res.body.user).toMatchObject({ role: 'performer', username: perf.username, emailVerified: false });
      perfId = res.body.user._id;
      const row = await t.ctx.db.selectFrom('performers').selectAll().where('id', '=', perfId).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ username: perf.username, displayName: perf.name });
      perfVerifyToken = linkToken((await catcher.waitFor(perf.email, /verify your email/i, since)).text, t.url, '/auth/verify-email');
    });

    it('answers a duplicate email (any case) with the same 201 and creates nothing; the owner is told', async () => {
      const before = await userCount();
      const since = catcher.mark();
      const res = await t.api('/auth/users/register', {
        method: 'POST',
        json: { ...CONSENT, name: 'Impostor', username: 'impostor', email: fan.email.toUpperCase(), password: 'otherpass123', role: 'performer' },
      });
      expect(res.status).toBe(201);
      expect(res.body.message).toMatch(/check your inbox/i);
      expect(res.body.user).toMatchObject({ email: fan.email, role: 'performer', emailVerified: false });
      expect(await userCount()).toBe(before);
      expect(await t.ctx.db.selectFrom('users').select('id').where('username', '=', 'impostor').executeTakeFirst()).toBeUndefined();
      expect(await t.ctx.db.selectFrom('performers').select('id').where('username', '=', 'impostor').executeTakeFirst()).toBeUndefined();
      const mail = await catcher.waitFor(fan.email, /tried to sign up/i, since);
      expect(mail.text).toContain('No new account was created');
      // The original password still works: nothing about the account changed.
      expect((await login(fan.email, fan.password)).status).toBe(200);
    });

    it('answers 409 for a taken username (case-folded, shared with performers)', async () => {
      const before = await userCount();
      for (const username of [perf.username, 'FAN_ONE']) {
        const res = await t.api('/auth/users/register', { method: 'POST', json: { ...CONSENT, name: 'X', username, email: `new.${username}@example.com`, password: 'goodpass123', role: 'user' } });
        expect(res.status).toBe(409);
        expect(res.body).toMatchObject({ code: 'CONFLICT', message: 'This username is already taken.', details: { field: 'username' } });
      }
      expect(await userCount()).toBe(before);
    });

    it('rejects bad input with 400 and a clear message, creating nothing', async () => {
      const before = await userCount();
      const ok = { ...CONSENT, name: 'New Person', username: 'new_person', email: 'new.person@example.com', password: 'goodpass123', role: 'user' };
      const cases: Array<[unknown, RegExp | string]> = [
        [{ ...ok, password: 'short1' }, PASSWORD_POLICY_MESSAGE],
        [{ ...ok, password: 'onlyletters' }, PASSWORD_POLICY_MESSAGE],
        [{ ...ok, password: '1234567890' }, PASSWORD_POLICY_MESSAGE],
        [{ ...ok, password: 'a1'.repeat(65) }, PASSWORD_POLICY_MESSAGE],
        [{ ...ok, password: 12345678 }, /password/i],
        [{ ...ok, email: 'not-an-email' }, 'A valid email address is required'],
        [{ ...ok, email: undefined }, 'Email is required'],
        [{ ...ok, username: 'a b' }, /Username must be/],
        [{ ...ok, username: 'admin' }, 'This username is not available'],
        [{ ...ok, name: 'x'.repeat(101) }, 'Name must be at most 100 characters'],
        [{ ...ok, name: '   ' }, 'Name is required'],
        [{ ...ok, role: 'admin' }, 'Role must be "user" or "performer"'],
        [{}, /required/],
        [[ok], /Invalid/],
      ];
      for (const [json, message] of cases) {
        const res = await t.api('/auth/users/register', { method: 'POST', json });
        expect(res.status, JSON.stringify(json)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        if (typeof message === 'string') expect(res.body.message).toContain(message);
        else expect(res.body.message).toMatch(message);
        expect(Array.isArray(res.body.details)).toBe(true);
      }
      const badJson = await t.api('/auth/users/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":' });
      expect(badJson.status).toBe(400);
      expect(badJson.body.code).toEqual(expect.any(String));
      expect(await userCount()).toBe(before);
    });

    it('refuses a sign-up without the 18+ confirmation or the terms: 400 naming the box, nothing written, no mail', async () => {
      const before = await userCount();
      const since = catcher.mark();
      const ok = { ...CONSENT, name: 'Young Person', username: 'young_one', email: `young.${engine}@example.com`, password: 'goodpass123', role: 'user' };
      const cases: Array<[Record<string, unknown>, string[]]> = [
        [{ ...ok, confirmAdult: undefined }, ['confirmAdult']],
        [{ ...ok, confirmAdult: false }, ['confirmAdult']],
        [{ ...ok, acceptTerms: undefined }, ['acceptTerms']],
        [{ ...ok, acceptTerms: 'true' }, ['acceptTerms']],
        [{ ...ok, confirmAdult: 1, acceptTerms: false }, ['confirmAdult', 'acceptTerms']],
      ];
      for (const [json, fields] of cases) {
        const res = await t.api('/auth/users/register', { method: 'POST', json });
        expect(res.status, JSON.stringify(json)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(res.body.details.map((d: { path: string }) => d.path.replace(/^body\./, '')).sort()).toEqual([...fields].sort());
        expect(res.body.message).toMatch(fields.includes('confirmAdult') ? /18 or older/ : /accept the terms/);
      }
      expect(await userCount()).toBe(before);
      expect(await t.ctx.db.selectFrom('users').select('id').where('username', '=', 'young_one').executeTakeFirst()).toBeUndefined();
      expect(catcher.mails.slice(since).filter((m) => m.to.includes(ok.email))).toEqual([]);
    });

    it('carries a same-site next path into the verification link; any other next is a 400', async () => {
      const base = { ...CONSENT, name: 'Next Person', password: 'goodpass123', role: 'user' };
      for (const next of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', 'videos/x', `/${'a'.repeat(600)}`, '/x\nSet-Cookie: a=b']) {
        const res = await t.api('/auth/users/register', { method: 'POST', json: { ...base, username: 'next_bad', email: `next.bad.${engine}@example.com`, next } });
        expect(res.status, next).toBe(400);
        expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(['body.next']);
      }
      expect(await t.ctx.db.selectFrom('users').select('id').where('username', '=', 'next_bad').executeTakeFirst()).toBeUndefined();

      const since = catcher.mark();
      const email = `next.ok.${engine}@example.com`;
      const res = await t.api('/auth/users/register', { method: 'POST', json: { ...base, username: 'next_ok', email, next: '/videos/abc?x=1' } });
      expect(res.status).toBe(201);
      const mail = await catcher.waitFor(email, /verify your email/i, since);
      const link = new URL(mail.text.match(/https?:\/\/\S+\/auth\/verify-email\?\S+/)![0]);
      expect(link.searchParams.get('next')).toBe('/videos/abc?x=1');
      expect(link.searchParams.get('token')).toMatch(/\S{20,}/);
    });

    it('verifies the email with the mailed token, once', async () => {
      const res = await t.api('/auth/email-verification', { method: 'POST', json: { token: fanVerifyToken } });
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Your email address has been verified.');
      const token = await tokenFor(fan.email, fan.password);
      expect((await t.api('/users/me', { headers: bearer(token) })).body.emailVerified).toBe(true);

      const reuse = await t.api('/auth/email-verification', { method: 'POST', json: { token: fanVerifyToken } });
      expect(reuse.status).toBe(400);
      expect(reuse.body).toMatchObject({ code: 'TOKEN_USED', message: expect.stringMatching(/already been used/) });

      const garbage = await t.api('/auth/email-verification', { method: 'POST', json: { token: 'x'.repeat(43) } });
      expect(garbage.status).toBe(400);
      expect(garbage.body.code).toBe('TOKEN_INVALID');
      const malformed = await t.api('/auth/email-verification', { method: 'POST', json: { token: 'bad token!' } });
      expect(malformed.body.code).toBe('TOKEN_INVALID');
      const missing = await t.api('/auth/email-verification', { method: 'POST', json: {} });
      expect(missing.status).toBe(400);
      expect(missing.body.code).toBe('VALIDATION_FAILED');
    });

    it('resends a new link (the old one stops working) and answers the same for any email', async () => {
      const since = catcher.mark();
      const answers = [];
      for (const email of [perf.email.toUpperCase(), fan.email, `nobody.${engine}@example.com`]) {
        const res = await t.api('/auth/email-verification/resend', { method: 'POST', json: { email } });
        answers.push({ status: res.status, body: res.body });
      }
      expect(answers[0]!.status).toBe(200);
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);

      const mail = await catcher.waitFor(perf.email, /verify your email/i, since);
      const fresh = linkToken(mail.text, t.url, '/auth/verify-email');
      await t.ctx.mailer.flush();
      // Verified and unknown addresses get nothing.
      expect(catcher.find(fan.email, undefined, since)).toHaveLength(0);
      expect(catcher.find(`nobody.${engine}@example.com`, undefined, since)).toHaveLength(0);

      const old = await t.api('/auth/email-verification', { method: 'POST', json: { token: perfVerifyToken } });
      expect(old.status).toBe(400);
      expect((await t.api('/auth/email-verification', { method: 'POST', json: { token: fresh } })).status).toBe(200);

      const bad = await t.api('/auth/email-verification/resend', { method: 'POST', json: { email: 'nope' } });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('VALIDATION_FAILED');
    });
  });

  describe('login, cookies and sessions', () => {
    it('logs in by email (any case) or username; wrong password and unknown email get the same 400', async () => {
      const byEmail = await login(fan.email.toUpperCase(), fan.password);
      expect(byEmail.status).toBe(200);
      expect(byEmail.body).toMatchObject({ token: expect.any(String), expiresAt: expect.any(String), user: { _id: fanId, email: fan.email } });
      expect(byEmail.headers.get('cache-control')).toBe('no-store');
      const byUsername = await login('Fan_One', fan.password);
      expect(byUsername.status).toBe(200);
      expect(byUsername.body.token).not.toBe(byEmail.body.token);

      const wrong = await login(fan.email, 'wrongpass123');
      const unknown = await login(`ghost.${engine}@example.com`, 'wrongpass123');
      const unknownUser = await login('ghost_user', 'wrongpass123');
      expect(wrong.status).toBe(400);
      expect(wrong.body).toEqual({ message: 'Incorrect credentials!', code: 'INVALID_CREDENTIALS' });
      expect(unknown.status).toBe(400);
      expect(unknown.body).toEqual(wrong.body);
      expect(unknownUser.body).toEqual(wrong.body);
      expect(wrong.headers.getSetCookie()).toHaveLength(0);

      for (const json of [{ email: fan.email }, { password: 'x' }, { email: fan.email, password: 5 }, { email: fan.email, password: 'x', remember: 'yes' }]) {
        const res = await t.api('/auth/login', { method: 'POST', json });
        expect(res.status, JSON.stringify(json)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
      }
      // A successful login clears the failure count.
      expect((await login(fan.email, fan.password)).status).toBe(200);
    });

    it('sets an HttpOnly, SameSite=Lax token cookie for 365 days, or 1 day with remember:false', async () => {
      const long = await login(fan.email, fan.password);
      const [cookie] = parseSetCookies(long.headers).filter((c) => c.name === 'token');
      expect(cookie).toBeDefined();
      expect(cookie!.value).toBe(long.body.token);
      expect(cookie!.attrs).toMatchObject({ httponly: true, path: '/', 'max-age': String(365 * DAY) });
      expect(String(cookie!.attrs.samesite).toLowerCase()).toBe('lax');
      expect(cookie!.attrs.secure).toBeUndefined(); // plain http here
      const expires = Date.parse(String(cookie!.attrs.expires));
      expect(Math.abs(expires - (Date.now() + 365 * DAY * 1000))).toBeLessThan(60_000);
      expect(Math.abs(Date.parse(long.body.expiresAt) - (Date.now() + 365 * DAY * 1000))).toBeLessThan(60_000);

      const short = await login(fan.email, fan.password, { remember: false });
      const [shortCookie] = parseSetCookies(short.headers).filter((c) => c.name === 'token');
      expect(shortCookie!.attrs['max-age']).toBe(String(DAY));
      expect(Math.abs(Date.parse(short.body.expiresAt) - (Date.now() + DAY * 1000))).toBeLessThan(60_000);
      const session = await t.ctx.db.selectFrom('sessions').selectAll().where('expiresAt', '=', short.body.expiresAt).executeTakeFirstOrThrow();
      expect(session.remember).toBe(0);
      // Only the hash of the token is stored.
      expect(session.tokenHash).not.toContain(short.body.token);
    });

    it('accepts the token as Bearer or cookie; cookie-authenticated unsafe requests must come from this site', async () => {
      const token = await tokenFor(fan.email, fan.password);
      expect((await t.api('/users/me')).status).toBe(401);
      expect((await t.api('/users/me')).body.code).toBe('UNAUTHORIZED');
      expect((await t.api('/users/me', { headers: bearer('x'.repeat(43)) })).status).toBe(401);
      expect((await t.api('/users/me', { headers: { cookie: 'token=nonsense' } })).status).toBe(401);

      const viaBearer = await t.api('/users/me', { headers: bearer(token) });
      expect(viaBearer.status).toBe(200);
      expect(viaBearer.body._id).toBe(fanId);
      expect((await t.api('/users/me', { headers: { authorization: token } })).status).toBe(200);
      const viaCookie = await t.api('/users/me', { headers: { cookie: `token=${token}` } });
      expect(viaCookie.status).toBe(200); // safe method: no Origin needed

      const put = (headers: Record<string, string>) => t.api('/users', { method: 'PUT', headers, json: { bio: 'hello' } });
      const noOrigin = await put({ cookie: `token=${token}` });
      expect(noOrigin.status).toBe(403);
      expect(noOrigin.body.code).toBe('CSRF_REJECTED');
      expect((await put({ cookie: `token=${token}`, origin: 'http://evil.example' })).status).toBe(403);
      expect((await put({ cookie: `token=${token}`, referer: 'http://evil.example/page' })).status).toBe(403);
      expect((await put({ cookie: `token=${token}`, origin: 'null' })).status).toBe(403);
      expect((await put({ cookie: `token=${token}`, origin: t.url })).status).toBe(200);
      expect((await put({ cookie: `token=${token}`, referer: `${t.url}/account/profile` })).status).toBe(200);
      // Bearer requests are not sent by browsers on their own: no Origin needed.
      expect((await put(bearer(token))).status).toBe(200);
    });

    it('logout revokes the token on the server and clears the cookie', async () => {
      const token = await tokenFor(fan.email, fan.password);
      const res = await t.api('/auth/logout', { method: 'POST', headers: bearer(token) });
      expect(res.status).toBe(204);
      const [cleared] = parseSetCookies(res.headers).filter((c) => c.name === 'token');
      expect(cleared).toBeDefined();
      expect(cleared!.value).toBe('');
      expect(Date.parse(String(cleared!.attrs.expires))).toBeLessThan(Date.now());
      expect((await t.api('/users/me', { headers: bearer(token) })).status).toBe(401);
      expect((await t.api('/users/me', { headers: { cookie: `token=${token}` } })).status).toBe(401);
      // Without a session it still answers 204.
      expect((await t.api('/auth/logout', { method: 'POST' })).status).toBe(204);
      // Cookie logout obeys the Origin rule.
      const cookieToken = await tokenFor(fan.email, fan.password);
      expect((await t.api('/auth/logout', { method: 'POST', headers: { cookie: `token=${cookieToken}` } })).status).toBe(403);
      expect((await t.api('/auth/logout', { method: 'POST', headers: { cookie: `token=${cookieToken}`, origin: t.url } })).status).toBe(204);
      expect((await t.api('/users/me', { headers: { cookie: `token=${cookieToken}` } })).status).toBe(401);
    });

    it('locks an account after repeated failed logins (429 with Retry-After), by email or username', async () => {
      const locky = { name: 'Locky', username: 'locky', email: `locky.${engine}@example.com`, password: 'lockypass123' };
      expect((await t.api('/auth/users/register', { method: 'POST', json: { ...locky, ...CONSENT, role: 'user' } })).status).toBe(201);
      for (let i = 0; i < 3; i++) expect((await login(i % 2 ? locky.username : locky.email, 'wrongpass123')).status).toBe(400);
      for (const id of [locky.email, locky.username]) {
        const res = await login(id, locky.password);
        expect(res.status).toBe(429);
        expect(res.body.code).toBe('RATE_LIMITED');
        const retry = Number(res.headers.get('retry-after'));
        expect(retry).toBeGreaterThan(0);
        expect(retry).toBeLessThanOrEqual(60);
        // The wait in words is the Retry-After the client is given.
        expect(res.body.message).toBe(`Too many failed login attempts. Please try again in ${waitInWords(retry)}.`);
      }
      // Unknown identifiers lock the same way, so the lock does not tell whether an account exists.
      for (let i = 0; i < 3; i++) expect((await login(`ghost2.${engine}@example.com`, 'wrongpass123')).status).toBe(400);
      expect((await login(`ghost2.${engine}@example.com`, 'wrongpass123')).status).toBe(429);
      // Other accounts are not affected.
      expect((await login(fan.email, fan.password)).status).toBe(200);
    });
  });

  describe('password reset and change', () => {
    it('forgot password: same answer for any email, a mailed single-use link that signs out every session', async () => {
      const sessionA = await tokenFor(perf.email, perf.password);
      const sessionB = await tokenFor(perf.username, perf.password, { remember: false });
      const since = catcher.mark();
      const known = await t.api('/auth/users/forgot', { method: 'POST', json: { email: perf.email.toUpperCase() } });
      const unknown = await t.api('/auth/users/forgot', { method: 'POST', json: { email: `nobody.${engine}@example.com` } });
      expect(known.status).toBe(200);
      expect(known.body.message).toMatch(/valid for 1 hour/);
      expect(unknown).toMatchObject({ status: known.status, body: known.body });

      const mail = await catcher.waitFor(perf.email, /reset your/i, since);
      const token = linkToken(mail.text, t.url, '/auth/reset-password');
      await t.ctx.mailer.flush();
      expect(catcher.find(`nobody.${engine}@example.com`, undefined, since)).toHaveLength(0);

      // Bad input does not use the token up.
      const weak = await t.api('/auth/users/reset-password', { method: 'POST', json: { token, password: 'weak' } });
      expect(weak.status).toBe(400);
      expect(weak.body.message).toContain(PASSWORD_POLICY_MESSAGE);
      expect((await t.api('/auth/users/reset-password', { method: 'POST', json: { password: 'newperf123' } })).status).toBe(400);
      const invalid = await t.api('/auth/users/reset-password', { method: 'POST', json: { token: 'y'.repeat(43), password: 'newperf123' } });
      expect(invalid.body.code).toBe('TOKEN_INVALID');

      const reset = await t.api('/auth/users/reset-password', { method: 'POST', json: { token, password: 'newperf123' } });
      expect(reset.status).toBe(200);
      expect(reset.body.message).toMatch(/password has been changed/i);
      expect((await t.api('/users/me', { headers: bearer(sessionA) })).status).toBe(401);
      expect((await t.api('/users/me', { headers: bearer(sessionB) })).status).toBe(401);
      expect((await login(perf.email, perf.password)).status).toBe(400);
      perf.password = 'newperf123';
      expect((await login(perf.email, perf.password)).status).toBe(200);

      const reuse = await t.api('/auth/users/reset-password', { method: 'POST', json: { token, password: 'another123' } });
      expect(reuse.status).toBe(400);
      expect(reuse.body.code).toBe('TOKEN_USED');
      expect((await login(perf.email, perf.password)).status).toBe(200);

      const bad = await t.api('/auth/users/forgot', { method: 'POST', json: { email: 42 } });
      expect(bad.status).toBe(400);
    });

    it('refuses an expired reset token with TOKEN_EXPIRED', async () => {
      const since = catcher.mark();
      expect((await t.api('/auth/users/forgot', { method: 'POST', json: { email: perf.email } })).status).toBe(200);
      const token = linkToken((await catcher.waitFor(perf.email, /reset your/i, since)).text, t.url, '/auth/reset-password');
      await t.ctx.db
        .updateTable('authTokens')
        .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
        .where('userId', '=', perfId)
        .where('purpose', '=', 'reset-password')
        .where('usedAt', 'is', null)
        .execute();
      const res = await t.api('/auth/users/reset-password', { method: 'POST', json: { token, password: 'expired123' } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'TOKEN_EXPIRED', message: expect.stringMatching(/expired/) });
      expect((await login(perf.email, perf.password)).status).toBe(200);
    });

    it('change password: checks the current one, keeps this session, signs out the others', async () => {
      const current = await tokenFor(fan.email, fan.password);
      const other = await tokenFor(fan.username, fan.password);
      const change = (json: unknown, headers: Record<string, string> = bearer(current)) => t.api('/auth/users/me/password', { method: 'PUT', headers, json });

      expect((await change({ password: 'newfan1234', currentPassword: fan.password }, {})).status).toBe(401);
      const wrong = await change({ password: 'newfan1234', currentPassword: 'nottheone1' });
      expect(wrong.status).toBe(400);
      expect(wrong.body).toMatchObject({ code: 'WRONG_PASSWORD', message: 'Your current password is incorrect.' });
      const weak = await change({ password: 'weak', currentPassword: fan.password });
      expect(weak.status).toBe(400);
      expect(weak.body.message).toContain(PASSWORD_POLICY_MESSAGE);
      expect((await change({ currentPassword: fan.password })).status).toBe(400);
      expect((await change({ password: 'newfan1234', currentPassword: fan.password, source: 'nope' })).status).toBe(400);
      const asPerformer = await change({ password: 'newfan1234', currentPassword: fan.password, source: 'performer' });
      expect(asPerformer.status).toBe(400);
      expect(asPerformer.body.message).toMatch(/performer/);
      expect((await t.api('/users/me', { headers: bearer(other) })).status).toBe(200);

      const ok = await change({ password: 'newfan1234', currentPassword: fan.password, source: 'user' });
      expect(ok.status).toBe(200);
      expect(ok.body.message).toMatch(/Other devices have been signed out/);
      expect((await t.api('/users/me', { headers: bearer(current) })).status).toBe(200);
      expect((await t.api('/users/me', { headers: bearer(other) })).status).toBe(401);
      expect((await login(fan.email, fan.password)).status).toBe(400);
      fan.password = 'newfan1234';
      expect((await login(fan.email, fan.password)).status).toBe(200);

      // A performer may change it from the performer screen.
      const perfToken = await tokenFor(perf.email, perf.password);
      const perfChange = await t.api('/auth/users/me/password', { method: 'PUT', headers: bearer(perfToken), json: { password: 'perfnew123', currentPassword: perf.password, source: 'performer' } });
      expect(perfChange.status).toBe(200);
      perf.password = 'perfnew123';
    });
  });

  describe('profile', () => {
    let fanToken = '';
    let perfToken = '';
    beforeAll(async () => {
      fanToken = await tokenFor(fan.email, fan.password);
      perfToken = await tokenFor(perf.email, perf.password);
    });

    it('GET /users/me answers the current user', async () => {
      const res = await t.api('/users/me', { headers: bearer(fanToken) });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.body).toEqual({
        _id: fanId,
        name: fan.name,
        username: fan.username,
        email: fan.email,
        avatar: '/no-avatar.png',
        cover: null,
        role: 'user',
        emailVerified: true,
        country: null,
        bio: 'hello',
        createdAt: expect.any(String),
      });
    });

    it('PUT /users updates name, username, bio and country', async () => {
      const res = await t.api('/users', { method: 'PUT', headers: bearer(fanToken), json: { name: '  Fan Renamed ', username: 'Fan_Renamed', bio: ' I like videos ', country: 'de', email: 'ignored@example.com', role: 'admin' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ name: 'Fan Renamed', username: 'fan_renamed', bio: 'I like videos', country: 'DE', email: fan.email, role: 'user' });
      fan.username = 'fan_renamed';
      const cleared = await t.api('/users', { method: 'PUT', headers: bearer(fanToken), json: { bio: '', country: null } });
      expect(cleared.body).toMatchObject({ bio: null, country: null, name: 'Fan Renamed' });
      const noop = await t.api('/users', { method: 'PUT', headers: bearer(fanToken), json: {} });
      expect(noop.status).toBe(200);
      expect(noop.body.username).toBe('fan_renamed');
      // The new username logs in; the old one no longer does.
      expect((await login('fan_renamed', fan.password)).status).toBe(200);
      expect((await login('fan_one', fan.password)).status).toBe(400);
    });

    it('PUT /users rejects bad input and taken usernames', async () => {
      const put = (json: unknown, headers: Record<string, string> = bearer(fanToken)) => t.api('/users', { method: 'PUT', headers, json });
      expect((await put({ name: 'X' }, {})).status).toBe(401);
      const cases: Array<[unknown, string | RegExp]> = [
        [{ country: 'XX' }, COUNTRY_MESSAGE],
        [{ country: 'Germany' }, COUNTRY_MESSAGE],
        [{ country: 12 }, COUNTRY_MESSAGE],
        [{ name: '' }, 'Name is required'],
        [{ name: 'x'.repeat(101) }, 'Name must be at most 100 characters'],
        [{ name: 5 }, /name/],
        [{ username: 'no spaces' }, /Username must be/],
        [{ username: 'root' }, 'This username is not available'],
        [{ bio: 'b'.repeat(2001) }, 'Bio must be at most 2000 characters'],
        ['just a string', /Invalid/],
      ];
      for (const [json, message] of cases) {
        const res = await put(json);
        expect(res.status, JSON.stringify(json)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        if (typeof message === 'string') expect(res.body.message).toContain(message);
        else expect(res.body.message).toMatch(message);
      }
      const taken = await put({ username: perf.username.toUpperCase() });
      expect(taken.status).toBe(409);
      expect(taken.body).toMatchObject({ code: 'CONFLICT', details: { field: 'username' } });
      expect((await t.api('/users/me', { headers: bearer(fanToken) })).body.username).toBe('fan_renamed');
    });

    it("a performer's display name and handle follow the account", async () => {
      const res = await t.api('/users', { method: 'PUT', headers: bearer(perfToken), json: { name: 'Perf Superstar', username: 'perf_superstar' } });
      expect(res.status).toBe(200);
      const row = await t.ctx.db.selectFrom('performers').selectAll().where('id', '=', perfId).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ displayName: 'Perf Superstar', username: 'perf_superstar' });
      perf.username = 'perf_superstar';
      // The new handle is taken for everyone else; the old one is free again.
      expect((await t.api('/users', { method: 'PUT', headers: bearer(fanToken), json: { username: 'perf_superstar' } })).status).toBe(409);
      const free = await t.api('/users', { method: 'PUT', headers: bearer(fanToken), json: { username: 'perf_star' } });
      expect(free.status).toBe(200);
      const back = await t.api('/users', { method: 'PUT', headers: bearer(fanToken), json: { username: 'fan_renamed' } });
      expect(back.body.username).toBe('fan_renamed');
    });

    it('GET /users/view/{id} shows a public profile by id or username; 404 for unknown or suspended', async () => {
      const byId = await t.api(`/users/view/${perfId}`);
      expect(byId.status).toBe(200);
      expect(byId.body).toEqual({ _id: perfId, name: 'Perf Superstar', username: 'perf_superstar', avatar: '/no-avatar.png', cover: null, role: 'performer', createdAt: expect.any(String) });
      expect(byId.body.email).toBeUndefined();
      const byName = await t.api('/users/view/Perf_Superstar');
      expect(byName.body._id).toBe(perfId);
      const unknown = await t.api('/users/view/no_such_user');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ code: 'NOT_FOUND', message: 'User not found' });
      expect((await t.api(`/users/view/${'z'.repeat(65)}`)).status).toBe(400);

      await t.ctx.db.updateTable('users').set({ status: 'suspended' }).where('id', '=', perfId).execute();
      expect((await t.api(`/users/view/${perfId}`)).status).toBe(404);
      // A suspended account's sessions stop working and it cannot log in.
      expect((await t.api('/users/me', { headers: bearer(perfToken) })).status).toBe(401);
      const suspendedLogin = await login(perf.email, perf.password);
      expect(suspendedLogin.status).toBe(403);
      expect(suspendedLogin.body.code).toBe('ACCOUNT_SUSPENDED');
      await t.ctx.db.updateTable('users').set({ status: 'active' }).where('id', '=', perfId).execute();
      expect((await t.api(`/users/view/${perfId}`)).status).toBe(200);
      perfToken = await tokenFor(perf.email, perf.password);
    });

    it('GET /users/search is for admins only', async () => {
      expect((await t.api('/users/search')).status).toBe(401);
      const forbidden = await t.api('/users/search', { headers: bearer(fanToken) });
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.code).toBe('FORBIDDEN');

      expect((await t.api('/auth/users/register', { method: 'POST', json: { ...admin, ...CONSENT, role: 'user' } })).status).toBe(201);
      await t.ctx.db.updateTable('users').set({ role: 'admin' }).where('email', '=', admin.email).execute();
      adminToken = await tokenFor(admin.email, admin.password);

      const all = await t.api('/users/search', { headers: bearer(adminToken) });
      expect(all.status).toBe(200);
      expect(all.headers.get('cache-control')).toBe('no-store');
      expect(all.body.total).toBeGreaterThanOrEqual(4);
      expect(all.body.items.length).toBe(Math.min(12, all.body.total));
      expect(all.body.items[0]).toMatchObject({ _id: expect.any(String), email: expect.any(String), status: 'active', updatedAt: expect.any(String) });
      expect(all.body.items.map((u: { email: string }) => u.email)).toContain(fan.email);

      const performers = await t.api('/users/search?role=performer', { headers: bearer(adminToken) });
      expect(performers.body.items.map((u: { _id: string }) => u._id)).toEqual([perfId]);
      expect(performers.body.total).toBe(1);
      const byText = await t.api(`/users/search?q=${encodeURIComponent('FAN REN')}`, { headers: bearer(adminToken) });
      expect(byText.body).toMatchObject({ total: 1, items: [{ _id: fanId }] });
      const byEmail = await t.api(`/users/search?q=${encodeURIComponent(`perf.${engine}@`)}`, { headers: bearer(adminToken) });
      expect(byEmail.body.total).toBe(1);
      const wildcard = await t.api(`/users/search?q=${encodeURIComponent('%_')}`, { headers: bearer(adminToken) });
      expect(wildcard.body.total).toBe(0);
      const paged = await t.api('/users/search?limit=1&offset=1', { headers: bearer(adminToken) });
      expect(paged.body.items).toHaveLength(1);
      expect(paged.body.total).toBe(all.body.total);
      const suspended = await t.api('/users/search?status=suspended', { headers: bearer(adminToken) });
      expect(suspended.body).toEqual({ items: [], total: 0 });

      for (const q of ['limit=0', 'limit=101', 'offset=-1', 'role=superuser', 'status=gone', `q=${'q'.repeat(101)}`]) {
        const res = await t.api(`/users/search?${q}`, { headers: bearer(adminToken) });
        expect(res.status, q).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
      }
    });

    it('uploads an avatar: sniffed, resized to 256x256 WebP, served publicly, the old file deleted', async () => {
      const upload = (pathname: string, form: FormData | string, headers: Record<string, string> = bearer(fanToken)) =>
        t.api(pathname, { method: 'POST', headers, body: form });

      const first = await upload('/users/avatar/upload', formWith({ bytes: await pngOf(600, 400), name: 'me.png', type: 'image/png' }));
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body._id).toBe(fanId);
      expect(first.body.avatar).toMatch(/^\/media\/public\/avatars\/[0-9a-f]+\.webp$/);
      const served = await fetch(`${t.url}${first.body.avatar}`);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('image/webp');
      const meta = await sharp(Buffer.from(await served.arrayBuffer())).metadata();
      expect(meta).toMatchObject({ format: 'webp', width: 256, height: 256 });
      expect((await t.api('/users/me', { headers: bearer(fanToken) })).body.avatar).toBe(first.body.avatar);
      expect((await t.api(`/users/view/${fanId}`)).body.avatar).toBe(first.body.avatar);

      // The declared type does not matter, the bytes do: a JPEG sent as "application/octet-stream" is fine.
      const jpeg = await sharp({ create: { width: 300, height: 900, channels: 3, background: '#3366ff' } }).jpeg().toBuffer();
      const second = await upload('/users/avatar/upload', formWith({ bytes: jpeg, name: 'photo.bin', type: 'application/octet-stream' }));
      expect(second.status).toBe(200);
      expect(second.body.avatar).not.toBe(first.body.avatar);
      expect((await fetch(`${t.url}${first.body.avatar}`)).status).toBe(404);
      expect(fs.existsSync(t.ctx.storage.localPath(first.body.avatar.replace('/media/', ''))!)).toBe(false);

      const cover = await upload('/users/cover/upload', formWith({ bytes: await pngOf(1000, 1000), name: 'cover.png', type: 'image/png' }));
      expect(cover.status).toBe(200);
      expect(cover.body.cover).toMatch(/^\/media\/public\/covers\/[0-9a-f]+\.webp$/);
      expect(cover.body.avatar).toBe(second.body.avatar);
      const coverMeta = await sharp(Buffer.from(await (await fetch(`${t.url}${cover.body.cover}`)).arrayBuffer())).metadata();
      expect(coverMeta).toMatchObject({ format: 'webp', width: 1500, height: 500 });
    });

    it('refuses non-images (400), oversized files (413), empty or multi-file forms (400), and others\' accounts (403)', async () => {
      const upload = (pathname: string, form: FormData | string, headers: Record<string, string> = bearer(fanToken)) =>
        t.api(pathname, { method: 'POST', headers, body: form });
      const before = (await t.api('/users/me', { headers: bearer(fanToken) })).body.avatar;

      const text = await upload('/users/avatar/upload', formWith({ bytes: 'this is not a picture at all', name: 'evil.png', type: 'image/png' }));
      expect(text.status).toBe(400);
      expect(text.body).toMatchObject({ code: 'INVALID_IMAGE', message: expect.stringMatching(/not a supported image/) });
      const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>';
      expect((await upload('/users/avatar/upload', formWith({ bytes: svg, name: 'a.svg', type: 'image/svg+xml' }))).status).toBe(400);
      const truncated = (await pngOf(400, 400)).subarray(0, 120);
      expect((await upload('/users/avatar/upload', formWith({ bytes: truncated, name: 'cut.png', type: 'image/png' }))).status).toBe(400);

      const big = Buffer.alloc(6 * 1024 * 1024, 7);
      const tooBig = await upload('/users/avatar/upload', formWith({ bytes: big, name: 'big.png', type: 'image/png' }));
      expect(tooBig.status).toBe(413);
      expect(tooBig.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('5 MB') });

      const png = await pngOf(64, 64);
      const noFile = new FormData();
      noFile.append('note', 'nothing');
      expect((await upload('/users/avatar/upload', noFile)).body).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/No image/) });
      const two = await upload('/users/avatar/upload', formWith({ bytes: png, name: 'a.png', type: 'image/png' }, { bytes: png, name: 'b.png', type: 'image/png' }));
      expect(two.status).toBe(400);
      expect(two.body.message).toMatch(/one image/);
      const json = await t.api('/users/avatar/upload', { method: 'POST', headers: bearer(fanToken), json: { file: 'abc' } });
      expect(json.status).toBe(400);
      expect(json.body.message).toMatch(/multipart/);
      expect((await t.api('/users/me', { headers: bearer(fanToken) })).body.avatar).toBe(before);

      // Who may upload.
      const good = () => formWith({ bytes: png, name: 'a.png', type: 'image/png' });
      expect((await upload('/users/avatar/upload', good(), {})).status).toBe(401);
      expect((await upload('/users/cover/upload', good(), {})).status).toBe(401);
      expect((await upload(`/users/${perfId}/avatar/upload`, good())).status).toBe(403);
      expect((await upload('/users/avatar/upload', good(), { cookie: `token=${fanToken}` })).status).toBe(403);
      const own = await upload(`/users/${fanId}/avatar/upload`, good());
      expect(own.status).toBe(200);
      expect(own.body._id).toBe(fanId);
      const byAdmin = await upload(`/users/${perfId}/avatar/upload`, good(), bearer(adminToken));
      expect(byAdmin.status).toBe(200);
      expect(byAdmin.body).toMatchObject({ _id: perfId, avatar: expect.stringMatching(/^\/media\/public\/avatars\//) });
      expect((await upload('/users/no-such-user/avatar/upload', good(), bearer(adminToken))).status).toBe(404);
      const viaCookie = await upload('/users/avatar/upload', good(), { cookie: `token=${fanToken}`, origin: t.url });
      expect(viaCookie.status).toBe(200);
    });
  });

  it('documents the account routes in the OpenAPI document', async () => {
    const res = await t.api('/docs/openapi.json');
    expect(res.status).toBe(200);
    for (const p of ['/users/me', '/users', '/users/search', '/users/view/{id}', '/users/avatar/upload', '/users/{id}/avatar/upload', '/auth/login']) {
      expect(Object.keys(res.body.paths), p).toContain(p);
    }
  });
});

describe.each(engines)('account abuse limits on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, {
      env: { RATE_LIMIT_LOGIN_IP: '4/60', RATE_LIMIT_EMAIL_ACCOUNT: '2/60', RATE_LIMIT_EMAIL_IP: '100/60', RATE_LIMIT_REGISTER_IP: '2/60', RATE_LIMIT_REGISTER_ACCOUNT: '10/60', ...redisEnv },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('limits registrations per IP', async () => {
    const reg = (n: number) => t.api('/auth/users/register', { method: 'POST', json: { ...CONSENT, name: `R ${n}`, username: `reg_${n}`, email: `reg${n}@example.com`, password: 'regpass123', role: 'user' } });
    expect((await reg(1)).status).toBe(201);
    expect((await reg(2)).status).toBe(201);
    const third = await reg(3);
    expect(third.status).toBe(429);
    expect(third.body.code).toBe('RATE_LIMITED');
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await t.ctx.db.selectFrom('users').select('id').where('username', '=', 'reg_3').executeTakeFirst()).toBeUndefined();
  });

  it('limits reset and verification mails per email, the same way whether or not the email exists', async () => {
    const run = async (email: string) => {
      const out = [];
      for (let i = 0; i < 3; i++) {
        const res = await t.api('/auth/users/forgot', { method: 'POST', json: { email } });
        out.push({ status: res.status, body: res.body, retry: res.headers.get('retry-after') !== null });
      }
      // Resend shares the per-email mail budget.
      const resend = await t.api('/auth/email-verification/resend', { method: 'POST', json: { email } });
      out.push({ status: resend.status, body: resend.body, retry: resend.headers.get('retry-after') !== null });
      return out;
    };
    const known = await run('reg1@example.com');
    const unknown = await run(`nobody.${engine}@example.com`);
    expect(known.map((r) => r.status)).toEqual([200, 200, 429, 429]);
    expect(known[3]!.retry).toBe(true);
    expect(unknown).toEqual(known);
  });

  it('limits login attempts per IP', async () => {
    for (let i = 0; i < 4; i++) expect((await t.api('/auth/login', { method: 'POST', json: { email: `x${i}@example.com`, password: 'whatever1' } })).status).toBe(400);
    const res = await t.api('/auth/login', { method: 'POST', json: { email: 'reg1@example.com', password: 'regpass123' } });
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('RATE_LIMITED');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

if (!redisUrl) {
  console.warn('\n!!! REDIS_URL is not set: the shared (Redis) login-failure limit test is SKIPPED. Set REDIS_URL to run it. !!!\n');
}

describe.skipIf(!redisUrl)('login failures shared through Redis', () => {
  it('two instances sharing Redis (and the database) share the per-account lock', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-shared-'));
    const env = {
      REDIS_URL: redisUrl!,
      REDIS_KEY_PREFIX: `test:shared:${process.pid}:${Date.now()}:`,
      SQLITE_FILE: path.join(dir, 'shared.db'),
      LOGIN_FAILURE_LIMIT: '3/60',
      RATE_LIMIT_LOGIN_IP: '1000/60',
      RATE_LIMIT_LOGIN_ACCOUNT: '1000/60',
    };
    const a = await startTestApp('sqlite', { env });
    const b = await startTestApp('sqlite', { env });
    try {
      expect(a.ctx.redis).toBeDefined();
      const account = { ...CONSENT, name: 'Shared', username: 'shared_one', email: 'shared@example.com', password: 'sharedpass1', role: 'user' };
      expect((await a.api('/auth/users/register', { method: 'POST', json: account })).status).toBe(201);
      const login = (app: TestApp, email: string, password: string) => app.api('/auth/login', { method: 'POST', json: { email, password } });
      // The account exists for both instances (one database) and logs in on B.
      expect((await login(b, account.email, account.password)).status).toBe(200);

      expect((await login(a, account.email, 'wrongpass1')).status).toBe(400);
      expect((await login(b, account.username, 'wrongpass1')).status).toBe(400);
      expect((await login(a, account.email, 'wrongpass1')).status).toBe(400);
      for (const app of [a, b]) {
        const res = await login(app, account.email, account.password);
        expect(res.status).toBe(429);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      // Failures of an unknown identifier are shared too.
      for (const app of [a, b, a]) expect((await login(app, 'ghost@example.com', 'wrongpass1')).status).toBe(400);
      expect((await login(b, 'ghost@example.com', 'wrongpass1')).status).toBe(429);
    } finally {
      await a.close();
      await b.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
