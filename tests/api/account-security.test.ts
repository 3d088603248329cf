import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { linkToken, MailCatcher } from '../helpers/mail-catcher.js';
import { connectSocket, type TestSocket } from '../helpers/realtime-client.js';
import { startServerProcess } from '../helpers/server-process.js';
import { loadConfig } from '../../server/config.js';
import { messages } from '../../server/auth/auth.service.js';

/**
 * Who can keep an owner out of their account, and what a password change or reset ends. Over real HTTP, on
 * both engines, with the login counters in memory and (with REDIS_URL) in Redis. The app trusts one proxy
 * (TRUST_PROXY=1), so each request names its client address in X-Forwarded-For.
 */
const redisUrl = process.env.REDIS_URL;
const stores: { store: string; env: Record<string, string> }[] = [{ store: 'memory', env: {} }, ...(redisUrl ? [{ store: 'redis', env: { REDIS_URL: redisUrl } }] : [])];
if (!redisUrl) console.warn('\n!!! REDIS_URL is not set: the Redis variants of the login throttling tests are SKIPPED. !!!\n');

const catcher = new MailCatcher();
beforeAll(() => catcher.start());
afterAll(() => catcher.stop());

const from = (ip: string) => ({ 'x-forwarded-for': ip });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(engines)('account security on %s', (engine) => {
  describe.each(stores)('login throttling, counters in $store', ({ env }) => {
    let t: TestApp;
    let n = 0;
    beforeAll(async () => {
      t = await startTestApp(engine, {
        env: { TRUST_PROXY: '1', SMTP_URL: catcher.smtpUrl, LOGIN_FAILURE_LIMIT: '3/60', RATE_LIMIT_LOGIN_ACCOUNT: '10/60', RATE_LIMIT_LOGIN_IP: '1000/60', RATE_LIMIT_REGISTER_IP: '1000/60', ...env },
      });
      if (env.REDIS_URL) expect(t.ctx.redis).toBeDefined();
      else expect(t.ctx.redis).toBeUndefined();
    });
    afterAll(async () => {
      await t?.close();
    });

    async function account() {
      const a = { name: 'Owner', username: `owner_${engine}_${++n}`, email: `owner${n}.${engine}@example.com`, password: 'ownerpass123' };
      expect((await t.api('/auth/users/register', { method: 'POST', json: { ...a, role: 'user', confirmAdult: true, acceptTerms: true } })).status).toBe(201);
      return a;
    }
    const login = (email: string, password: string, ip: string, extra: Record<string, unknown> = {}) =>
      t.api('/auth/login', { method: 'POST', json: { email, password, ...extra }, headers: from(ip) });

    it('a stranger hammering an account from one address does not keep the owner out from another', async () => {
      const owner = await account();
      const stranger: number[] = [];
      // Past both the failure limit (3) and the per-account attempt budget (10) of this address.
      for (let i = 0; i < 12; i++) stranger.push((await login(owner.email, 'guessing123', '203.0.113.66')).status);
      // By username the failures count for the same account.
      expect((await login(owner.username, 'guessing123', '203.0.113.66')).status).toBe(429);
      expect(stranger.slice(0, 3)).toEqual([400, 400, 400]);
      expect(stranger.slice(3).every((s) => s === 429)).toBe(true);
      // Even the right password from the stranger's address waits.
      expect((await login(owner.email, owner.password, '203.0.113.66')).status).toBe(429);

      const res = await login(owner.email, owner.password, '198.51.100.20');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect((await t.api('/users/me', { headers: bearer(res.body.token) })).body.username).toBe(owner.username);
    });

    it('each failure past the limit makes that address wait longer: 429 with a growing Retry-After', async () => {
      const owner = await account();
      const ip = '203.0.113.70';
      for (let i = 0; i < 3; i++) expect((await login(owner.email, 'guessing123', ip)).status).toBe(400);
      const first = await login(owner.email, owner.password, ip);
      expect(first.status).toBe(429);
      expect(first.body).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/try again in/) });
      const firstWait = Number(first.headers.get('retry-after'));
      expect(firstWait).toBeGreaterThanOrEqual(1);

      await sleep(firstWait * 1000 + 100);
      expect((await login(owner.email, 'guessing123', ip)).status).toBe(400);
      const second = await login(owner.email, owner.password, ip);
      expect(second.status).toBe(429);
      // 2 s after the 3rd failure, 4 s after the 4th: the wait doubles.
      expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(firstWait);

      // Once the wait is over the owner gets in from that address too, and the count starts afresh.
      await sleep(Number(second.headers.get('retry-after')) * 1000 + 100);
      expect((await login(owner.email, owner.password, ip)).status).toBe(200);
      expect((await login(owner.email, 'guessing123', ip)).status).toBe(400);
      expect((await login(owner.email, owner.password, ip)).status).toBe(200);
    });

    it('an account failing from many addresses asks for a captcha (when configured) instead of locking', async () => {
      const owner = await account();
      // Made before the captcha is configured: sign-up asks for one too then.
      const calm = await account();
      // The provider also remembers the client address each check names (the login's, for the provider's risk score).
      const remoteIps: Array<string | null> = [];
      const provider = http.createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          const form = new URLSearchParams(body);
          remoteIps.push(form.get('remoteip'));
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ success: form.get('response') === 'good-token' }));
        });
      });
      await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
      const captcha = t.ctx.captcha as unknown as { verifyUrl: string };
      const previousUrl = captcha.verifyUrl;
      try {
        captcha.verifyUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/siteverify`;
        await t.ctx.settings.set('captchaSecret', 's3cret');
        // A spread-out attack: one failure from each of three addresses (the limit is 3). Two failures ask nothing yet.
        for (const ip of ['192.0.2.1', '192.0.2.2']) expect((await login(owner.email, 'guessing123', ip)).status).toBe(400);
        expect((await login(calm.email, calm.password, '198.51.100.29')).status).toBe(200);
        expect((await login(owner.email, 'guessing123', '192.0.2.3')).status).toBe(400);
        const owners = '198.51.100.30';
        const ask = await login(owner.email, owner.password, owners);
        expect(ask.status).toBe(400);
        expect(ask.body).toEqual({ code: 'CAPTCHA_REQUIRED', message: messages.captchaRequired });
        expect(remoteIps).toEqual([]);
        expect((await login(owner.email, owner.password, owners, { captchaToken: 'bad' })).body).toEqual({ code: 'CAPTCHA_REQUIRED', message: messages.captchaFailed });
        expect((await login(owner.email, owner.password, owners, { captchaToken: 'good-token' })).status).toBe(200);
        expect(remoteIps).toEqual([owners, owners]);
        // An account without failures is not asked, captcha configured or not.
        expect((await login(calm.email, calm.password, '198.51.100.29')).status).toBe(200);
      } finally {
        await t.ctx.settings.set('captchaSecret', '');
        captcha.verifyUrl = previousUrl;
        provider.close();
      }
      // Without a captcha configured, nothing is asked and nothing locks.
      expect((await login(owner.email, owner.password, '198.51.100.31')).status).toBe(200);
    });
  });

  describe('password change and reset', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(engine, { env: { SMTP_URL: catcher.smtpUrl, LOGIN_FAILURE_LIMIT: '100/60', RATE_LIMIT_LOGIN_IP: '1000/60', RATE_LIMIT_LOGIN_ACCOUNT: '1000/60', RATE_LIMIT_EMAIL_ACCOUNT: '100/60' } });
    });
    afterAll(async () => {
      await t?.close();
    });

    let n = 0;
    async function account() {
      const a = { name: 'Owner', username: `pw_${engine}_${++n}`, email: `pw${n}.${engine}@example.com`, password: 'ownerpass123' };
      expect((await t.api('/auth/users/register', { method: 'POST', json: { ...a, role: 'user', confirmAdult: true, acceptTerms: true } })).status).toBe(201);
      return a;
    }
    async function tokenFor(email: string, password: string): Promise<string> {
      const res = await t.api('/auth/login', { method: 'POST', json: { email, password } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.token as string;
    }
    async function resetLink(email: string): Promise<string> {
      const since = catcher.mark();
      expect((await t.api('/auth/users/forgot', { method: 'POST', json: { email } })).status).toBe(200);
      return linkToken((await catcher.waitFor(email, /reset your/i, since)).text, t.url, '/auth/reset-password');
    }
    const gone = (s: TestSocket) => new Promise<string>((resolve) => s.once('disconnect', (reason) => resolve(reason)));

    it('a change refuses reset links mailed before it, ends the other sessions and their sockets, keeps this one', async () => {
      const owner = await account();
      const link = await resetLink(owner.email);
      const current = await tokenFor(owner.email, owner.password);
      const other = await tokenFor(owner.username, owner.password);
      const currentSocket = await connectSocket(t.url, { token: current });
      const otherSocket = await connectSocket(t.url, { token: other });
      try {
        const otherGone = gone(otherSocket);
        const change = await t.api('/auth/users/me/password', { method: 'PUT', headers: bearer(current), json: { currentPassword: owner.password, password: 'changed12345' } });
        expect(change.status).toBe(200);
        expect((await t.api('/users/me', { headers: bearer(current) })).status).toBe(200);
        expect((await t.api('/users/me', { headers: bearer(other) })).status).toBe(401);
        expect(await otherGone).toBe('io server disconnect');
        expect(currentSocket.connected).toBe(true);

        const reset = await t.api('/auth/users/reset-password', { method: 'POST', json: { token: link, password: 'attacker1234' } });
        expect(reset.status).toBe(400);
        expect(reset.body.code).toBe('TOKEN_USED');
        expect((await t.api('/auth/login', { method: 'POST', json: { email: owner.email, password: 'changed12345' } })).status).toBe(200);
      } finally {
        currentSocket.close();
        otherSocket.close();
      }
    });

    it('a reset ends every session of the account and drops its sockets', async () => {
      const owner = await account();
      const a = await tokenFor(owner.email, owner.password);
      const b = await tokenFor(owner.email, owner.password);
      const socket = await connectSocket(t.url, { token: a });
      try {
        const dropped = gone(socket);
        const link = await resetLink(owner.email);
        expect((await t.api('/auth/users/reset-password', { method: 'POST', json: { token: link, password: 'resetpass123' } })).status).toBe(200);
        for (const token of [a, b]) expect((await t.api('/users/me', { headers: bearer(token) })).status).toBe(401);
        expect(await dropped).toBe('io server disconnect');
      } finally {
        socket.close();
      }
    });

    it('the session cookie is Secure whenever PUBLIC_URL is https, on login and on logout', async () => {
      const owner = await account();
      const cookieOf = (headers: Headers) => headers.getSetCookie().find((c) => c.startsWith('token='));
      const plain = await t.api('/auth/login', { method: 'POST', json: { email: owner.email, password: owner.password } });
      expect(cookieOf(plain.headers)).not.toMatch(/;\s*Secure/i);

      const own = t.ctx.config.publicUrl;
      t.ctx.config.publicUrl = 'https://fans.example.com';
      try {
        // The app itself is reached over plain http (TLS ends at the proxy) and no proxy is trusted.
        const res = await t.api('/auth/login', { method: 'POST', json: { email: owner.email, password: owner.password } });
        expect(res.status).toBe(200);
        expect(cookieOf(res.headers)).toMatch(/;\s*Secure/i);
        expect(cookieOf(res.headers)).toMatch(/;\s*HttpOnly/i);
        const out = await t.api('/auth/logout', { method: 'POST', headers: bearer(res.body.token) });
        expect(out.status).toBe(204);
        expect(cookieOf(out.headers)).toMatch(/;\s*Secure/i);
      } finally {
        t.ctx.config.publicUrl = own;
      }
    });
  });
});

describe('production start without a mail server', () => {
  it('refuses to start, saying SMTP_URL is needed, and writes no outbox', async () => {
    expect(() => loadConfig({ NODE_ENV: 'production', APP_SECRET: 'a-real-secret' })).toThrow(/SMTP_URL must be set in production/);
    expect(() => loadConfig({ NODE_ENV: 'production', APP_SECRET: 'a-real-secret', SMTP_URL: 'smtp://127.0.0.1:2525' })).not.toThrow();

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-nosmtp-'));
    try {
      const start = startServerProcess({ NODE_ENV: 'production', APP_SECRET: 'a-real-secret', DATA_DIR: dir, SMTP_URL: '', SERVE_WEB: '0' }, { timeoutMs: 60_000 });
      await expect(start).rejects.toThrow(/exited with 1 before listening[\s\S]*SMTP_URL must be set in production/);
      expect(fs.existsSync(path.join(dir, 'outbox'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
