import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { buildCatalogue } from '../helpers/catalogue-fixture.js';
import { warmUp } from '../../server/http/warm-up.js';
import { loadConfig } from '../../server/config.js';

/**
 * The warm-up a production process runs before it serves (server/http/warm-up.ts): it replays the public reads for
 * its time, every one answered 200, and writes no row in any table. (That the micro-cache keeps no answer to a request
 * with credentials, as the warm-up's are, is the micro-cache's own test.)
 */
describe.each(engines)('warm-up on %s', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(engine, { web: true });
    await buildCatalogue(t.ctx);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  const rowCounts = async () => {
    const tables = (await t.ctx.db.introspection.getTables()).filter((x) => !x.isView && (engine === 'sqlite' || x.schema === t.schema));
    const counts: Record<string, number> = {};
    for (const table of tables) {
      const row = await t.ctx.db.selectFrom(table.name as never).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      counts[table.name] = Number(row.n);
    }
    return counts;
  };

  it('replays the lists, a video, a performer and their pages, every answer 200, and writes nothing', async () => {
    const before = await rowCounts();
    expect(Object.keys(before).length).toBeGreaterThan(40);
    const warmed = await warmUp(t.built.app, { ms: 400, apiBase: t.config.apiBase, web: true, logger: t.ctx.logger });
    expect(warmed.urls.some((u) => u.startsWith('/videos/'))).toBe(true);
    expect(warmed.urls.some((u) => u.startsWith('/performers/'))).toBe(true);
    expect(warmed.urls.some((u) => u.includes('/comments/search'))).toBe(true);
    expect(warmed.requests).toBeGreaterThanOrEqual(warmed.urls.length * 10);
    expect(warmed.statuses).toEqual({ 200: warmed.requests });
    expect(await rowCounts()).toEqual(before);
  });
});

describe('warm-up setting', () => {
  it('runs 4 s in production unless WARM_UP_MS says otherwise, and never elsewhere by default', () => {
    expect(loadConfig({ NODE_ENV: 'production', APP_SECRET: 'x'.repeat(32), SMTP_URL: 'smtp://127.0.0.1:25' }).warmUpMs).toBe(4000);
    expect(loadConfig({ NODE_ENV: 'production', APP_SECRET: 'x'.repeat(32), SMTP_URL: 'smtp://127.0.0.1:25', WARM_UP_MS: '0' }).warmUpMs).toBe(0);
    expect(loadConfig({ NODE_ENV: 'test' }).warmUpMs).toBe(0);
    expect(loadConfig({}).warmUpMs).toBe(0);
    expect(() => loadConfig({ WARM_UP_MS: 'soon' })).toThrow(/WARM_UP_MS/);
  });
});
