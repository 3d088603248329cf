import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { hashPassword } from '../../server/auth/password.js';

/**
 * One client address for everything that keys on it: the per-IP rate limits, the country (GeoIP), the IP a
 * session records and the IP of an audit row. The test client talks to the app directly, so the app sees the
 * socket peer 127.0.0.1 as "the proxy in front" and the right-most X-Forwarded-For entry as what that proxy
 * saw. A client that writes its own left-most entry (6.6.6.6, a US address) must change none of them.
 */
const FORGED = '6.6.6.6'; // US
const REAL = '81.2.69.160'; // GB

const forms: { name: string; trustProxy: string | undefined; real: string | null; country: string | null; chain: string }[] = [
  // One proxy in front: the address it appended is the client.
  { name: 'TRUST_PROXY=1', trustProxy: '1', real: REAL, country: 'GB', chain: `${FORGED}, ${REAL}` },
  // Trusted ranges: every hop inside them is a proxy (here an internal one at 10.0.0.2 as well).
  { name: 'a CIDR list', trustProxy: '127.0.0.0/8, 10.0.0.0/8', real: REAL, country: 'GB', chain: `${FORGED}, ${REAL}, 10.0.0.2` },
  // No proxy trusted: the header is ignored, the socket peer is the client.
  { name: 'no trust', trustProxy: undefined, real: null, country: null, chain: `${FORGED}, ${REAL}` },
];

describe.each(engines)('client IP on %s', (engine) => {
  describe.each(forms)('$name', ({ trustProxy, real, country, chain }) => {
    let t: TestApp;
    let admin: TestUser;
    const expectedIp = real ?? '127.0.0.1';
    const xff = (forged: string) => ({ 'x-forwarded-for': chain.replace(FORGED, forged) });

    beforeAll(async () => {
      t = await startTestApp(engine, { env: { ...(trustProxy ? { TRUST_PROXY: trustProxy } : {}), RATE_LIMIT_LOGIN_IP: '3/900' } });
      admin = await createUser(t.ctx.db, 'admin');
    }, 60_000);
    afterAll(async () => {
      await t?.close();
    });

    it('the country comes from the client address, not from what the client wrote', async () => {
      const res = await t.api('/country-block/check', { headers: xff(FORGED) });
      expect(res.status).toBe(200);
      expect(res.body.country).toBe(country);
    });

    it('the session and the audit row record the client address', async () => {
      const user = await createUser(t.ctx.db, 'user');
      await t.ctx.db.updateTable('users').set({ passwordHash: await hashPassword('correct horse 1') }).where('id', '=', user.id).execute();
      const login = await t.api('/auth/login', { method: 'POST', json: { email: user.email, password: 'correct horse 1' }, headers: xff(FORGED) });
      expect(login.status).toBe(200);
      const session = await t.ctx.db.selectFrom('sessions').select('ip').where('userId', '=', user.id).where('ip', 'is not', null).executeTakeFirstOrThrow();
      expect(session.ip).toBe(expectedIp);

      const blocked = await t.api('/admin/country-blocks', { method: 'POST', json: { countryCode: 'FR' }, headers: { ...admin.headers, ...xff(FORGED) } });
      expect(blocked.status).toBe(201);
      const row = await t.ctx.db.selectFrom('auditLog').select('ip').where('actorId', '=', admin.id).orderBy('createdAt', 'desc').executeTakeFirstOrThrow();
      expect(row.ip).toBe(expectedIp);
    });

    it('the per-IP login limit counts the client, whatever it writes left of its address', async () => {
      // The session test above used one login of the 3 this address may make.
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await t.api('/auth/login', { method: 'POST', json: { email: `nobody${i}@example.test`, password: 'wrong password' }, headers: xff(`6.6.6.${10 + i}`) });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([400, 400, 429]);
      if (real) {
        // Another client behind the same proxy has its own budget.
        const other = await t.api('/auth/login', { method: 'POST', json: { email: 'nobody@example.test', password: 'wrong password' }, headers: { 'x-forwarded-for': chain.replace(REAL, '81.2.69.161') } });
        expect(other.status).toBe(400);
      }
    });
  });
});
