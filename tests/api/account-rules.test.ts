import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser } from '../helpers/sessions.js';
import { newId, nowIso } from '../../server/db/ids.js';
import { hashToken, newSecretToken } from '../../server/auth/tokens.js';
import { hashPassword } from '../../server/auth/password.js';
import { messages } from '../../server/auth/auth.service.js';
import { DEFAULT_AVATAR } from '../../common/api-types.js';

/**
 * The account rules at their edges, over real HTTP on both engines: who gets a performer row, how a login reads its
 * identifier, what a session keeps of the browser, who gets no mail, what a used or raced link says, and two
 * sign-ups racing for one username or one address. Found by mutation testing of server/auth/auth.service.ts
 * (docs/testing.md): each test here failed a mutant the other account suites let live.
 */

const CONSENT = { confirmAdult: true, acceptTerms: true } as const;
const PASSWORD = 'a-long-password-9';

describe.each(engines)('account rules at their edges on %s', (engine) => {
  let t: TestApp;
  let n = 0;
  beforeAll(async () => {
    // With the web side: the header's avatar is rendered from the session user.
    t = await startTestApp(engine, {
      web: true,
      env: { RATE_LIMIT_LOGIN_IP: '1000/60', RATE_LIMIT_LOGIN_ACCOUNT: '1000/60', RATE_LIMIT_EMAIL_ACCOUNT: '100/60', RATE_LIMIT_EMAIL_IP: '1000/60', RATE_LIMIT_REGISTER_IP: '1000/60', RATE_LIMIT_REGISTER_ACCOUNT: '100/60' },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const register = (json: Record<string, unknown>) => t.api('/auth/users/register', { method: 'POST', json: { name: 'Edge', password: PASSWORD, role: 'user', ...CONSENT, ...json } });
  const usersWith = (email: string) => t.ctx.db.selectFrom('users').select(['id', 'username']).where('email', '=', email).execute();

  /** A mailed link's token, stored as the app stores one (only its hash), for a user and purpose. */
  async function mailedToken(userId: string, purpose: 'verify-email' | 'reset-password', opts: { expiresAt?: string; usedAt?: string } = {}): Promise<string> {
    const token = newSecretToken();
    await t.ctx.db
      .insertInto('authTokens')
      .values({ id: newId(), userId, purpose, tokenHash: hashToken(token), expiresAt: opts.expiresAt ?? new Date(Date.now() + 3_600_000).toISOString(), usedAt: opts.usedAt ?? null, createdAt: nowIso() })
      .execute();
    return token;
  }
  const tokensOf = (userId: string) => t.ctx.db.selectFrom('authTokens').select('id').where('userId', '=', userId).execute();

  it("a fan's sign-up writes no performer row; a performer's writes one", async () => {
    const fan = { username: `edge_fan_${engine}`, email: `edge.fan.${engine}@example.test` };
    const perf = { username: `edge_perf_${engine}`, email: `edge.perf.${engine}@example.test` };
    expect((await register({ ...fan, role: 'user' })).status).toBe(201);
    expect((await register({ ...perf, role: 'performer' })).status).toBe(201);
    const [fanRow] = await usersWith(fan.email);
    const [perfRow] = await usersWith(perf.email);
    const performerIds = (await t.ctx.db.selectFrom('performers').select('id').where('id', 'in', [fanRow!.id, perfRow!.id]).execute()).map((r) => r.id);
    expect(performerIds).toEqual([perfRow!.id]);
  });

  it('a login reads its email or username without case and without the spaces around it', async () => {
    const user = await createUser(t.ctx.db, 'user', { username: `edge_case_${engine}` });
    await t.ctx.db.updateTable('users').set({ passwordHash: await hashPassword(PASSWORD) }).where('id', '=', user.id).execute();
    for (const identifier of [`  ${user.email.toUpperCase()}  `, ` ${user.username.toLowerCase()} `, user.username.toUpperCase()]) {
      const res = await t.api('/auth/login', { method: 'POST', json: { email: identifier, password: PASSWORD } });
      expect(res.status, identifier).toBe(200);
      expect(res.body.user._id).toBe(user.id);
    }
  });

  it("a session keeps the first 255 characters of the browser's name, and none when it sends none", async () => {
    const user = await createUser(t.ctx.db, 'user');
    await t.ctx.db.updateTable('users').set({ passwordHash: await hashPassword(PASSWORD) }).where('id', '=', user.id).execute();
    const agent = `EdgeBrowser/1.0 ${'x'.repeat(300)}`;
    expect((await t.api('/auth/login', { method: 'POST', json: { email: user.email, password: PASSWORD }, headers: { 'user-agent': agent } })).status).toBe(200);
    const newest = () => t.ctx.db.selectFrom('sessions').select('userAgent').where('userId', '=', user.id).orderBy('createdAt', 'desc').orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect((await newest()).userAgent).toBe(agent.slice(0, 255));
  });

  it('the session user carries the account\'s own avatar, or the default image when it has none', async () => {
    const withAvatar = await createUser(t.ctx.db, 'user');
    await t.ctx.db.updateTable('users').set({ avatarPath: 'public/avatars/edge.webp' }).where('id', '=', withAvatar.id).execute();
    const without = await createUser(t.ctx.db, 'user');
    // The header's user menu is rendered from the session user (request.user), not from another query.
    const headerOf = async (token: string) => {
      const html = await (await fetch(`${t.url}/account/favourites`, { headers: { cookie: `token=${token}` } })).text();
      return html.slice(html.indexOf('<header'), html.indexOf('</header>'));
    };
    expect(await headerOf(withAvatar.token)).toContain('/media/public/avatars/edge.webp');
    const plain = await headerOf(without.token);
    expect(plain).not.toContain('/media/public/avatars/');
    expect(plain).toContain(DEFAULT_AVATAR);
  });

  it('a suspended account gets no verification link and no reset link (the answer is the same)', async () => {
    const suspended = await createUser(t.ctx.db, 'user', { status: 'suspended' });
    await t.ctx.db.updateTable('users').set({ emailVerified: 0 }).where('id', '=', suspended.id).execute();
    const active = await createUser(t.ctx.db, 'user', { status: 'pending' });
    await t.ctx.db.updateTable('users').set({ emailVerified: 0 }).where('id', '=', active.id).execute();
    for (const who of [suspended, active]) {
      expect((await t.api('/auth/email-verification/resend', { method: 'POST', json: { email: who.email } })).status).toBe(200);
      expect((await t.api('/auth/users/forgot', { method: 'POST', json: { email: who.email } })).status).toBe(200);
    }
    expect(await tokensOf(suspended.id)).toHaveLength(0);
    // The control: the same requests for an account that may have them do issue both links.
    expect(await tokensOf(active.id)).toHaveLength(2);
  });

  it('a used link says it was used, even once it has also expired', async () => {
    const user = await createUser(t.ctx.db, 'user');
    const token = await mailedToken(user.id, 'reset-password', { expiresAt: new Date(Date.now() - 60_000).toISOString(), usedAt: new Date(Date.now() - 120_000).toISOString() });
    const res = await t.api('/auth/users/reset-password', { method: 'POST', json: { token, password: 'another-password-1' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'TOKEN_USED', message: messages.tokenUsed });
  });

  it('one link used twice at the same moment works once; the other use is told the link was used', async () => {
    for (let round = 0; round < 5; round++) {
      const user = await createUser(t.ctx.db, 'user');
      await t.ctx.db.updateTable('users').set({ emailVerified: 0 }).where('id', '=', user.id).execute();
      const token = await mailedToken(user.id, 'verify-email');
      const answers = await Promise.all([0, 1].map(() => t.api('/auth/email-verification', { method: 'POST', json: { token } })));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
      expect(answers.find((a) => a.status === 400)!.body).toEqual({ code: 'TOKEN_USED', message: messages.tokenUsed });
    }
  });

  it('two sign-ups racing for one username: one account, the other a 409 naming the username field', async () => {
    for (let round = 0; round < 8; round++) {
      const username = `race_${engine}_${++n}`;
      const answers = await Promise.all([1, 2].map((i) => register({ username, email: `race${n}.${i}.${engine}@example.test` })));
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
      expect(answers.find((a) => a.status === 409)!.body).toMatchObject({ code: 'CONFLICT', message: messages.usernameTaken, details: { field: 'username' } });
      expect(await t.ctx.db.selectFrom('users').select('id').where('username', '=', username).execute()).toHaveLength(1);
    }
  });

  it('two sign-ups racing for one address: one account, both answered alike (the address is not revealed)', async () => {
    for (let round = 0; round < 8; round++) {
      const email = `same${++n}.${engine}@example.test`;
      const answers = await Promise.all([1, 2].map((i) => register({ username: `same_${engine}_${n}_${i}`, email })));
      expect(answers.map((a) => a.status)).toEqual([201, 201]);
      expect(Object.keys(answers[0]!.body).sort()).toEqual(Object.keys(answers[1]!.body).sort());
      expect(await usersWith(email)).toHaveLength(1);
    }
  });
});
