import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDueJob, insertJob } from '../../server/jobs/jobs.repository.js';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The queue's claim (server/jobs/README.md): one statement takes the oldest due queued job; workers racing for jobs
 * each get a different one, never the same one twice, and nothing that is not queued and due.
 */
describe.each(engines)('job claims on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('gives each of many racing workers a different due job, oldest first, and never one not due or running', async () => {
    const db = t.ctx.db;
    const type = `test.race.${engine}`;
    const now = new Date();
    const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
    const due: string[] = [];
    for (let i = 0; i < 6; i++) due.push(await insertJob(db, { type, payload: { i }, runAt: at(-60_000 + i), maxAttempts: 3, now: at(-60_000) }));
    const later = await insertJob(db, { type, payload: { later: true }, runAt: at(60_000), maxAttempts: 3, now: at(0) });
    const running = await insertJob(db, { type, payload: { running: true }, runAt: at(-120_000), maxAttempts: 3, now: at(-120_000) });
    await db.updateTable('jobs').set({ status: 'running', lockedBy: 'someone', leaseExpiresAt: at(-1000) }).where('id', '=', running).execute();

    const claims = await Promise.all(Array.from({ length: 12 }, (_, i) => claimDueJob(db, [type], `worker-${i}`, now.toISOString(), at(30_000))));
    const won = claims.filter((c) => c !== undefined);
    expect(won.map((c) => c.id).sort()).toEqual([...due].sort());
    expect(new Set(won.map((c) => c.lockedBy)).size).toBe(won.length);
    for (const c of won) expect(c).toMatchObject({ status: 'running', attempts: 1, leaseExpiresAt: at(30_000) });
    const rows = await db.selectFrom('jobs').select(['id', 'status', 'lockedBy']).where('type', '=', type).execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(later)!.status).toBe('queued');
    expect(byId.get(running)!.lockedBy).toBe('someone');
    // One worker alone takes them oldest first.
    const next = await insertJob(db, { type, payload: {}, runAt: at(-5), maxAttempts: 3, now: at(-5) });
    const older = await insertJob(db, { type, payload: {}, runAt: at(-10), maxAttempts: 3, now: at(-5) });
    expect((await claimDueJob(db, [type], 'solo', now.toISOString(), at(30_000)))?.id).toBe(older);
    expect((await claimDueJob(db, [type], 'solo', now.toISOString(), at(30_000)))?.id).toBe(next);
    expect(await claimDueJob(db, [type], 'solo', now.toISOString(), at(30_000))).toBeUndefined();
  });
});
