import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { prepareLoad, runLoad, snapshot, verifyLoad, type LoadFixture } from '../load/core.js';

/**
 * The short version of `npm run load` (tests/load/run.ts) on every engine: ~50 users with live sessions browse
 * API lists (and pages when the Astro build exists), like/unlike, comment and write to performers for ~8 s against a
 * real server. Zero 5xx, and the database matches the writes answered 2xx: comment, like and message rows and the
 * per-video likeCount / commentCount counters.
 */
const USERS = Number(process.env.LOAD_TEST_USERS ?? 50);
const SECONDS = Number(process.env.LOAD_TEST_SECONDS ?? 8);
const pages = fs.existsSync('dist/server/entry.mjs');

describe.each(engines)('load (short) on %s', (engine) => {
  let t: TestApp;
  let fx: LoadFixture;

  beforeAll(async () => {
    t = await startTestApp(engine, { web: pages });
    fx = await prepareLoad(t.ctx.db, { users: USERS, performers: 20, videos: 200 });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it(`${USERS} users for ${SECONDS} s: zero 5xx, zero lost writes`, async () => {
    const before = await snapshot(t.ctx.db, fx.videoIds);
    const result = await runLoad(fx, { base: t.url, apiBase: t.config.apiBase, seconds: SECONDS, pages, thinkMs: 20 });
    const check = await verifyLoad(t.ctx.db, fx, before, result);
    console.log(`load ${engine}: ${result.requests} requests (${result.rps}/s), status ${JSON.stringify(result.byStatus)}, writes ${JSON.stringify(result.writes)}, pages ${pages}`);
    expect(result.requests).toBeGreaterThan(USERS);
    expect(result.writes.comments2xx + result.writes.likeAdded).toBeGreaterThan(0);
    expect(check.violations).toEqual([]);
    expect(result.fiveXX).toBe(0);
    expect(check.commentsCreatedInDb).toBe(check.commentsExpected);
    expect(check.likeRowsDelta).toBe(check.likeRowsExpected);
    expect(result.writes.messages2xx).toBeGreaterThan(0);
    expect(check.messagesCreatedInDb).toBe(check.messagesExpected);
  }, (SECONDS + 60) * 1000);
});
