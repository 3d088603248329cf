import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createSession, createUser, type TestUser } from '../helpers/sessions.js';
import { openDatabase, type DatabaseHandle } from '../../server/db/database.js';
import { nowIso } from '../../server/db/ids.js';

/**
 * Sessions kept in memory (server/auth/session-cache.ts): a signed-in request is answered without reading its session
 * again, yet any change to the account or its sessions counts on the next request, whoever wrote it: the database's
 * triggers say so (migration 0032). Each change here is written straight to the database, past every service, as a
 * writer the services do not know would.
 */
describe.each(engines)('sessions kept in memory on %s', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(() => t?.close());

  const sessions = () => t.ctx.sessions!;
  const me = (who: TestUser) => t.api('/users/me/header', { headers: who.headers });
  /** Signs in and asks once, so the session is kept (checked: a change below must drop a kept session, not miss an empty cache). */
  const kept = async () => {
    const who = await createUser(t.ctx.db);
    const before = sessions().size;
    expect((await me(who)).status).toBe(200);
    expect(sessions().size).toBe(before + 1);
    return who;
  };

  it('keeps a session after its first request, and a revoked, expired or suspended one fails the next request', async () => {
    const revoked = await kept();
    await t.ctx.db.updateTable('sessions').set({ revokedAt: nowIso() }).where('userId', '=', revoked.id).execute();
    expect((await me(revoked)).status).toBe(401);

    const expired = await kept();
    await t.ctx.db.updateTable('sessions').set({ expiresAt: new Date(Date.now() - 1000).toISOString() }).where('userId', '=', expired.id).execute();
    expect((await me(expired)).status).toBe(401);

    const suspended = await kept();
    await t.ctx.db.updateTable('users').set({ status: 'suspended' }).where('id', '=', suspended.id).execute();
    expect((await me(suspended)).status).toBe(401);

    const deleted = await kept();
    await t.ctx.db.deleteFrom('sessions').where('userId', '=', deleted.id).execute();
    expect((await me(deleted)).status).toBe(401);
    // Through the API too: a logout ends the session at once.
    const out = await kept();
    expect((await t.api('/auth/logout', { method: 'POST', headers: out.headers })).status).toBeLessThan(300);
    expect((await me(out)).status).toBe(401);
  });

  it('shows a changed name or role on the next request', async () => {
    const who = await kept();
    await t.ctx.db.updateTable('users').set({ name: 'Renamed Fan', role: 'admin' }).where('id', '=', who.id).execute();
    expect((await me(who)).body.user).toMatchObject({ name: 'Renamed Fan', role: 'admin' });
  });

  it('serves a kept session only until it expires by itself', async () => {
    const who = await createUser(t.ctx.db);
    // A second session that ends in 400 ms: kept, then refused once its time is up, with nothing written.
    const token = await createSession(t.ctx.db, who.id, 400);
    const headers = { authorization: `Bearer ${token}` };
    const before = sessions().size;
    expect((await t.api('/users/me/header', { headers })).status).toBe(200);
    expect(sessions().size).toBe(before + 1);
    await new Promise((ok) => setTimeout(ok, 500));
    expect((await t.api('/users/me/header', { headers })).status).toBe(401);
  });
});

/**
 * Two instances on one PostgreSQL database: a change written by the other instance's connection reaches this one
 * only through NOTIFY after its commit; while this instance's listening connection is down, nothing is kept.
 */
describe.runIf(engines.includes('postgres'))('sessions kept in memory across instances on postgres', () => {
  let t: TestApp;
  let other: DatabaseHandle;

  beforeAll(async () => {
    t = await startTestApp('postgres');
    other = await openDatabase({ databaseUrl: process.env.DATABASE_URL, pgSchema: t.schema, poolSize: 1 });
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });

  const me = (who: TestUser) => t.api('/users/me/header', { headers: who.headers });
  const until = async (what: () => Promise<boolean> | boolean, ms = 3000) => {
    const end = Date.now() + ms;
    while (!(await what())) {
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((ok) => setTimeout(ok, 10));
    }
  };
  const keptFor = async (who: TestUser) => {
    // A session this instance kept: its first request reads it, the next is answered from memory.
    await until(async () => (await me(who)).status === 200 && t.ctx.sessions!.size > 0);
  };

  it("drops a session another instance revoked once that instance's transaction commits", async () => {
    const who = await createUser(other.db);
    await keptFor(who);
    const size = t.ctx.sessions!.size;
    await other.db.transaction().execute(async (trx) => {
      await trx.updateTable('sessions').set({ revokedAt: nowIso() }).where('userId', '=', who.id).execute();
      // Not committed: this instance has heard nothing, and its copy still answers.
      expect(t.ctx.sessions!.size).toBe(size);
    });
    await until(() => t.ctx.sessions!.size === size - 1, 2000);
    expect((await me(who)).status).toBe(401);
  });

  it('keeps nothing while its listening connection is down, and keeps again once it listens', async () => {
    const who = await createUser(other.db);
    await keptFor(who);
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ${`session-notices ${t.schema}`}`.execute(other.db);
    await until(() => !t.ctx.sessions!.live);
    expect(t.ctx.sessions!.size).toBe(0);
    // A change made while nobody listens for this instance is never heard: the session is read from the database.
    await other.db.updateTable('users').set({ status: 'suspended' }).where('id', '=', who.id).execute();
    expect((await me(who)).status).toBe(401);
    const back = await createUser(other.db);
    await until(() => t.ctx.sessions!.live, 5000);
    await keptFor(back);
  });
});
