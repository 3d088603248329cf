import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';

describe.each(engines)('foundation API on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves public settings with defaults', async () => {
    const res = await t.api('/settings/public');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ siteName: expect.any(String), currency: 'USD', currencySymbol: '$', maintenanceMode: false });
    expect(Array.isArray(res.body.menus)).toBe(true);
  });

  it('reflects a stored setting', async () => {
    await t.ctx.settings.set('siteName', 'Test Site');
    const res = await t.api('/settings/public?group=general');
    expect(res.body.siteName).toBe('Test Site');
    expect(res.body.captchaSiteKey).toBeUndefined();
  });

  it('rejects a malformed group with a 400 JSON error', async () => {
    const res = await t.api('/settings/public?group=' + encodeURIComponent('<script>'));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('group') });
  });

  it('refuses NUL characters in any text with a 400 on both engines, storing nothing', async () => {
    const before = await t.ctx.db.selectFrom('contacts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const body = await t.api('/contact', { method: 'POST', json: { name: 'Nul\u0000Byte', email: 'nul@example.com', message: 'A message that is long enough.' } });
    expect(body.status).toBe(400);
    expect(body.body.message).toMatch(/NUL/);
    const query = await t.api('/performers/search?q=a%00b');
    expect(query.status).toBe(400);
    const after = await t.ctx.db.selectFrom('contacts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('answers unknown API routes with a JSON 404', async () => {
    const res = await t.api('/nope');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });
});
