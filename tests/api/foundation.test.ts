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

  it('answers unknown API routes with a JSON 404', async () => {
    const res = await t.api('/nope');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });
});
